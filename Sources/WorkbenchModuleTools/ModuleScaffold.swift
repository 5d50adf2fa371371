import EmbeddedKits
import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `workbench new-module NAME [--path DIR]`: a package with a module of one screen and two
/// commands, its unit tests and a scenario, depending on this workbench by a relative path.
@MainActor
public enum ModuleScaffold {
  /// Where the package goes, and the workbench package it depends on.
  public struct Places: Sendable {
    var folder: String?
    var root: String
    var language = "swift"
  }

  /// `new-module`'s options, declared once (the parser, `--help`, the man page and the completion
  /// scripts are made from them).
  public static let options: [ProgramOption<Places>] = [
    .value(["--path"], "DIR", help: "the folder to create the package in (default: the current one)") {
      $0.folder = $1
    },
    .value(["--language"], "swift|python|javascript", help: "the module's language (default: swift)") {
      options, language throws(ProgramUsageError) in
      guard ["swift", "python", "javascript"].contains(language) else {
        throw ProgramUsageError("--language is swift, python or javascript, not '\(language)'")
      }
      options.language = language
    },
    .value(["--workbench"], "DIR", help: "the workbench package the module builds against (default: this one's)") {
      $0.root = $1
    },
  ]

  public static func run(_ arguments: [String], workbenchRoot: String) -> ExitCode {
    var places = Places(folder: nil, root: workbenchRoot)
    let words: [String]
    do {
      words = try ProgramOptionParser.parse(arguments, options: options, into: &places)
    } catch {
      StandardStreams.error("workbench new-module: \(error.message)\n")
      return .usage
    }
    let folder = places.folder
    let root = places.root
    guard words.count == 1, let name = words.first, let first = name.first, first.isLetter, first.isLowercase,
      name.allSatisfy({ ($0.isLetter && $0.isLowercase) || $0.isNumber })
    else {
      StandardStreams.error(
        "usage: workbench new-module NAME [--path DIR]\nNAME is lowercase letters and digits, such as `greeting`\n")
      return .usage
    }
    let target = (folder ?? ".") + "/" + name
    if FileSystem.exists(target) {
      StandardStreams.error("error: \(target) already exists: pick another name or --path\n")
      return .failure
    }
    let type = name.prefix(1).uppercased() + name.dropFirst()
    if places.language == "python" { return writePython(name: name, target: target) }
    if places.language == "javascript" { return writeJavaScript(name: name, target: target) }
    // The checkout is named relative to the new package, so the two move together (a copy of
    // both elsewhere, another user's home) and the package holds no path of this machine.
    let checkout = FileSystem.realPath(root) ?? FileSystem.absolute(root)
    let parent = FileSystem.realPath(folder ?? ".") ?? FileSystem.absolute(folder ?? ".")
    let files = ScaffoldFiles.files(
      name: name, type: type, workbenchRoot: Self.relativePath(to: checkout, from: parent + "/" + name),
      packageName: ScaffoldFiles.workbenchPackageName(checkout))
    for (path, text) in files where !FileSystem.write(text, to: target + "/" + path) {
      StandardStreams.error("error: cannot write \(target)/\(path)\n")
      return .failure
    }
    // The next steps name the program as the user can type it: `workbench` when that is this
    // program on PATH, else this program's own path (run from a checkout, not installed).
    let program = Self.invocation()
    StandardStreams.out(
      """
      created \(target): a module with one screen and two commands, its tests and a scenario.
        cd \(target)
        swift build                                  # builds .build/debug/\(name)-module
        swift test                                   # the module's unit test
        \(program) run --module .build/debug/\(name)-module Scenarios/
        \(program) --module .build/debug/\(name)-module

      """)
    if program != "workbench" {
      StandardStreams.out("(`workbench` is not on PATH: scripts/install.sh in the workbench checkout installs it)\n")
    }
    return .success
  }

  /// `path` as seen from the folder `base` (both absolute, without `.` or `..`): `../../work/main`.
  static func relativePath(to path: String, from base: String) -> String {
    let to = path.split(separator: "/")
    let from = base.split(separator: "/")
    var shared = 0
    while shared < min(to.count, from.count), to[shared] == from[shared] { shared += 1 }
    let parts = Array(repeating: "..", count: from.count - shared) + to[shared...].map(String.init)
    return parts.isEmpty ? "." : parts.joined(separator: "/")
  }

