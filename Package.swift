// swift-tools-version: 6.0
import PackageDescription

let linksCLibrariesStatically = Context.environment["WORKBENCH_STATIC_C_LIBRARIES"] == "1"

/// Where a C library's module map is: the one that links its static archive when asked.
func cLibraryPath(_ name: String) -> String? { linksCLibrariesStatically ? "Sources/\(name)/Static" : nil }

let package = Package(
  name: "workbench",
  products: [
    .executable(name: "workbench", targets: ["workbench"]),
    .library(name: "WorkbenchModuleAPI", targets: ["WorkbenchModuleAPI"]),
    .library(name: "WorkbenchModuleTesting", targets: ["WorkbenchModuleTesting"]),
    .library(name: "WorkbenchModuleKit", targets: ["WorkbenchModuleKit"]),
  ],
  targets: [
    // C libraries from Debian's packages. readline's pkg-config file adds flags that SwiftPM
    // rejects, so that one is declared without pkg-config (its headers are on the default path).
    // With WORKBENCH_STATIC_C_LIBRARIES=1 (scripts/install.sh) they are linked from Debian's
    // static archives instead: the dynamic loader then binds no symbols of theirs at every
    // start (docs/performance.md).
    .systemLibrary(name: "CReadline", path: cLibraryPath("CReadline"), providers: [.apt(["libreadline-dev"])]),
    .systemLibrary(
      name: "CYAML", path: cLibraryPath("CYAML"), pkgConfig: linksCLibrariesStatically ? nil : "yaml-0.1",
      providers: [.apt(["libyaml-dev"])]),
    .systemLibrary(
      name: "CSQLite", path: cLibraryPath("CSQLite"), pkgConfig: linksCLibrariesStatically ? nil : "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]),

    // The plugin API: what a module may use (its registration, documents, screens, typed frames,
    // command specs and arguments, errors, a command's context) and nothing of the host.
    .target(name: "WorkbenchModuleAPI"),
    // The host runtime: sessions of windows and documents, the command resolver, the clock a
    // session is driven on, recording and replay. No terminal, no YAML, no SQL. Modules never
    // depend on it.
    .target(name: "WorkbenchCore", dependencies: ["WorkbenchModuleAPI"]),

    // A program's own command line: its options declared once as data, the usage error, exit codes.
    .target(name: "WorkbenchCommandLine", dependencies: ["WorkbenchCore", "WorkbenchModuleAPI"]),

    // Files, standard streams and child processes on POSIX calls, for the front ends and the store.
    .target(name: "WorkbenchSystem", dependencies: ["CSystemCalls"]),
    // The two GNU calls Swift's Glibc module leaves out (pipe2, closefrom for posix_spawn).
    .target(name: "CSystemCalls"),

    // A session both front ends are thin clients of: the host on its workspace, line
    // execution, relaunch, unsaved work, saving and the end of the session.
    .target(
      name: "WorkbenchSession",
      dependencies: ["WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchScenarioModel", "WorkbenchStore"]),

    // The interactive and piped front end; the only importer of readline.
    .target(
      name: "WorkbenchShell",
      dependencies: [
        "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchCommandLine", "WorkbenchSession", "WorkbenchStore",
        "WorkbenchExternalModules",
        "WorkbenchSystem",
        "CReadline",
      ]),

    // Tools for module authors, no session of their own: `module-check` (a module process put
    // through the protocol's rules) and `new-module` (a module's files, with the kits).
    .target(
      name: "WorkbenchModuleTools",
      dependencies: [
        "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchCommandLine", "WorkbenchModuleProtocol", "WorkbenchSystem",
        "EmbeddedKits",
      ]),

    // The kits of other languages, as `new-module` writes them beside a module: the packages'
    // own files (Kits/python, Kits/javascript), compiled into the binary as they are, never
    // copied by hand.
    .target(
      name: "EmbeddedKits", path: "Kits",
      exclude: [
        "python/pyproject.toml", "python/README.md", "python/tests", "javascript/README.md", "javascript/test",
      ],
      sources: ["Embedded"],
      resources: [
        .embedInCode("python/workbench_module.py"), .embedInCode("javascript/workbench-module.js"),
        .embedInCode("javascript/package.json"),
      ]),

    // The workspace on SQLite: documents, sessions, view state; the only importer of SQLite.
    .target(
      name: "WorkbenchStore", dependencies: ["WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchSystem", "CSQLite"]),

    // The scenario model: steps, expectations with their places, matchers, and the writer a
    // recording uses. Values only: no YAML parser.
    .target(name: "WorkbenchScenarioModel", dependencies: ["WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchSystem"]),
    // Reading scenarios: YAML with locations into the model, checked against the modules (the
    // loader); the only importer of libyaml.
    .target(
      name: "WorkbenchScenarioFormat",
      dependencies: ["WorkbenchScenarioModel", "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchSystem", "CYAML"]),

    // Running scenarios: the runner, workers, traces and reports.
    .target(
      name: "WorkbenchScenarios",
      dependencies: [
        "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchCommandLine", "WorkbenchScenarioFormat",
        "WorkbenchScenarioModel",
        "WorkbenchSession", "WorkbenchStore",
        "WorkbenchSystem",
      ]),

    // The language server for scenario files (`workbench lsp`), split by concern: transport,
    // dispatch, diagnostics, completion, navigation, runs.
    .target(
      name: "WorkbenchLanguageServer",
      dependencies: [
        "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchCommandLine", "WorkbenchScenarioFormat",
        "WorkbenchScenarioModel",
        "WorkbenchScenarios", "WorkbenchSession",
        "WorkbenchSystem",
      ]),

    // External modules: the protocol, the kit a module links to run as a process, and the
    // host side that starts module processes and stands in for their modules.
    .target(name: "WorkbenchModuleProtocol", dependencies: ["WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchSystem"]),
    .target(
      name: "WorkbenchModuleKit",
      dependencies: ["WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchModuleProtocol", "WorkbenchSystem"]),
    // A session of modules in a unit test's own process: what a module's tests drive, with the
    // host kept behind it.
    .target(name: "WorkbenchModuleTesting", dependencies: ["WorkbenchCore", "WorkbenchModuleAPI"]),
    .target(
      name: "WorkbenchExternalModules",
      dependencies: ["WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchModuleProtocol", "WorkbenchSystem"]),

    // Feature modules.
    .target(name: "Catalog", dependencies: ["WorkbenchModuleAPI"], path: "Plugins/Catalog"),
    .target(name: "Goal", dependencies: ["WorkbenchModuleAPI"], path: "Plugins/Goal"),
    .target(name: "Editor", dependencies: ["WorkbenchModuleAPI"], path: "Plugins/Editor"),
    .target(name: "Lights", dependencies: ["WorkbenchModuleAPI"], path: "Plugins/Lights"),
    .target(name: "Ledger", dependencies: ["WorkbenchModuleAPI"], path: "Plugins/Ledger"),

    // The list of feature modules the binary ships with.
    .target(
      name: "BuiltInModules", dependencies: ["WorkbenchModuleAPI", "Catalog", "Goal", "Editor", "Lights", "Ledger"]),

    // The composition root.
    .executableTarget(
      name: "workbench",
      dependencies: [
        "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchCommandLine", "WorkbenchShell", "WorkbenchModuleTools",
        "WorkbenchScenarios",
        "WorkbenchLanguageServer",
        "WorkbenchExternalModules", "WorkbenchSystem", "WorkbenchModuleProtocol", "BuiltInModules",
      ]
    ),

    // Release-build benchmarks: `swift run -c release workbench-bench`.
    .executableTarget(
      name: "workbench-bench",
      dependencies: [
        "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchStore", "WorkbenchScenarioFormat", "WorkbenchScenarioModel",
        "WorkbenchScenarios",
        "WorkbenchLanguageServer",
        "WorkbenchExternalModules", "Catalog", "Lights",
        "Ledger", "BuiltInModules", "WorkbenchShell", "WorkbenchSession", "WorkbenchSystem",
      ]),
    // Fuzzing harnesses: a corpus replayer when built plainly, libFuzzer targets when built
    // with `-sanitize=fuzzer -D FUZZING` (docs/fuzzing.md).
    .executableTarget(
      name: "workbench-fuzz",
      dependencies: [
        "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchScenarioFormat", "WorkbenchScenarioModel",
        "WorkbenchScenarios",
        "WorkbenchLanguageServer",
        "WorkbenchModuleProtocol", "WorkbenchModuleKit", "WorkbenchSystem", "BuiltInModules",
      ],
      path: "Fuzz/Harnesses"),
    // The hello-world baseline the startup benchmark compares against.
    .executableTarget(name: "hello-baseline"),

    // A module that runs as a process, for the host's isolation tests.
    .executableTarget(
      name: "workbench-fixture-module", dependencies: ["WorkbenchModuleKit"], path: "Tests/FixtureModule"),
    // The built-in ledger and lights as module processes through the Swift kit, for the
    // protocol 2 tests: their scenario folders pass against them with the built-ins left out.
    .executableTarget(
      name: "ledger-module-process", dependencies: ["WorkbenchModuleKit", "Ledger"], path: "Tests/ProcessModules/Ledger"
    ),
    // The countdown of Examples/countdown on the Swift kit: the kits' property test runs the
    // same random sessions against it, the Python one and the JavaScript one.
    .executableTarget(
      name: "countdown-module", dependencies: ["WorkbenchModuleKit"], path: "Tests/ProcessModules/Countdown"),
    // Notes with an autosave on the Swift kit, beside the same module on the Python and
    // JavaScript kits: undo puts back a window's timers alike on each.
    .executableTarget(
      name: "drafts-module", dependencies: ["WorkbenchModuleKit"], path: "Tests/ProcessModules/Drafts",
      exclude: ["drafts.py", "drafts.js", "Scenarios"]),
    // The habits of Examples/habits on the Swift kit, built from the example package's own
    // sources: the kits' tests hold it, habits.py and habits.js to one calendar.
    .target(name: "Habits", dependencies: ["WorkbenchModuleKit"], path: "Examples/habits/Sources/Habits"),
    .executableTarget(
      name: "habits-module", dependencies: ["WorkbenchModuleKit", "Habits"],
      path: "Examples/habits/Sources/habits-module"
    ),
    .executableTarget(
      name: "lights-module-process", dependencies: ["WorkbenchModuleKit", "Lights"], path: "Tests/ProcessModules/Lights"
    ),
    // A fault-injecting SQLite VFS (full disk, I/O errors, read-only) for the store's tests.
    .target(name: "WorkbenchSQLiteFaults", dependencies: ["CSQLite"], path: "Tests/SQLiteFaults"),
    // Helpers shared by the test targets: running the built binary, files, a pseudo-terminal.
    .target(
      name: "WorkbenchTestSupport", dependencies: ["WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchSystem"],
      path: "Tests/WorkbenchTestSupport"),
    .testTarget(name: "WorkbenchCoreTests", dependencies: ["WorkbenchCore", "WorkbenchModuleAPI"]),
    .testTarget(name: "WorkbenchSystemTests", dependencies: ["WorkbenchSystem", "WorkbenchTestSupport"]),
    .testTarget(
      name: "WorkbenchModuleProtocolTests",
      dependencies: ["WorkbenchModuleProtocol", "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchSystem"]),
    .testTarget(
      name: "WorkbenchModuleKitTests",
      dependencies: ["WorkbenchModuleKit", "WorkbenchCore", "WorkbenchModuleAPI", "Catalog", "Editor"]),
    .testTarget(
      name: "WorkbenchScenariosTests",
      dependencies: [
        "WorkbenchScenarios", "WorkbenchScenarioFormat", "WorkbenchScenarioModel", "WorkbenchCore",
        "WorkbenchModuleAPI", "WorkbenchStore",
        "Catalog", "Goal", "Editor", "Lights", "Ledger", "BuiltInModules",
        "WorkbenchTestSupport", "WorkbenchSystem", "WorkbenchSession",
      ],
      exclude: ["Broken"]
    ),
    .testTarget(
      name: "WorkbenchScenarioFormatTests",
      dependencies: [
        "WorkbenchScenarioFormat", "WorkbenchScenarioModel", "WorkbenchCore", "WorkbenchModuleAPI", "BuiltInModules",
        "WorkbenchTestSupport",
      ]),
    .testTarget(
      name: "WorkbenchSessionTests",
      dependencies: [
        "WorkbenchSession", "WorkbenchScenarioFormat", "WorkbenchScenarioModel", "WorkbenchCore", "WorkbenchModuleAPI",
        "BuiltInModules",
      ]),
    .testTarget(
      name: "CatalogTests", dependencies: ["Catalog", "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchTestSupport"]),
    .testTarget(
      name: "GoalTests", dependencies: ["Goal", "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchTestSupport"]),
    .testTarget(
      name: "EditorTests", dependencies: ["Editor", "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchTestSupport"]),
    .testTarget(
      name: "LightsTests", dependencies: ["Lights", "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchTestSupport"]),
    .testTarget(name: "LedgerTests", dependencies: ["Ledger", "WorkbenchCore", "WorkbenchModuleAPI"]),
    .testTarget(
      name: "WorkbenchStoreTests",
      dependencies: [
        "WorkbenchStore", "WorkbenchCore", "WorkbenchModuleAPI", "Catalog", "WorkbenchTestSupport",
        "WorkbenchSQLiteFaults",
      ]),
    .testTarget(
      name: "WorkbenchShellTests",
      dependencies: [
        "WorkbenchShell", "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchSession", "WorkbenchStore",
        "WorkbenchScenarioFormat",
        "WorkbenchScenarioModel",
        "BuiltInModules",
        "WorkbenchModuleProtocol", "WorkbenchTestSupport", "workbench",
        "workbench-fixture-module", "ledger-module-process", "lights-module-process", "countdown-module",
        "WorkbenchLanguageServer",
      ]
    ),
    // The program's subcommands besides the shell (run, check, diff, diagrams, reference, the
    // interface's help and man page, import and export) and the docs held to the code.
    .testTarget(
      name: "WorkbenchProgramTests",
      dependencies: [
        "WorkbenchShell", "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchCommandLine", "WorkbenchScenarioFormat",
        "WorkbenchScenarioModel",
        "WorkbenchScenarios",
        "WorkbenchLanguageServer", "WorkbenchSystem", "BuiltInModules", "WorkbenchTestSupport", "workbench",
        "workbench-fixture-module",
      ]
    ),
    .testTarget(
      name: "WorkbenchExternalModulesTests",
      dependencies: [
        "WorkbenchShell", "WorkbenchModuleTools", "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchModuleProtocol",
        "WorkbenchTestSupport",
        "workbench", "workbench-fixture-module", "ledger-module-process", "lights-module-process", "countdown-module",
        "habits-module", "drafts-module",
        "WorkbenchModuleKit", "WorkbenchExternalModules", "Editor",
      ]
    ),
    .testTarget(
      name: "WorkbenchLanguageServerTests",
      dependencies: [
        "WorkbenchLanguageServer", "WorkbenchScenarios", "WorkbenchScenarioFormat", "WorkbenchScenarioModel",
        "WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchCommandLine", "BuiltInModules",
        "WorkbenchTestSupport",
        "workbench", "workbench-fixture-module",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
