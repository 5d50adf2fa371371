/// Everything a user can do in a room window (live or preview), named for what happened.
public enum RoomAction: Equatable, Sendable {
  /// Another room was chosen for the window.
  case roomChosen(String)
  /// The next page of lights (`forward`), or the previous one.
  case paged(forward: Bool)
  /// A light was switched on, off, or to the other state.
  case lightSwitched(Int, LightSetting)
  /// A light's brightness was set, 0 to 100.
  case lightDimmed(Int, percent: Int)
  /// "Detect lights" was tapped: new lights turn up after 2 s on the session clock.
  case detectTapped
}

/// What a switch asks of a light.
public enum LightSetting: String, CaseIterable, Equatable, Sendable {
  case on, off, toggle
}
