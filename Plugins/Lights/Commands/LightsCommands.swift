import WorkbenchCore

/// The lights commands: moving between rooms, switching and dimming through writable
/// connections, detection, the scopes tree, and the simulated bridge.
enum LightsCommands {
  static let homeScreens = ["home", "preview-home"]
  static let roomScreens = ["room", "preview-room"]
  static let all = [enter, room, switchLight, dim, detect, scopes, bridge]

  @MainActor static func lightsWindow(_ context: CommandContext) throws(CommandError) -> any LightsWindow {
    let window = try context.requireWindow()
    guard let lights = window.anyModel as? any LightsWindow else {
      throw CommandError("window \(window.label) is not a lights window")
    }
    return lights
  }

  @MainActor static func roomWindow(_ context: CommandContext) throws(CommandError) -> any RoomWindowActions {
    let window = try context.requireWindow()
    guard let room = window.anyModel as? any RoomWindowActions else {
      throw CommandError("window \(window.label) is not a room window")
    }
    return room
  }

  static let enter: CommandSpec = {
    var spec = enterCommand
    spec.opensWindow = ("name", ["home": "room", "preview-home": "preview-room"])
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
    let environment = context.host.screenEnvironment(for: window.documentName)
    let document =
      try (window.anyModel as? HomeScreen<LiveMode>)?.document
      ?? (window.anyModel as? HomeScreen<PreviewMode>)?.document
      ?? { () throws(CommandError) -> HomeDocument in throw CommandError("not a home window") }()
    let opened: Window
    if lights.isPreview {
      let screen = RoomScreen<PreviewMode>(document: document, viewState: RoomViewState(), environment: environment)
      try screen.showRoom(room)
      opened = try context.host.openWindow(
        screen, screen: "preview-room", document: window.documentName, name: context.arguments[windowName])
    } else {
      let screen = RoomScreen<LiveMode>(document: document, viewState: RoomViewState(), environment: environment)
      try screen.showRoom(room)
      opened = try context.host.openWindow(
        screen, screen: "room", document: window.documentName, name: context.arguments[windowName])
    }
    return .frame(opened.id)
  }

  static let room = CommandSpec(
    "room", arguments: [roomID],
    summary: "Show another room in this window (the room scope is resolved again)",
    scope: .window(screens: roomScreens)
  ) { context in
    try roomWindow(context).showRoom(context.arguments[roomID])
    return .frame(try context.requireWindow().id)
  }

  static let lightID = Argument<Int>.integer("light", help: "a light id")
  static let lightState = Argument<String>.choice("state", ["on", "off", "toggle"])

  static let switchLight = CommandSpec(
    "switch", arguments: [lightID, lightState],
    summary: "Switch a light through its writable connection", scope: .window(screens: roomScreens)
  ) { context in
    let light = try roomWindow(context).light(context.arguments[lightID])
    let state = context.arguments[lightState]
    let value = state == "toggle" ? !light.value(\.isOn) : state == "on"
    try light.write(\.isOn, value)
    return .frame(try context.requireWindow().id)
  }

  static let percent = Argument<Int>.integer("percent", help: "0 to 100")

  static let dim = CommandSpec(
    "dim", arguments: [lightID, percent],
    summary: "Set a light's brightness (0 to 100)", scope: .window(screens: roomScreens)
  ) { context in
    let light = try roomWindow(context).light(context.arguments[lightID])
    try light.write(\.brightness, context.arguments[percent])
    return .frame(try context.requireWindow().id)
  }

  static let detect = CommandSpec(
    "detect", summary: "Look for new lights in this room (they turn up after 2 s on the session clock)",
    scope: .window(screens: roomScreens)
  ) { context in
    guard let room = try roomWindow(context).room else {
      throw CommandError("this window shows no room yet: `room ROOM` picks one")
    }
    try room.value(\.detectLights)()
    return .frame(try context.requireWindow().id)
  }

  static let scopes = CommandSpec(
    "scopes", summary: "Show the scopes and connections this window has resolved, as a tree",
    scope: .window(screens: homeScreens + roomScreens)
  ) { context in
    .text(try lightsWindow(context).scopeTree().joined(separator: "\n"))
  }

  static let bridgeAction = Argument<String>.choice("action", ["switch", "add", "remove", "offline", "online"])
  static let bridgeDetails = Argument<String>.rest(
    "details", help: "switch: LIGHT on|off; add: ROOM NAME...; remove: LIGHT"
  ).optional

  static let bridge = CommandSpec(
    "bridge", arguments: [bridgeAction, bridgeDetails],
    summary: "Play the bridge's side: a switch at the wall, a light added or removed, the bridge offline or online",
    scope: .window(screens: homeScreens + roomScreens)
  ) { context in
    guard let bridge = try lightsWindow(context).bridge else {
      throw CommandError("this window shows a preview: there is no bridge behind it")
    }
    let words = (context.arguments[bridgeDetails] ?? "").split(separator: " ").map(String.init)
    switch context.arguments[bridgeAction] {
    case "switch":
      guard words.count == 2, let id = Int(words[0]), ["on", "off"].contains(words[1]) else {
        throw CommandError("usage: bridge switch LIGHT on|off")
      }
      try bridge.switchAtWall(id, on: words[1] == "on")
    case "add":
      guard words.count >= 2 else { throw CommandError("usage: bridge add ROOM NAME...") }
      try bridge.addLight(named: words.dropFirst().joined(separator: " "), to: words[0])
    case "remove":
      guard words.count == 1, let id = Int(words[0]) else { throw CommandError("usage: bridge remove LIGHT") }
      try bridge.removeLight(id)
    case "offline": bridge.isReachable = false
    default: bridge.isReachable = true
    }
    return .frame(try context.requireWindow().id)
  }
}

/// What a room window offers commands, whichever container it uses.
@MainActor
protocol RoomWindowActions: AnyObject {
  var room: ScopeResolver<RoomScope>? { get }
  func showRoom(_ roomID: String) throws(CommandError)
  func light(_ id: Int) throws(CommandError) -> ScopeResolver<LightScope>
}

extension RoomScreen: RoomWindowActions {}
