import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

@testable import Lights

@MainActor
@Suite struct LightsTests {
  let host: Host

  init() throws {
    host = try Host(modules: [LightsModule()], clock: .virtual)
    _ = try host.run(line: "open home home house; enter living left; @house enter living right")
  }

  private func light(_ window: String, _ id: Int) -> FrameValue? {
    host.frame(of: window)["lights"]?.elements?.first { $0["id"]?.integerValue == id }
  }

  @Test func twoWindowsOnOneRoomSeeAToggleMadeInEither() throws {
    #expect(light("right", 2)?["on"] == false)
    _ = try host.run(line: "@left switch 2 on")
    #expect(light("right", 2)?["on"] == true)
    _ = try host.run(line: "@right switch 2 toggle")
    #expect(light("left", 2)?["on"] == false)
  }

  /// A room window takes actions as any screen does; a switch sent to one window's model is
  /// seen by the other window on the room (through the bridge), with no command in between.
  @Test func aRoomTakesActionsNamedForWhatHappened() throws {
    let left = try #require(host.window(named: "left")?.model(as: RoomScreen<LiveMode>.self))
    let before = light("right", 2)?["on"]?.boolValue == true
    #expect(try left.send(.lightSwitched(2, .toggle)) == nil)
    host.services.scheduler.flush()
    #expect(light("right", 2)?["on"]?.boolValue == !before)
    try left.send(.lightDimmed(2, percent: 40))
    host.services.scheduler.flush()
    #expect(light("right", 2)?["brightness"] == 40)
    #expect(throws: CommandError.self) { try left.send(.lightSwitched(99, .on)) }
    #expect(throws: CommandError.self) { try left.send(.roomChosen("attic")) }
    #expect(host.frame(of: "left")["room"] == "living")
  }

  @Test func aBridgeChangeReachesEveryWindow() throws {
    _ = host.frame(of: "right")  // connections resolve when a frame first needs them
    let updatesBefore = try #require(host.window(named: "right")?.model(as: RoomScreen<LiveMode>.self)).updates
    _ = try host.run(line: "@house bridge switch 1 off")
    #expect(light("left", 1)?["on"] == false)
    #expect(light("right", 1)?["on"] == false)
    let room = try #require(host.window(named: "right")?.model(as: RoomScreen<LiveMode>.self))
    #expect(room.updates > updatesBefore)
    _ = try host.run(line: "@house bridge add living Reading lamp")
    #expect(host.frame(of: "left")["lights"]?.elements?.count == 3)
    #expect(host.frame(of: "house")["rooms"]?.elements?.first?["lights"] == 3)
    _ = try host.run(line: "@house bridge remove 1")
    #expect(host.frame(of: "right")["lights"]?.elements?.map { $0["id"]?.integerValue } == [2, 6])
  }

