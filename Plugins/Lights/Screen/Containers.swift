import WorkbenchModuleAPI

/// Builds scopes from the live bridge: every connection observes the bridge's objects, and
/// writes go to the bridge, which refuses them while it is unreachable.
@MainActor
final class LiveContainer {
  let bridge: HomeBridge

  init(bridge: HomeBridge) { self.bridge = bridge }

  var homeScope: HomeScope {
    let bridge = self.bridge
    return HomeScope(
      status: .callback(
        read: { bridge.isReachable ? "reachable" : "unreachable" },
        subscribe: { onChange in ObservationSubscription.start(bridge, \.isReachable, onChange) }),
      roomIDs: .observation(bridge, \.roomIDs),
      roomScope: ConfiguredConnection(kind: "bridge room") { roomID in
        ConnectionSource(
          read: { [weak self] in self?.roomScope(roomID) ?? Self.missingRoom(roomID) },
          subscribe: { onChange in ObservationSubscription.start(bridge, \.rooms, onChange) })
      })
  }

  func roomScope(_ roomID: String) -> RoomScope {
    guard let room = bridge.rooms[roomID] else { return Self.missingRoom(roomID) }
    let bridge = self.bridge
    return RoomScope(
      exists: .constant(true),
      name: .observation(room, \.name),
      lightIDs: .observation(room, \.lightIDs),
      isDetecting: .observation(room, \.isDetecting),
      detectLights: .constant(ScopeAction { try bridge.detectLights(in: roomID) }),
      lightScope: ConfiguredConnection(kind: "bridge light") { lightID in
        ConnectionSource(
          read: { [weak self] in self?.lightScope(lightID) ?? Self.missingLight() },
          subscribe: { onChange in ObservationSubscription.start(bridge, \.lights, onChange) })
      })
  }

  func lightScope(_ lightID: Int) -> LightScope {
    guard let light = bridge.lights[lightID] else { return Self.missingLight() }
    let bridge = self.bridge
    return LightScope(
      exists: .constant(true),
      name: .observation(light, \.name),
      isOn: .observation(light, \.isOn) { _ throws(CommandError) in
        try bridge.requireReachable("the light was not switched")
      },
      brightness: .observation(light, \.brightness) { value throws(CommandError) in
        try bridge.requireReachable("the brightness was not changed")
        try LightRules.checkBrightness(value)
      })
  }

  static func missingRoom(_ roomID: String) -> RoomScope {
    RoomScope(
      exists: .constant(false), name: .constant(roomID), lightIDs: .constant([]), isDetecting: .constant(false),
      detectLights: .constant(ScopeAction { throw CommandError("the room '\(roomID)' is gone") }),
      lightScope: ConfiguredConnection(kind: "none") { _ in
        ConnectionSource(read: { missingLight() }, subscribe: { _ in .none })
      })
  }

  static func missingLight() -> LightScope {
    LightScope(
      exists: .constant(false), name: .constant("(removed)"), isOn: .initial(false), brightness: .initial(0))
  }
}

/// Builds the same scopes from constants and initial values only: no bridge. What a preview
/// shows; switches and brightness change only inside the window that holds them.
@MainActor
final class PreviewContainer {
  let layout: HomeDocument

  init(layout: HomeDocument) { self.layout = layout }

  var homeScope: HomeScope {
    let layout = self.layout
    return HomeScope(
      status: .constant("preview"),
      roomIDs: .constant(layout.rooms.map(\.id)),
      roomScope: ConfiguredConnection(kind: "preview room") { roomID in
        let scope = PreviewContainer.roomScope(roomID, in: layout)
        return ConnectionSource(read: { scope }, subscribe: { _ in .none })
      })
  }

  static func roomScope(_ roomID: String, in layout: HomeDocument) -> RoomScope {
    guard let room = layout.rooms.first(where: { $0.id == roomID }) else { return LiveContainer.missingRoom(roomID) }
    return RoomScope(
      exists: .constant(true),
      name: .constant(room.name),
      lightIDs: .constant(room.lights.map(\.id)),
      isDetecting: .constant(false),
      detectLights: .constant(
        ScopeAction { throw CommandError("a preview has no bridge, so it cannot detect lights") }),
      lightScope: ConfiguredConnection(kind: "preview light") { lightID in
        let light = room.lights.first { $0.id == lightID }
        let scope = LightScope(
          exists: .constant(light != nil), name: .constant(light?.name ?? "(none)"),
          isOn: .initial(light?.on ?? false), brightness: .initial(light?.brightness ?? 0))
        return ConnectionSource(read: { scope }, subscribe: { _ in .none })
      })
  }
}

enum LightRules {
  static func checkBrightness(_ value: Int) throws(CommandError) {
    guard (0...100).contains(value) else {
      throw CommandError("brightness goes from 0 to 100, not \(value)")
    }
  }
}
