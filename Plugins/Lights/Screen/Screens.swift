import WorkbenchModuleAPI

/// Which container a window's scopes come from.
public protocol ContainerMode {
  static var isPreview: Bool { get }
}

/// Scopes from the live bridge.
public enum LiveMode: ContainerMode { public static var isPreview: Bool { false } }
/// Scopes from constants and initial values.
public enum PreviewMode: ContainerMode { public static var isPreview: Bool { true } }

/// What every lights window offers the module's commands.
@MainActor
protocol LightsWindow: AnyObject {
  var home: ScopeResolver<HomeScope> { get }
  var bridge: HomeBridge? { get }
  var isPreview: Bool { get }
  var updates: Int { get }
  func scopeTree() -> [String]
}

@MainActor
enum LightsContainers {
  /// A home scope resolver from the container the mode picks.
  static func homeResolver(preview: Bool, document: HomeDocument, environment: ScreenEnvironment)
    -> (ScopeResolver<HomeScope>, HomeBridge?)
  {
    if preview {
      return (
        ScopeResolver(
          scope: PreviewContainer(layout: document).homeScope, name: "HomeScope (preview)",
          scheduler: environment.services.scheduler),
        nil
      )
    }
    let bridge = HomeBridge.shared(
      for: environment.documentName ?? "home", document: document, services: environment.services)
    return (
      ScopeResolver(
        scope: LiveContainer(bridge: bridge).homeScope, name: "HomeScope (live)",
        scheduler: environment.services.scheduler),
      bridge
    )
  }
}

/// A home window's view state: nothing beyond which container (its screen) it uses.
public struct HomeViewState: ViewStateValue {
  public init() {}
}

/// A home window: the rooms of the home.
@MainActor
public final class HomeScreen<Mode: ContainerMode>: FramedScreen, LightsWindow {
  public private(set) var document: HomeDocument
  public private(set) var viewState: HomeViewState
  private(set) var home: ScopeResolver<HomeScope>
  let bridge: HomeBridge?
  private let environment: ScreenEnvironment
  /// How many changes reached this window.
  public private(set) var updates = 0
  var isPreview: Bool { Mode.isPreview }

  public init(document: HomeDocument, viewState: HomeViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
    self.environment = environment
    (home, bridge) = LightsContainers.homeResolver(
      preview: Mode.isPreview, document: document, environment: environment)
    home.onChange = { [weak self] in self?.updates += 1 }
  }

  /// The home changed (an edit, or another process's save): a live window's bridge follows the
  /// new layout, so the scopes derived from it (rooms, a room's lights) change too; a preview
  /// builds its scopes again from the new layout's initial values.
  public func documentReplaced(_ document: HomeDocument) {
    self.document = document
    guard let bridge else {
      home.cancel()
      home = LightsContainers.homeResolver(preview: true, document: document, environment: environment).0
      home.onChange = { [weak self] in self?.updates += 1 }
      updates += 1
      return
    }
    bridge.adopt(document)
  }
  public func restore(_ viewState: HomeViewState) { self.viewState = viewState }
  public func windowClosed() { home.cancel() }

  func scopeTree() -> [String] { home.tree() }

  public var typedFrame: HomeFrame {
    var frame = HomeFrame()
    frame.container = Mode.isPreview ? "preview" : "live"
    frame.bridge = home.value(\.status)
    frame.rooms = home.value(\.roomIDs).map { roomID in
      let room = home.child(\.roomScope, configuration: roomID, name: "RoomScope")
      var shown = HomeFrame.Room()
      shown.id = roomID
      shown.name = room.value(\.name)
      shown.lights = room.value(\.lightIDs).count
      return shown
    }
    return frame
  }

}

/// A room window's view state: which room it shows, and the first light of the page it shows.
public struct RoomViewState: ViewStateValue {
  public var room: String?
  /// The position (from 0) of the first light the window shows: a frame projects one page of
  /// the room's lights, not every light of a room of thousands.
  public var firstLight = 0
  public init() {}
  public init(room: String?) { self.room = room }

  private enum CodingKeys: String, CodingKey { case room, firstLight }

  // A state stored before pages (no `firstLight`) starts at the first light.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    room = try container.decodeIfPresent(String.self, forKey: .room)
    firstLight = max(0, try container.decodeIfPresent(Int.self, forKey: .firstLight) ?? 0)
  }
}

/// A room window: the lights of one room, from the room's child scope of the home scope.
@MainActor
public final class RoomScreen<Mode: ContainerMode>: ActionHandling, FramedScreen, LightsWindow {
  public private(set) var document: HomeDocument
  public private(set) var viewState: RoomViewState
  private(set) var home: ScopeResolver<HomeScope>
  let bridge: HomeBridge?
  private(set) var slot: ScopeSlot<HomeScope, RoomScope, String>
  private let environment: ScreenEnvironment
  public private(set) var updates = 0
  var isPreview: Bool { Mode.isPreview }