  @Test func anUnreachableBridgeShowsAndRefusesWrites() throws {
    _ = try host.run(line: "@house bridge offline")
    #expect(host.frame(of: "left")["bridge"] == "unreachable")
    #expect(
      host.failure("@left switch 1 off")?.hasPrefix("the bridge is unreachable, so the light was not switched") == true)
    #expect(light("left", 1)?["on"] == true)
    #expect(host.failure("@left detect")?.hasPrefix("the bridge is unreachable") == true)
    _ = try host.run(line: "@house bridge online; @left switch 1 off")
    #expect(light("right", 1)?["on"] == false)
  }

  @Test func brightnessHasAValidRange() throws {
    #expect(host.failure("@left dim 1 101") == "brightness goes from 0 to 100, not 101")
    #expect(light("left", 1)?["brightness"] == 80)
    _ = try host.run(line: "@left dim 1 5")
    #expect(light("right", 1)?["brightness"] == 5)
  }

  @Test func detectingFindsALightAfterADelayOnTheSessionClock() throws {
    _ = try host.run(line: "@left detect")
    #expect(host.frame(of: "right")["detecting"] == true)
    _ = try host.run(line: "clock advance 1s")
    #expect(host.frame(of: "left")["lights"]?.elements?.count == 2)
    _ = try host.run(line: "clock advance 1s")
    #expect(host.frame(of: "left")["lights"]?.elements?.count == 3)
    #expect(host.frame(of: "right")["detecting"] == false)
  }

  @Test func aPreviewHasNoBridgeAndKeepsItsValuesToItself() throws {
    _ = try host.run(line: "open preview-home home p; enter living pl; @p enter living pr; @pl switch 2 on")
    #expect(light("pl", 2)?["on"] == true)
    #expect(light("pr", 2)?["on"] == false)  // initial values are per window
    #expect(light("left", 2)?["on"] == false)  // the live bridge never heard of it
    #expect(host.frame(of: "pl")["bridge"] == "preview")
    #expect(host.failure("@pl bridge offline") == "this window shows a preview: there is no bridge behind it")
    #expect(host.failure("@pl detect") == "a preview has no bridge, so it cannot detect lights")
  }

  /// A preview derives its scopes from the document's initial values, so a new home (another
  /// process's save) rebuilds them: the rooms and a room's lights follow, as a live window's do.
  @Test func previewWindowsFollowAChangedHome() throws {
    _ = try host.run(line: "open preview-home home p; enter living pr")
    _ = (host.frame(of: "p"), host.frame(of: "pr"))
    let home = #"""
      {"rooms": [
        {"id": "living", "name": "Lounge", "lights": [
          {"id": 1, "name": "Ceiling", "on": true, "brightness": 80},
          {"id": 9, "name": "Reading lamp", "on": true, "brightness": 70}]},
        {"id": "kitchen", "name": "Kitchen", "lights": []}]}
      """#
    try host.replaceDocument(named: "home", kind: "home", json: home, revision: 2)
    #expect(host.frame(of: "p")["rooms"]?.elements?.compactMap { $0["id"]?.stringValue } == ["living", "kitchen"])
    #expect(host.frame(of: "pr")["name"] == "Lounge")
    #expect(light("pr", 9)?["name"] == "Reading lamp")
    #expect(light("pr", 2) == nil)
    #expect(host.frame(of: "right")["name"] == "Lounge")  // the live window too
  }

  /// A room of many lights shows a page of them: the frame projects what the window shows.
  @Test func aBigRoomShowsAPageOfLightsAtATime() throws {
    let lights = (1...45).map { #"{"id": \#($0), "name": "L\#($0)", "on": false, "brightness": 50}"# }
    let big = try Host(modules: [LightsModule()], clock: .virtual)
    try big.seedDocument(
      named: "hall", kind: "home",
      json: Array(#"{"rooms": [{"id": "hall", "name": "Hall", "lights": [\#(lights.joined(separator: ","))]}]}"#.utf8))
    _ = try big.run(line: "open home hall h; enter hall r")
    var frame = big.frame(of: "r")
    #expect(frame["count"] == 45)
    #expect(frame["firstRow"] == 1)
    #expect(frame["lights"]?.elements?.count == 20)
    _ = try big.run(line: "@r page next; @r page next")
    frame = big.frame(of: "r")
    #expect(frame["firstRow"] == 41)
    #expect(frame["lights"]?.elements?.compactMap { $0["id"]?.integerValue } == [41, 42, 43, 44, 45])
    #expect(throws: CommandError.self) { try big.run(line: "@r page next") }
    // A light on another page can still be switched; the page stays where it is.
    _ = try big.run(line: "@r switch 2 on; @r page previous; @r page previous")
    #expect(big.frame(of: "r")["lights"]?.elements?.first { $0["id"] == 2 }?["on"] == true)
    #expect(throws: CommandError.self) { try big.run(line: "@r page previous") }
  }

  @Test func closingAWindowCancelsItsConnections() throws {
    weak let closed = host.window(named: "right")?.model(as: RoomScreen<LiveMode>.self)
    _ = try host.run(line: "close right")
    #expect(closed == nil)
    _ = try host.run(line: "@house bridge switch 2 on")
    #expect(light("left", 2)?["on"] == true)
  }

  @Test func anotherRoomIsAnotherConfiguration() throws {
    _ = try host.run(line: "@left room kitchen")
    #expect(host.frame(of: "left")["name"] == "Kitchen")
    #expect(host.frame(of: "left")["lights"]?.elements?.map { $0["id"]?.integerValue } == [3, 4])
    #expect(host.failure("@left room garage")?.hasPrefix("no room 'garage'") == true)
    #expect(host.failure("@left switch 1 on")?.hasPrefix("no light 1 in Kitchen") == true)
  }

  @Test func theScopesCommandShowsTheTree() throws {
    _ = host.frame(of: "left")  // the tree shows what the window has resolved so far
    guard case .text(let tree) = try host.run(line: "@left scopes").first else {
      Issue.record("no tree")
      return
    }
    #expect(tree.hasPrefix("HomeScope (live)"))
    #expect(tree.contains("  roomScope(living) → RoomScope(living)"))
    #expect(tree.contains("isOn = true  [observation, writable]"))
  }

  @Test func roomWindowsComeBackAfterARelaunch() throws {
    let restored = try Host(modules: [LightsModule()], clock: .virtual, restoring: try host.sessionRecord())
    #expect(restored.window(named: "left")?.frame["name"] == "Living room")
  }

  /// A session that ends without closing its windows lets go of them: the bridge's observation
  /// closures must not keep the windows' trackers, and through them the session, alive (a cycle
  /// LeakSanitizer found when the fuzzer ran lights scenarios).
  @Test func aSessionEndedWithLiveWindowsIsFreed() throws {
    weak var weakHost: Host?
    weak var weakRoom: RoomScreen<LiveMode>?
    weak var weakBridge: HomeBridge?
    do {
      let session = try Host(modules: [LightsModule()], clock: .virtual)
      _ = try session.run(
        line: "open home home house; enter living left; @left switch 2 on; @house bridge switch 1 off")
      _ = session.frame(of: "left")
      weakRoom = session.window(named: "left")?.model(as: RoomScreen<LiveMode>.self)
      weakHost = session
      // The session's bridge for `home`, made when the window opened.
      weakBridge = HomeBridge.shared(for: "home", document: .sample, services: session.services)
      #expect(weakRoom != nil)
      #expect(weakBridge != nil)
    }
    #expect(weakBridge == nil, "the bridge is kept alive after its session ended")
    #expect(weakHost == nil, "the session is kept alive after it ended")
    #expect(weakRoom == nil, "a window's model is kept alive after its session ended")
  }
}
