import Observation
import WorkbenchCore

/// A light as the bridge knows it.
@MainActor @Observable
public final class Light {
  public let id: Int
  public var name: String
  public var isOn: Bool
  public var brightness: Int

  init(id: Int, name: String, isOn: Bool, brightness: Int) {
    self.id = id
    self.name = name
    self.isOn = isOn
    self.brightness = brightness
  }
}

/// A room as the bridge knows it.
@MainActor @Observable
public final class Room {
  public let id: String
  public var name: String
  public var lightIDs: [Int]
  public var isDetecting = false

  init(id: String, name: String, lightIDs: [Int]) {
    self.id = id
    self.name = name
    self.lightIDs = lightIDs
  }
}

/// A simulated home bridge: it owns the rooms and lights and can change on its own (a switch
/// at the wall, a light added, the bridge going offline). Commands play its side.
@MainActor @Observable
public final class HomeBridge {
  public private(set) var roomIDs: [String]
  public private(set) var rooms: [String: Room]
  public private(set) var lights: [Int: Light] = [:]
  public var isReachable = true
  @ObservationIgnored let clock: SessionClock
  /// How long detecting new lights takes.
  @ObservationIgnored public let detectionDelay: Duration = .seconds(2)

  init(document: HomeDocument, clock: SessionClock) {
    self.clock = clock
    roomIDs = document.rooms.map(\.id)
    var rooms: [String: Room] = [:]
    var lights: [Int: Light] = [:]
    for record in document.rooms {
      rooms[record.id] = Room(id: record.id, name: record.name, lightIDs: record.lights.map(\.id))
      for light in record.lights {
        lights[light.id] = Light(id: light.id, name: light.name, isOn: light.on, brightness: light.brightness)
      }
    }
    self.rooms = rooms
    self.lights = lights
  }

  /// The bridge for a home document in this session, made on first use.
  static func shared(for documentName: String, document: HomeDocument, services: SessionServices) -> HomeBridge {
    services.shared(HomeBridge.self, named: documentName) { HomeBridge(document: document, clock: services.clock) }
  }

  func requireReachable(_ what: String) throws(CommandError) {
    guard isReachable else {
      throw CommandError("the bridge is unreachable, so \(what); try again when it is back (`bridge online`)")
    }
  }

  // MARK: The bridge's side

  /// A light switched at the wall.
  func switchAtWall(_ id: Int, on: Bool) throws(CommandError) {
    guard let light = lights[id] else { throw CommandError("the bridge has no light \(id)") }
    light.isOn = on
  }

  /// A light installed in a room.
  @discardableResult
  func addLight(named name: String, to roomID: String) throws(CommandError) -> Int {
    guard let room = rooms[roomID] else { throw CommandError("the bridge has no room '\(roomID)'") }
    let id = (lights.keys.max() ?? 0) + 1
    lights[id] = Light(id: id, name: name, isOn: false, brightness: 50)
    room.lightIDs.append(id)
    return id
  }

  /// A light taken away.
  func removeLight(_ id: Int) throws(CommandError) {
    guard lights[id] != nil else { throw CommandError("the bridge has no light \(id)") }
    for room in rooms.values { room.lightIDs.removeAll { $0 == id } }
    lights[id] = nil
  }

  /// Starts looking for new lights in a room; one turns up after `detectionDelay` on the
  /// session clock.
  func detectLights(in roomID: String) throws(CommandError) {
    try requireReachable("no lights can be detected")
    guard let room = rooms[roomID] else { throw CommandError("the bridge has no room '\(roomID)'") }
    guard !room.isDetecting else { throw CommandError("already detecting lights in \(room.name)") }
    room.isDetecting = true
    clock.schedule(after: detectionDelay) { [weak self, weak room] in
      guard let self, let room else { return }
      room.isDetecting = false
      _ = try? self.addLight(named: "New light \((self.lights.keys.max() ?? 0) + 1)", to: room.id)
    }
  }
}
