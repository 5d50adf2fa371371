import Synchronization
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

@testable import WorkbenchShell

/// How many times a `TallySample` was encoded, by the sample's value: each test uses its own.
private let encodings = Mutex<[Int: Int]>([:])

/// A sample document that counts its encodings.
private struct TallySample: DocumentBody {
  var value: Int

  func encode(to encoder: any Encoder) throws {
    encodings.withLock { $0[value, default: 0] += 1 }
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }

  init(value: Int) { self.value = value }

  init(from decoder: any Decoder) throws {
    value = try decoder.singleValueContainer().decode(Int.self)
  }
}

private struct TallyModule: FeatureModule {
  let value: Int
  var manifest: ModuleManifest { ModuleManifest(name: "tally", version: "1.0", summary: "a counted sample") }

  @MainActor func register(into registrar: Registrar) {
    registrar.documentKind(
      TallySample.self, name: "tally", summary: "a number", samples: ["tally": TallySample(value: value)])
  }
}

/// A start pays for encoding the modules' sample documents only when the workspace lacks them:
/// a script calling `workbench -c` on its workspace encodes none.
@MainActor
@Suite struct SampleEncodingTests {
  private func encodingsOf(_ value: Int) -> Int { encodings.withLock { $0[value, default: 0] } }

  @Test func aWorkspaceThatHoldsTheSamplesEncodesNoneAtStart() throws {
    let path = makeTemporaryFolder() + "/workspace.db"
    let modules: [any FeatureModule] = [TallyModule(value: 101)]
    _ = try Workspace.session(
      path: path, modules: modules, environment: ScreenEnvironment(), restoringWindows: true)
    #expect(encodingsOf(101) == 1, "a new workspace stores the sample, encoded once")
    let again = try Workspace.session(
      path: path, modules: modules, environment: ScreenEnvironment(), restoringWindows: true)
    #expect(encodingsOf(101) == 1, "the second start found the sample stored and encoded nothing")
    #expect(again.host.documentNames == ["tally"])
  }

  @Test func hostsOnOneRegistryShareOneEncodingOfEachSample() throws {
    let registry = try ModuleRegistry(modules: [TallyModule(value: 202)])
    #expect(encodingsOf(202) == 0, "registering encodes nothing")
    _ = registry.sampleRecords(excluding: ["tally"])
    #expect(encodingsOf(202) == 0)
    let first = registry.sampleRecords
    let second = registry.sampleRecords
    #expect(encodingsOf(202) == 1)
    #expect(first.map(\.body) == ["202"] && second.map(\.body) == ["202"])
  }
}
