import BuiltInModules
import Testing
import WorkbenchScenarioFormat
import WorkbenchTestSupport

@testable import WorkbenchCore
@testable import WorkbenchModuleAPI
@testable import WorkbenchShell

/// A module with an index is registered when one of its names is first needed, so a start that
/// uses the catalog does not build the other modules' commands and samples (start-up, #26).
@MainActor
struct LazyRegistrationTests {
  /// Each built-in's index says exactly what it registers: registering every module finds no
  /// difference (a command added without its index entry fails here, naming both).
  @Test func everyBuiltInsIndexIsWhatItRegisters() throws {
    let registry = try ModuleRegistry(modules: builtInModules)
    registry.registerAll()
    for module in builtInModules {
      #expect(module.declaredIndex != nil, "\(module.manifest.name) has no index")
      #expect(registry.failure(of: module.manifest.name) == nil, "\(registry.failure(of: module.manifest.name) ?? "")")
    }
    #expect(registry.screens.count == 8)
  }

  /// Opening a catalog window and running a catalog command registers the catalog and nothing
  /// else; naming another module's command registers that module then.
  @Test func aStartRegistersOnlyTheModulesItUses() throws {
    let host = try Host(registry: ModuleRegistry(modules: builtInModules), clock: .virtual)
    let waiting = { host.registry.registrations.waiting.map(\.module.manifest.name) }
    #expect(waiting() == ["catalog", "goal", "editor", "lights", "ledger"])
    #expect(host.documentNames.contains("account"), "a sample is listed before its module is registered")
    _ = try host.run(line: "open catalog library")
    _ = try host.run(line: "query the")
    #expect(waiting() == ["goal", "editor", "lights", "ledger"])
    _ = try host.run(line: "network offline")
    #expect(waiting() == ["goal", "editor", "lights"])
    _ = try host.run(line: "open goal reading g")
    #expect(waiting() == ["editor", "lights"])
    // Reading a sample registers the module that makes it.
    #expect(host.documentJSON(named: "home")?.contains("Living room") == true)
    #expect(waiting() == ["editor"])
  }

  /// Checking a scenario on catalog windows (its steps and its expectations' fields) registers
  /// the catalog and nothing else. (A field's check asked every module's screens, so checking any
  /// file registered all five.)
  @Test func checkingAScenarioRegistersOnlyTheModulesItUses() throws {
    let registry = try ModuleRegistry(modules: builtInModules)
    let text = """
      scenario: Fields
      windows:
        left: catalog library
      steps:
        - left: select 2
        - expect:
            left: {selected: 2, query: ""}
      """
    _ = try ScenarioLoader(registry: registry).load(bytes: Array(text.utf8), path: "fields.yaml")
    #expect(registry.registrations.waiting.map(\.module.manifest.name) == ["goal", "editor", "lights", "ledger"])
  }

  /// A module whose index promises other names than it registers is not trusted: its names
  /// lead nowhere and the reason says what differs.
  @Test func anIndexThatDiffersFromTheRegistrationIsRefused() throws {
    struct Misindexed: FeatureModule {
      var manifest: ModuleManifest { ModuleManifest(name: "misindexed", version: "1", summary: "") }
      var declaredIndex: ModuleIndex? { ModuleIndex(screens: [], documentKinds: [], commands: ["hello", "bye"]) }
      func register(into registrar: Registrar) {
        registrar.command(CommandSpec("hello", summary: "") { _ in .text("hello") })
      }
    }
    let registry = try ModuleRegistry(modules: [Misindexed()])
    #expect(registry.commands(ofModule: "misindexed")?.isEmpty ?? true)
    let failure = try #require(registry.failure(of: "misindexed"))
    #expect(failure.contains("registered other names than its index says"), "\(failure)")
    #expect(
      failure.contains("commands bye, hello") && failure.contains("registered") && failure.contains("commands hello"))
    // A screen of a module that could not be registered says so where it is named.
    struct MisindexedScreen: FeatureModule {
      var manifest: ModuleManifest { ModuleManifest(name: "screenless", version: "1", summary: "") }
      var declaredIndex: ModuleIndex? {
        ModuleIndex(screens: [("pad", "note")], documentKinds: [("note", [])], commands: [])
      }
      func register(into registrar: Registrar) {}
    }
    let host = try Host(modules: [MisindexedScreen()], clock: .virtual)
    #expect(throws: CommandError.self) { try host.run(line: "open pad anything") }
    do {
      _ = try host.run(line: "open pad anything")
    } catch {
      #expect(error.message.contains("screen 'pad' is the screenless module's, which could not be registered"))
    }
    // An index that names a host command clashes at once, as a registration would.
    struct Clashing: FeatureModule {
      var manifest: ModuleManifest { ModuleManifest(name: "clashing", version: "1", summary: "") }
      var declaredIndex: ModuleIndex? { ModuleIndex(screens: [], documentKinds: [], commands: ["open"]) }
      func register(into registrar: Registrar) {}
    }
    #expect(throws: RegistrationError.self) { try ModuleRegistry(modules: [Clashing()]) }
  }

  /// The host's commands are built one at a time by name: each name in the table is its
  /// command's.
  @Test func theHostCommandTableNamesEachCommandAsItIs() {
    for entry in HostCommands.table {
      #expect(entry.make().name == entry.name)
    }
    #expect(HostCommands.names.count == HostCommands.table.count)
    // The commands time travel does not count as steps are host commands or the shell's (a
    // renamed one would silently become a step).
    #expect(
      HostCommands.lookingNames.allSatisfy(HostCommands.isReserved),
      "\(HostCommands.lookingNames.filter { !HostCommands.isReserved($0) })")
    // The shell brings exactly the commands the host reserves for a front end, and says of each
    // the same as the host whether it only looks.
    let shell = ShellCommands.all.map(\.name)
    #expect(shell.sorted() == HostCommands.frontEndOnly.map(\.name).sorted())
    #expect(Set(ShellCommands.all.filter(HostCommands.onlyLooks).map(\.name)) == ["history", "set", "watch"])
  }
}