  /// A module in Python (standard library only) on the kit, the kit, and a scenario.
  static func writePython(name: String, target: String) -> ExitCode {
    writeInterpreted(
      [
        ("\(name).py", PythonScaffold.module(name: name), 0o755),
        (PythonKit.fileName, PythonKit.source, 0o644),
        ("Scenarios/\(name).yaml", PythonScaffold.scenario(name: name), 0o644),
      ], module: "./\(name).py", to: target,
      what: """
        a module in Python (standard library only) with one screen and one command, the kit it
        uses (\(PythonKit.fileName): the protocol, timers and recorded facts), and a scenario.
        """)
  }

  /// A module in JavaScript (Node, no dependencies) on the kit, the kit as the package it is
  /// (in node_modules, so `require('workbench-module')` finds it), and a scenario.
  static func writeJavaScript(name: String, target: String) -> ExitCode {
    writeInterpreted(
      [
        ("\(name).js", JavaScriptScaffold.module(name: name), 0o755),
        ("package.json", JavaScriptScaffold.package(name: name), 0o644),
        ("node_modules/workbench-module/workbench-module.js", EmbeddedKits.javascript, 0o644),
        ("node_modules/workbench-module/package.json", EmbeddedKits.javascriptPackage, 0o644),
        ("Scenarios/\(name).yaml", PythonScaffold.scenario(name: name), 0o644),
      ], module: "./\(name).js", to: target,
      what: """
        a module in JavaScript (Node 18 or later, no dependencies) with one screen and one command,
        the kit it uses (node_modules/workbench-module: the protocol, timers and recorded facts), and a scenario.
        """)
  }

  /// Writes a module run by its interpreter (no build step), and says how to run it.
  private static func writeInterpreted(
    _ files: [(path: String, text: String, mode: mode_t)], module: String, to target: String, what: String
  ) -> ExitCode {
    for file in files where !FileSystem.write(file.text, to: target + "/" + file.path, mode: file.mode) {
      StandardStreams.error("error: cannot write \(target)/\(file.path)\n")
      return .failure
    }
    let program = Self.invocation()
    StandardStreams.out(
      """
      created \(target): \(what)
        cd \(target)
        \(program) run --module \(module) Scenarios/
        \(program) module-check \(module)
        \(program) --module \(module)
      The protocol it speaks is docs/protocol.md in the workbench repository.

      """)
    return .success
  }

  /// `workbench` when the first `workbench` on PATH is this program, else this program's path.
  static func invocation() -> String {
    let own = FileSystem.realPath("/proc/self/exe")
    let path = getenv("PATH").map { String(cString: $0) } ?? ""
    for folder in path.split(separator: ":") where !folder.isEmpty {
      let candidate = String(folder) + "/workbench"
      guard access(candidate, X_OK) == 0 else { continue }
      return own != nil && FileSystem.realPath(candidate) == own ? "workbench" : (own ?? "workbench")
    }
    return own ?? "workbench"
  }
}

