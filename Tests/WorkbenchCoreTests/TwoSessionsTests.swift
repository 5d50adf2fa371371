import Observation
import Testing

@testable import WorkbenchCore
@testable import WorkbenchModuleAPI

@Observable
@MainActor
final class Dial {
  var value = 0
}

/// Several hosts live in one process (the scenario runner makes one per scenario): nothing one
/// of them holds may reach another. Each case below failed while the state was process-wide.
@MainActor
@Suite struct TwoSessionsTests {
  @Test func samplesAreEncodedPerRegistryNotPerProcess() throws {
    let first = try Host(modules: [CounterModule(sampleValue: 0)])
    let second = try Host(modules: [CounterModule(sampleValue: 7)])
    #expect(first.documentJSON(named: "tally") == #"{"value":0}"#)
    #expect(second.documentJSON(named: "tally") == #"{"value":7}"#)
    #expect(try second.sessionRecord().documents.first { $0.name == "tally" }?.body == #"{"value":7}"#)
  }

  @Test func aRestartActionBelongsToTheHostsThatRegisteredIt() throws {
    let restarts = RestartCounter()
    let withModule = try Host(modules: [CounterModule(), RestartableModule(restarts: restarts)])
    let without = try Host(modules: [CounterModule()])
    #expect(throws: CommandError.self) { try without.run(line: "restart-module ghostly") }
    #expect(restarts.count == 0)
    _ = try withModule.run(line: "restart-module ghostly")
    #expect(restarts.count == 1)
  }

  @Test func aSessionsSourceChangesAreDeliveredByItsOwnFlushOnly() throws {
    let first = try Host(modules: [CounterModule()], clock: .virtual)
    let second = try Host(modules: [CounterModule()], clock: .virtual)
    #expect(first.services.scheduler !== second.services.scheduler)
    let dial = Dial()
    struct DialScope { let value: Connection<Int> }
    let resolver = ScopeResolver(
      scope: DialScope(value: .observation(dial, \.value)), name: "dial", scheduler: first.services.scheduler)
    #expect(resolver.value(\.value) == 0)
    dial.value = 5
    _ = try second.run(line: "windows")  // another session's command flushes its own scheduler
    #expect(resolver.value(\.value) == 0)
    _ = try first.run(line: "windows")
    #expect(resolver.value(\.value) == 5)
  }
}
