import Observation
import WorkbenchModuleAPI

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
  @ObservationIgnored let clock: any SessionTime
  /// Where the bridge's own events are recorded or replayed from.
  @ObservationIgnored let facts: any OutsideFacts
  /// The bridge's scope among the session's facts: `bridge home`.
  @ObservationIgnored let factScope: String
  /// How long detecting new lights takes.
  @ObservationIgnored public let detectionDelay: Duration = .seconds(2)
  /// The lights the home document lists (the rest were found or added at the bridge).
  @ObservationIgnored private var documentedLights: Set<Int> = []

  init(document: HomeDocument, clock: any SessionTime, facts: any OutsideFacts, factScope: String = "bridge") {
    self.clock = clock
    self.facts = facts
    self.factScope = factScope
    documentedLights = Set(document.rooms.flatMap { $0.lights.map(\.id) })
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

  /// The bridge for a home document in this session, made on first use. The state it starts
  /// in is an external fact (`bridge.state`): the document's rooms and lights when live, the
  /// bridge as it was when recording started on replay.
  static func shared(for documentName: String, document: HomeDocument, services: SessionServices) -> HomeBridge {
    services.shared(HomeBridge.self, named: documentName) {
      let scope = "bridge \(documentName)"
      let facts = services.facts
      let box = WeakBox<HomeBridge>()
      let state = facts.state(
        of: "bridge.state", in: scope, live: { HomeBridge.state(of: document, reachable: true) },
        capture: { box.value?.currentState })
      let start = HomeBridge.document(from: state) ?? document
      let bridge = HomeBridge(document: start, clock: services.clock, facts: facts, factScope: scope)
      bridge.isReachable = state["reachable"]?.boolValue ?? true
      box.value = bridge
      return bridge
    }
  }

  /// The bridge's rooms and lights now, as a `bridge.state` fact.
  var currentState: FrameValue {
    let document = HomeDocument(
      unchecked: roomIDs.compactMap { id in
        rooms[id].map { room in
          HomeDocument.RoomRecord(
            id: room.id, name: room.name,
            lights: room.lightIDs.compactMap { id in
              lights[id].map { .init(id: $0.id, name: $0.name, on: $0.isOn, brightness: $0.brightness) }
            })
        }
      })
    return Self.state(of: document, reachable: isReachable)
  }

  static func state(of document: HomeDocument, reachable: Bool) -> FrameValue {
    .object(
      FrameObject([
        "reachable": .bool(reachable),
        "rooms": .list(
          document.rooms.map { room in
            .object(
              FrameObject([
                "id": .string(room.id), "name": .string(room.name),
                "lights": .list(
                  room.lights.map { light in
                    .object(
                      FrameObject([
                        "id": .integer(light.id), "name": .string(light.name), "on": .bool(light.on),
                        "brightness": .integer(light.brightness),
                      ]))
                  }),
              ]))
          }),
      ]))
  }

  /// The home a `bridge.state` fact describes; `nil` when it is not one.
  static func document(from state: FrameValue) -> HomeDocument? {
    guard let rooms = state["rooms"]?.elements else { return nil }
    var records: [HomeDocument.RoomRecord] = []
    for room in rooms {
      guard let id = room["id"]?.stringValue, let name = room["name"]?.stringValue,
        let lights = room["lights"]?.elements
      else { return nil }
      var lightRecords: [HomeDocument.LightRecord] = []
      for light in lights {
        guard let lightID = light["id"]?.integerValue, let lightName = light["name"]?.stringValue,
          let on = light["on"]?.boolValue, let brightness = light["brightness"]?.integerValue
        else { return nil }
        lightRecords.append(.init(id: lightID, name: lightName, on: on, brightness: brightness))
      }
      records.append(.init(id: id, name: name, lights: lightRecords))
    }
    return try? HomeDocument(rooms: records)
  }

  func requireReachable(_ what: String) throws(CommandError) {
    guard isReachable else {
      throw CommandError("the bridge is unreachable, so \(what); try again when it is back (`bridge online`)")
    }
  }

  /// The home document changed under the bridge (another process saved it): rooms follow the
  /// document (added, removed, renamed, in its order), the lights it lists are placed in their
  /// rooms and renamed, new ones created with the document's values; lights the bridge already
  /// had keep their live state, and lights only the bridge knows (found or added at the bridge)
  /// stay in their room while it exists.
  func adopt(_ document: HomeDocument) {
    let listed = Set(document.rooms.flatMap { $0.lights.map(\.id) })
    defer { documentedLights = listed }
    var adopted: [String: Room] = [:]
    for record in document.rooms {
      let room = rooms[record.id] ?? Room(id: record.id, name: record.name, lightIDs: [])
      let bridgeOnly = room.lightIDs.filter { !listed.contains($0) && !documentedLights.contains($0) }
      if room.name != record.name { room.name = record.name }
      let ids = record.lights.map(\.id) + bridgeOnly
      if room.lightIDs != ids { room.lightIDs = ids }
      adopted[record.id] = room
      for light in record.lights {
        if let existing = lights[light.id] {
          if existing.name != light.name { existing.name = light.name }
        } else {
          lights[light.id] = Light(id: light.id, name: light.name, isOn: light.on, brightness: light.brightness)
        }
      }
    }
    let ids = document.rooms.map(\.id)
    if roomIDs != ids { roomIDs = ids }
    if rooms.keys.sorted() != adopted.keys.sorted() { rooms = adopted }
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
    let id = OutsideNumbers.newID(among: lights.keys)
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
      // What the bridge found is an event from outside: recorded, or replayed.
      let found = self.facts.value(of: "bridge.detected", in: self.factScope, asked: ["room": .string(room.id)]) {
        .string("New light \(OutsideNumbers.newID(among: self.lights.keys))")
      }
      _ = try? self.addLight(named: found.stringValue ?? "New light", to: room.id)
    }
  }
}
