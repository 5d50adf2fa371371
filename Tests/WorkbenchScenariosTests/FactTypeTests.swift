import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchTestSupport

/// Recorded facts are typed by the modules that use them: one of the wrong type is refused
/// where it is written, naming the source and the type it wants.
@MainActor
@Suite struct FactTypeTests {
  static func recording(_ facts: String) -> String {
    """
    scenario: Recorded
    facts:
    \(facts)
    steps:
      - do: open feed account f
      - do: clock advance 1s
    """
  }

  static let cases: [(facts: String, message: String)] = [
    (
      "  window 1:\n    network.latency: [300ms, abc]",
      "4:30: the fact network.latency #2 of 'window 1' is \"abc\": network.latency wants a duration such as 300ms there"
    ),
    (
      "  network:\n    network.state: [{online: yes, latency: 300ms, failuresToCome: 0, requests: 0}]",
      "4:30: the fact network.state #1 of 'network' at .online is \"yes\": network.state wants true or false there"
    ),
    (
      "  network:\n    network.state: [{online: true, latency: 300ms, failuresToCome: -1, requests: 0}]",
      "4:68: the fact network.state #1 of 'network' at .failuresToCome is -1: network.state wants a whole number "
        + "from 0 there"
    ),
    (
      "  window 1:\n    network.answer: [{rows: [41-48, x]}]",
      "4:37: the fact network.answer #1 of 'window 1' at .rows[1] is \"x\": network.answer wants an id, or a run "
        + "of ids such as 41-48 there"
    ),
    (
      "  window 1:\n    network.answer: [{rows: [1], extra: 2}]",
      "4:41: the fact network.answer #1 of 'window 1' at .extra is 2: network.answer wants no field 'extra' "
        + "(fields: rows) there"
    ),
    (
      "  bridge home:\n    bridge.state: [{reachable: true, rooms: none}]",
      "4:45: the fact bridge.state #1 of 'bridge home' at .rooms is \"none\": bridge.state wants a list of "
        + "{id, name, lights} there"
    ),
    (
      "  bridge home:\n    bridge.state: [{reachable: true, rooms: [{id: a, name: A, lights: [{id: 1, name: L, "
        + "'on': true, brightness: 101}]}]}]",
      "4:113: the fact bridge.state #1 of 'bridge home' at .rooms[0].lights[0].brightness is 101: bridge.state "
        + "wants a whole number from 0 to 100 there"
    ),
  ]

  @Test func aFactOfTheWrongTypeIsAnErrorWhereItIsWritten() throws {
    let loader = try ScenarioLoader(modules: builtInModules)
    for (facts, message) in Self.cases {
      do {
        _ = try loader.load(bytes: Array(Self.recording(facts).utf8), path: "/r.yaml")
        Issue.record("loaded: \(facts)")
      } catch {
        #expect(error.description == "/r.yaml:" + message, "\(facts)")
      }
    }
  }

  @Test func wellTypedFactsAndUndeclaredSourcesLoad() throws {
    let loader = try ScenarioLoader(modules: builtInModules)
    let good = Self.recording(
      """
        network:
          network.state: [{online: true, latency: 300ms, failuresToCome: 0, requests: 0}]
        window 1:
          network.latency: [300ms, 2s]
          network.answer: [{rows: [41-48, 50]}, {failure: the server did not answer}]
          network.send: [null, you are offline]
          scale.reading: [anything, 3, {at: all}]
      """)
    let file = try loader.load(bytes: Array(good.utf8), path: "/r.yaml")
    #expect(file.scenarios.count == 1)
  }
}