/// The files of a new module package.
enum ScaffoldFiles {
  /// `workbenchRoot` is the workbench checkout as the package names it (relative to the new
  /// package), `packageName` the name SwiftPM gives it (its folder's).
  static func files(name: String, type: String, workbenchRoot: String, packageName: String) -> [(String, String)] {
    [
      (
        "Package.swift",
        """
        // swift-tools-version: 6.0
        import PackageDescription

        let package = Package(
          name: "\(name)",
          // The workbench checkout, relative to this package: keep the two beside each other as
          // they are, or name where the checkout is now.
          dependencies: [.package(path: "\(workbenchRoot)")],
          targets: [
            .target(name: "\(type)", dependencies: [.product(name: "WorkbenchModuleKit", package: "\(packageName)")]),
            .executableTarget(name: "\(name)-module", dependencies: ["\(type)"]),
            .testTarget(
              name: "\(type)Tests",
              dependencies: ["\(type)", .product(name: "WorkbenchModuleTesting", package: "\(packageName)")]),
          ],
          swiftLanguageModes: [.v6]
        )

        """
      ),
      (
        "Sources/\(type)/\(type)Module.swift",
        """
        import WorkbenchModuleKit

        // A counter: a shared number and windows that add to it, each with a step of its own.
        // Written the way docs/writing-a-module.md shows: the document (shared facts), the view
        // state (one window's choices), a screen model that takes actions and projects a typed
        // frame, and commands made from actions.

        /// The shared facts: the number.
        public struct \(type)Document: DocumentBody {
          public var count: Int
          public init(count: Int) { self.count = count }
        }

        /// A window's own choice: how much `add` adds.
        public struct \(type)ViewState: ViewStateValue {
          public var step = 1
          public init() {}
        }

        /// Everything a user can do to a window, named for what happened.
        public enum \(type)Action: Equatable, Sendable {
          /// This much was added (`nil`: the window's step).
          case added(Int?)
          /// The window's step is this from now on.
          case stepChosen(Int)
        }

        /// What a window shows: the shared number and the window's step.
        public struct \(type)Frame: FrameRecord {
          public var count = 0
          public var step = 1
          public init() {}

          /// The frame's fields: its JSON, and the schema a scenario is checked against before it runs.
          public static let fields: FrameFields<\(type)Frame> = [
            FrameField("count", \\.count, "the shared number"),
            FrameField("step", \\.step, "how much `add` adds in this window"),
          ]
        }

        @MainActor
        public final class \(type)Screen: ActionHandling, FramedScreen {
          public private(set) var document: \(type)Document
          public private(set) var viewState: \(type)ViewState

          public init(document: \(type)Document, viewState: \(type)ViewState, environment: ScreenEnvironment) {
            self.document = document
            self.viewState = viewState
          }

          public func documentReplaced(_ document: \(type)Document) { self.document = document }
          public func restore(_ viewState: \(type)ViewState) { self.viewState = viewState }

          /// Takes an action: a change to the shared document is handed back for the host to
          /// commit; a change to this window alone returns `nil`. A refused action throws and
          /// changes nothing.
          @discardableResult
          public func send(_ action: \(type)Action) throws(CommandError) -> DocumentChange<\(type)Document>? {
            switch action {
            case .added(let amount):
              // The count comes from the document: an addition past Int.max is refused, not a crash.
              let (sum, overflow) = document.count.addingReportingOverflow(amount ?? viewState.step)
              guard !overflow else { throw CommandError("the number cannot go past \\(Int.max)") }
              return DocumentChange(\(type)Document(count: sum), summary: "add")
            case .stepChosen(let step):
              viewState.step = step
              return nil
            }
          }

          public var typedFrame: \(type)Frame {
            var frame = \(type)Frame()
            frame.count = document.count
            frame.step = viewState.step
            return frame
          }
        }

        /// The terminal text of a window.
        enum \(type)Rendering {
          static func text(_ frame: \(type)Frame) -> String { "count: \\(frame.count) (step \\(frame.step))" }
        }

        /// The module's commands, and the keys their handlers read their arguments by.
        enum \(type)Commands {
          static let screens = ["\(name)"]
          static let amount = Argument<Int>.integer("amount", in: 1...1000, help: "left out: the window's step").optional
          static let size = Argument<Int>.integer("size", in: 1...1000, help: "how much `add` adds in this window")

          static let all = [add, step]

          static let add = ScreenCommands.sending(
            "add", to: \(type)Screen.self, screens: screens, arguments: [amount], summary: "Add to the shared number"
          ) { arguments, _ in .added(arguments[amount]) }

          static let step = ScreenCommands.sending(
            "step", to: \(type)Screen.self, screens: screens, arguments: [size], summary: "Choose how much `add` adds here"
          ) { arguments, _ in .stepChosen(arguments[size]) }
        }

        public struct \(type)Module: FeatureModule {
          public init() {}

          public var manifest: ModuleManifest {
            ModuleManifest(name: "\(name)", version: "0.1.0", summary: "A counter, as a starting point")
          }

          @MainActor public func register(into registrar: Registrar) {
            registrar.register(
              document: \(type)Document.self, kind: "\(name)", summary: "a number",
              samples: ["\(name)": \(type)Document(count: 0)],
              screens: [
                .screen(\(type)Screen.self, name: "\(name)", summary: "the number", render: \(type)Rendering.text)
              ],
              commands: \(type)Commands.all)
          }
        }

        """
      ),
      (
        "Sources/\(name)-module/main.swift",
        """
        import \(type)
        import WorkbenchModuleKit

        ModuleMain.run(\(type)Module())

        """
      ),
      (
        "Tests/\(type)Tests/\(type)Tests.swift",
        """
        import Testing
        import \(type)
        import WorkbenchModuleTesting

        @MainActor
        @Suite struct \(type)Tests {
          @Test func addingUpdatesTheSharedNumber() throws {
            let session = try TestSession(modules: [\(type)Module()])
            try session.run("open \(name) \(name) main; add 2; add")
            #expect(session.frame(of: "main")?["count"] == 3)
          }

          @Test func eachWindowKeepsItsOwnStep() throws {
            let session = try TestSession(modules: [\(type)Module()])
            try session.run("open \(name) \(name) left; open \(name) \(name) right; step 5; @left add; @right add")
            #expect(session.frame(of: "left")?["step"] == 1)
            #expect(session.frame(of: "right")?["count"] == 6)
            try session.run("@right undo")
            #expect(session.frame(of: "left")?["count"] == 1)
          }
        }

        """
      ),
      (
        "Scenarios/\(name).yaml",
        """
        # Run with: workbench run --module .build/debug/\(name)-module Scenarios/
        scenario: Adding through one window shows in the other, and each keeps its own step
        windows:
          left: \(name) \(name)
          right: \(name) \(name)
        steps:
          - left: add 5
          - expect:
              right: {count: 5}
          - right: step 3
          - right: add
          - expect:
              left: {count: 8, step: 1}
              right: {count: 8, step: 3}
          - right: undo
          - expect:
              left: {count: 5}
          - right: add 1001
            fails: AMOUNT must be between 1 and 1000

        """
      ),
      (
        "README.md",
        """
        # \(name)

        A workbench feature module that runs in its own process. Build it, then load it:

            swift build
            workbench --module .build/debug/\(name)-module
            workbench run --module .build/debug/\(name)-module Scenarios/

        `workbench modules add .build/debug/\(name)-module` loads it at every start.

        """
      ),
    ]
  }

