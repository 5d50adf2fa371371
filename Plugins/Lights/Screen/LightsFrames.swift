import WorkbenchModuleAPI

/// What a home window shows: which container it reads, the bridge, and the rooms.
public struct HomeFrame: FrameRecord {
  /// One room of the home.
  public struct Room: FrameRecord {
    public var id = ""
    public var name = ""
    /// How many lights it has.
    public var lights = 0
    public init() {}
    public static let fields: FrameFields<Room> = [
      FrameField("id", \.id, "the room's id in the home (living)"), FrameField("name", \.name, "the room's name"),
      FrameField("lights", \.lights, "how many lights the room has"),
    ]
  }

  public var container = "live"
  public var bridge = ""
  public var rooms: [Room] = []
  public init() {}

  public static let fields: FrameFields<HomeFrame> = [
    FrameField("container", \.container, "live or preview: which container's dependencies the window reads"),
    FrameField("bridge", \.bridge, "reachable, unreachable or preview"),
    FrameField("rooms", \.rooms, "every room: {id, name, lights (how many)}"),
  ]
}

/// What a room window shows: one page of a room's lights, from the room's child scope.
public struct RoomFrame: FrameRecord {
  /// One light of the page.
  public struct Light: FrameRecord {
    public var id = 0
    public var name = ""
    public var on = false
    public var brightness = 0
    public init() {}
    public static let fields: FrameFields<Light> = [
      FrameField("id", \.id, "the light's id"), FrameField("name", \.name, "the light's name"),
      FrameField("on", \.on, "whether the light is on"),
      FrameField("brightness", \.brightness, "its brightness, 0 to 100"),
    ]
  }

  public var container = "live"
  public var bridge = ""
  public var room: String?
  /// The room's name, whether it is in the home, whether the bridge detects lights in it: all
  /// `nil` without a room.
  public var name: String?
  public var exists: Bool?
  public var detecting: Bool?
  public var count = 0
  public var firstRow: Int?
  public var lights: [Light] = []
  public init() {}

  public static let fields: FrameFields<RoomFrame> = [
    FrameField("container", \.container, "live or preview: which container's dependencies the window reads"),
    FrameField("bridge", \.bridge, "reachable, unreachable or preview"),
    FrameField("room", \.room, "the room the window shows, or null"),
    FrameField("name", \.name, "the room's name (null without a room)"),
    FrameField("exists", \.exists, "whether the room is in the home (null without a room)"),
    FrameField("detecting", \.detecting, "whether the bridge is detecting new lights in the room"),
    FrameField("count", \.count, "how many lights the room has"),
    FrameField("firstRow", \.firstRow, "the 1-based number of the first light shown, null when the room has none"),
    FrameField("lights", \.lights, "one page of the room's lights: {id, name, on, brightness}"),
  ]
}