  public init(document: HomeDocument, viewState: RoomViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
    self.environment = environment
    (home, bridge) = LightsContainers.homeResolver(
      preview: Mode.isPreview, document: document, environment: environment)
    slot = ScopeSlot(parent: home, keyPath: \.roomScope) { "RoomScope(\($0))" }
    home.onChange = { [weak self] in self?.updates += 1 }
  }

  /// The home changed (an edit, or another process's save): a live window's bridge follows the
  /// new layout, so the scopes derived from it (rooms, a room's lights) change too; a preview
  /// builds its scopes again from the new layout's initial values.
  public func documentReplaced(_ document: HomeDocument) {
    self.document = document
    guard let bridge else {
      home.cancel()
      home = LightsContainers.homeResolver(preview: true, document: document, environment: environment).0
      slot = ScopeSlot(parent: home, keyPath: \.roomScope) { "RoomScope(\($0))" }
      home.onChange = { [weak self] in self?.updates += 1 }
      updates += 1
      return
    }
    bridge.adopt(document)
  }
  public func restore(_ viewState: RoomViewState) { self.viewState = viewState }
  public func windowClosed() { home.cancel() }

  func scopeTree() -> [String] { home.tree() }

  /// The room's scope, resolved for the room the view state names.
  var room: ScopeResolver<RoomScope>? {
    viewState.room.map { slot.resolve($0) }
  }

  /// Takes in what happened in the window. Switching and dimming write through the light's
  /// writable connection (to the bridge, or to a preview's fixed values), so every window on
  /// the home sees it; the home document itself does not change.
  ///
  /// - Throws: `CommandError` for a room or light that does not exist, a window with no room
  ///   yet, or a page past either end.
  @discardableResult
  public func send(_ action: RoomAction) throws(CommandError) -> DocumentChange<HomeDocument>? {
    switch action {
    case .roomChosen(let roomID):
      let known = home.value(\.roomIDs)
      guard known.contains(roomID) else {
        throw CommandError(
          "no room '\(roomID)'" + (Suggestions.didYouMean(roomID, in: known))
            + " (rooms: \(known.joined(separator: ", ")))")
      }
      viewState.room = roomID
      viewState.firstLight = 0
    case .paged(let forward):
      try page(forward: forward)
    case .lightSwitched(let id, let setting):
      let light = try self.light(id)
      let on: Bool
      switch setting {
      case .on: on = true
      case .off: on = false
      case .toggle: on = !light.value(\.isOn)
      }
      try light.write(\.isOn, on)
    case .lightDimmed(let id, let percent):
      try light(id).write(\.brightness, percent)
    case .detectTapped:
      guard let room else { throw CommandError("this window shows no room yet: `room ROOM` picks one") }
      try room.value(\.detectLights)()
    }
    return nil
  }

  /// Moves the page of lights the window shows forward or back by a page.
  private func page(forward: Bool) throws(CommandError) {
    guard let room else { throw CommandError("this window shows no room yet: `room ROOM` picks one") }
    let count = room.value(\.lightIDs).count
    let rows = max(1, environment.viewportRows)
    let first = min(viewState.firstLight, max(0, count - 1))
    let next = forward ? first + rows : first - rows
    guard next >= 0, next < count else {
      throw CommandError(forward ? "this is the last page of lights" : "this is the first page of lights")
    }
    viewState.firstLight = next
  }

  private func light(_ id: Int) throws(CommandError) -> ScopeResolver<LightScope> {
    guard let room else { throw CommandError("this window shows no room yet: `room ROOM` picks one") }
    guard room.value(\.lightIDs).contains(id) else {
      throw CommandError(
        "no light \(id) in \(room.value(\.name)) (lights: \(room.value(\.lightIDs).map(String.init).joined(separator: ", ")))"
      )
    }
    return room.child(\.lightScope, configuration: id, name: "LightScope")
  }

  public var typedFrame: RoomFrame {
    var frame = RoomFrame()
    frame.container = Mode.isPreview ? "preview" : "live"
    frame.bridge = home.value(\.status)
    frame.room = viewState.room
    guard let room else { return frame }
    // One page of lights: what a frame shows is projected, not every light of the room.
    let ids = room.value(\.lightIDs)
    let first = ids.isEmpty ? 0 : min(viewState.firstLight, ids.count - 1)
    let page = ids[first..<min(ids.count, first + max(1, environment.viewportRows))]
    frame.name = room.value(\.name)
    frame.exists = room.value(\.exists)
    frame.detecting = room.value(\.isDetecting)
    frame.count = ids.count
    frame.firstRow = ids.isEmpty ? nil : first + 1
    frame.lights = page.map { lightID in
      let light = room.child(\.lightScope, configuration: lightID, name: "LightScope")
      var shown = RoomFrame.Light()
      shown.id = lightID
      shown.name = light.value(\.name)
      shown.on = light.value(\.isOn)
      shown.brightness = light.value(\.brightness)
      return shown
    }
    return frame
  }

}