  /// The package name SwiftPM gives a local dependency: its folder's name.
  static func workbenchPackageName(_ root: String) -> String {
    root.split(separator: "/").last.map(String.init) ?? "workbench"
  }
}

/// The files of a new module in Python.
enum PythonScaffold {
  static func module(name: String) -> String {
    #"""
    #!/usr/bin/env python3
    """The NAME module: a shared number and a command that adds to it. workbench_module.py, beside
    it, is the kit: it speaks the workbench module protocol (docs/protocol.md) for the module,
    timers and recorded facts included, with the standard library only."""

    import workbench_module as wb


    def check(document):
        if not isinstance(document.get("count"), int):
            raise wb.Refused("count should be a whole number")


    module = wb.Module("NAME", "0.1.0", "A counter, as a starting point")
    module.document_kind("NAME", samples={"NAME": {"count": 0}}, validate=check)


    @module.screen("NAME", kind="NAME", fields=["count", "step"])
    class Counter(wb.Screen):
        def frame(self):
            return {"count": self.window.document["count"], "step": self.window.state.get("step", 1)}

        def text(self, frame):
            return f"count: {frame['count']} (step {frame['step']})"


    @module.command("add", summary="Add to the shared number", screens=["NAME"],
                    arguments=[wb.integer("amount", 1, 1000, optional=True, help="left out: the window's step")])
    def add(window, amount):
        step = amount if amount is not None else window.state.get("step", 1)
        window.document = dict(window.document, count=window.document["count"] + step)


    if __name__ == "__main__":
        module.run()

    """#.replacing("NAME", with: name)
  }

  static func scenario(name: String) -> String {
    """
    # Two windows on one shared number: what one adds, both show.
    scenario: Adding in one window shows in the other
    windows:
      left: \(name) \(name)
      right: \(name) \(name)
    steps:
      - left: add 2
      - expect:
          right: {count: 2}
      - right: add
      - expect:
          left: {count: 3, step: 1}

    """
  }
}

/// The files of a new module in JavaScript: the same counter as the Python one.
enum JavaScriptScaffold {
  static func module(name: String) -> String {
    #"""
    #!/usr/bin/env node
    'use strict';
    // The NAME module: a shared number and a command that adds to it. node_modules/workbench-module
    // is the kit: it speaks the workbench module protocol (docs/protocol.md) for the module, timers
    // and recorded facts included.
    const wb = require('workbench-module');

    const counter = new wb.Module('NAME', '0.1.0', 'A counter, as a starting point');
    counter.documentKind('NAME', {
      samples: { NAME: { count: 0 } },
      validate(document) {
        if (!Number.isInteger(document.count)) throw new wb.Refused('count should be a whole number');
      },
    });

    counter.screen('NAME', { kind: 'NAME', fields: ['count', 'step'] }, class extends wb.Screen {
      frame() {
        return { count: this.window.document.count, step: this.window.state.step ?? 1 };
      }

      text(frame) {
        return `count: ${frame.count} (step ${frame.step})`;
      }
    });

    counter.command('add', {
      summary: 'Add to the shared number', screens: ['NAME'],
      arguments: [wb.integer('amount', 1, 1000, { optional: true, help: "left out: the window's step" })],
    }, (window, amount) => {
      const step = amount ?? window.state.step ?? 1;
      window.document = { ...window.document, count: window.document.count + step };
    });

    if (require.main === module) counter.run();

    """#.replacing("NAME", with: name)
  }

  static func package(name: String) -> String {
    """
    {
      "name": "\(name)",
      "version": "0.1.0",
      "private": true,
      "description": "A workbench module",
      "main": "\(name).js"
    }

    """
  }
}
