import WorkbenchModuleAPI

/// The layout a simulated home bridge starts from: rooms and their lights. The bridge owns the
/// live state (switches, brightness, new lights) while the session runs.
public struct HomeDocument: DocumentBody {
  public struct LightRecord: Codable, Equatable, Sendable {
    public var id: Int
    public var name: String
    public var on: Bool
    public var brightness: Int
  }

  public struct RoomRecord: Codable, Equatable, Sendable {
    public var id: String
    public var name: String
    public var lights: [LightRecord]
  }

  public var rooms: [RoomRecord]

  /// A layout, after checking that room and light ids are unique and brightness is 0 to 100.
  public init(rooms: [RoomRecord]) throws(CommandError) {
    var roomIDs = Set<String>()
    var lightIDs = Set<Int>()
    for (index, room) in rooms.enumerated() {
      guard roomIDs.insert(room.id).inserted else {
        throw CommandError("rooms[\(index)]: the room id '\(room.id)' is used twice")
      }
      for (lightIndex, light) in room.lights.enumerated() {
        guard lightIDs.insert(light.id).inserted else {
          throw CommandError("rooms[\(index)].lights[\(lightIndex)]: the light id \(light.id) is used twice")
        }
        guard (0...100).contains(light.brightness) else {
          throw CommandError("rooms[\(index)].lights[\(lightIndex)]: brightness must be 0 to 100")
        }
      }
    }
    self.rooms = rooms
  }

  private enum CodingKeys: String, CodingKey { case rooms }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(rooms: try container.decode([RoomRecord].self, forKey: .rooms))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(rooms, forKey: .rooms)
  }

  /// A new workspace's home.
  public static let sample = HomeDocument(
    unchecked: [
      RoomRecord(
        id: "living", name: "Living room",
        lights: [
          LightRecord(id: 1, name: "Ceiling", on: true, brightness: 80),
          LightRecord(id: 2, name: "Floor lamp", on: false, brightness: 40),
        ]),
      RoomRecord(
        id: "kitchen", name: "Kitchen",
        lights: [
          LightRecord(id: 3, name: "Counter", on: false, brightness: 100),
          LightRecord(id: 4, name: "Pendant", on: true, brightness: 60),
        ]),
      RoomRecord(
        id: "bedroom", name: "Bedroom", lights: [LightRecord(id: 5, name: "Bedside", on: false, brightness: 30)]),
    ])

  init(unchecked rooms: [RoomRecord]) { self.rooms = rooms }
}
