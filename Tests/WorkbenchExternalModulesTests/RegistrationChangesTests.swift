import Testing
import WorkbenchModuleProtocol

@testable import WorkbenchExternalModules

/// What a rebuilt module registers differently, as `--watch` and the language server say it:
/// a new name too (its commands are run by it from anywhere, and the workspace remembers it by
/// it). Before, a build that renamed the module was taken in without a word.
@MainActor
struct RegistrationChangesTests {
  static func hello(_ name: String, commands: [String] = ["poke"]) -> WireHello {
    var hello = WireHello()
    hello.manifest = WireManifest(name: name, version: "1.0", summary: "a tally")
    hello.commands = commands.map { name in
      var spec = WireCommandSpec()
      spec.name = name
      return spec
    }
    return hello
  }

  @Test func aNewNameIsSaid() {
    #expect(ModuleProcess.registrationChanges(from: Self.hello("tally"), to: Self.hello("tally")) == nil)
    #expect(
      ModuleProcess.registrationChanges(from: Self.hello("tally"), to: Self.hello("counter"))
        == "its name changed (from tally to counter)")
    #expect(
      ModuleProcess.registrationChanges(
        from: Self.hello("tally"), to: Self.hello("counter", commands: ["poke", "zap"]))
        == "its name changed (from tally to counter), its commands changed (new: zap)")
  }
}
