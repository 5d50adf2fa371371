import WorkbenchModuleAPI

/// The lights commands: moving between rooms, switching and dimming through writable
/// connections, detection, the scopes tree, and the simulated bridge.
enum LightsCommands {
  static let homeScreens = ["home", "preview-home"]
  static let roomScreens = ["room", "preview-room"]
  static let all = [enter, room, page, switchLight, dim, detect, scopes.reporting(), bridge]

  /// A command that sends a room window (live or preview) the action `action` makes.
  private static func roomCommand(
    _ name: String, arguments: [any ArgumentDeclaration] = [], summary: String,
    _ action: @escaping @MainActor @Sendable (ParsedArguments) -> RoomAction
  ) -> CommandSpec {
    ScreenCommands.sending(
      name, for: RoomAction.self, screens: roomScreens, arguments: arguments, summary: summary, action: action)
  }

  /// Which way `page` moves.
  enum Direction: String, CaseIterable { case next, previous }

  static let direction = Argument<Direction>.choice("direction")
  static let page = roomCommand(
    "page", arguments: [direction], summary: "Show the next or previous page of the room's lights"
  ) { arguments in .paged(forward: arguments[direction] == .next) }

  @MainActor static func lightsWindow(_ context: CommandContext) throws(CommandError) -> any LightsWindow {
    try context.model((any LightsWindow).self)
  }

  static let enter: CommandSpec = {
    var spec = enterCommand
    spec.windowEffect = .opensFrom(screens: ["home": "room", "preview-home": "preview-room"], nameArgument: "name")
    return spec
  }()

  static let roomID = Argument<String>.word("room", help: "a room id")
  static let windowName = Argument<String>.word("name", help: "the window's name").optional

  static let enterCommand = CommandSpec(
    "enter", arguments: [roomID, windowName],
    summary: "Open a window on a room: its child scope of this home's scope", scope: .window(screens: homeScreens)
  ) { context in
    let lights = try lightsWindow(context)
    let window = try context.requireWindow()
    let room = context.arguments[roomID]
    let environment = context.environment(forDocument: window.documentName)
    let document = try context.document(HomeDocument.self)
    let opened: Window
    if lights.isPreview {
      let screen = RoomScreen<PreviewMode>(document: document, viewState: RoomViewState(), environment: environment)
      try screen.send(.roomChosen(room))
      opened = try context.openWindow(
        screen, screen: "preview-room", document: window.documentName, name: context.arguments[windowName])
    } else {
      let screen = RoomScreen<LiveMode>(document: document, viewState: RoomViewState(), environment: environment)
      try screen.send(.roomChosen(room))
      opened = try context.openWindow(
        screen, screen: "room", document: window.documentName, name: context.arguments[windowName])
    }
    return .frame(opened.id)
  }

  static let room = roomCommand(
    "room", arguments: [roomID], summary: "Show another room in this window (the room scope is resolved again)"
  ) { arguments in .roomChosen(arguments[roomID]) }

  static let lightID = Argument<Int>.integer("light", help: "a light id")
  static let lightState = Argument<LightSetting>.choice("state")

  static let switchLight = roomCommand(
    "switch", arguments: [lightID, lightState], summary: "Switch a light through its writable connection"
  ) { arguments in .lightSwitched(arguments[lightID], arguments[lightState]) }

  static let percent = Argument<Int>.integer("percent", help: "0 to 100")

  static let dim = roomCommand(
    "dim", arguments: [lightID, percent], summary: "Set a light's brightness (0 to 100)"
  ) { arguments in .lightDimmed(arguments[lightID], percent: arguments[percent]) }

  static let detect = roomCommand(
    "detect", summary: "Look for new lights in this room (they turn up after 2 s on the session clock)"
  ) { _ in .detectTapped }

  static let scopes = CommandSpec(
    "scopes", summary: "Show the scopes and connections this window has resolved, as a tree",
    scope: .window(screens: homeScreens + roomScreens)
  ) { context in
    .text(try lightsWindow(context).scopeTree().joined(separator: "\n"))
  }

  /// Where a wall switch was put.
  enum WallSwitch: String, CaseIterable { case on, off }

  static let wallState = Argument<WallSwitch>.choice("state")
  static let newLightRoom = Argument<String>.word("room", help: "the room it goes in")
  static let newLightName = Argument<String>.rest("name", help: "what it is called")

  static let bridge = CommandSpec(
    "bridge",
    subcommands: [
      bridgeCommand("switch", arguments: [lightID, wallState], summary: "A light switched at the wall") {
        bridge, arguments throws(CommandError) in
        try bridge.switchAtWall(arguments[lightID], on: arguments[wallState] == .on)
      },
      bridgeCommand("add", arguments: [newLightRoom, newLightName], summary: "A light added to a room") {
        bridge, arguments throws(CommandError) in
        try bridge.addLight(named: arguments[newLightName], to: arguments[newLightRoom])
      },
      bridgeCommand("remove", arguments: [lightID], summary: "A light removed") {
        bridge, arguments throws(CommandError) in try bridge.removeLight(arguments[lightID])
      },
      bridgeCommand("offline", summary: "The bridge stops answering") { bridge, _ throws(CommandError) in
        bridge.isReachable = false
      },
      bridgeCommand("online", summary: "The bridge answers again") { bridge, _ throws(CommandError) in
        bridge.isReachable = true
      },
    ],
    summary: "Play the bridge's side: a switch at the wall, a light added or removed, the bridge offline or online",
    scope: .window(screens: homeScreens + roomScreens))

  /// A subcommand of `bridge`, acting on the simulated bridge behind the window.
  private static func bridgeCommand(
    _ name: String, arguments: [any ArgumentDeclaration] = [], summary: String,
    _ act: @escaping @MainActor @Sendable (HomeBridge, ParsedArguments) throws(CommandError) -> Void
  ) -> CommandSpec {
    CommandSpec(name, arguments: arguments, summary: summary) { context in
      guard let bridge = try lightsWindow(context).bridge else {
        throw CommandError("this window shows a preview: there is no bridge behind it")
      }
      try act(bridge, context.arguments)
      return .frame(try context.requireWindow().id)
    }
  }
}
