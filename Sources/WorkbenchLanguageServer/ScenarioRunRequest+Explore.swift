import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// "Explore this file's screens": `workbench explore` from the editor, on the screens the
/// file's scenarios open, with a fixed seed. A failure is shrunk and written next to the file
/// as a scenario of its own (a new file: one already there is someone's regression test), and
/// shown as a warning on the file's first scenario that links to it.
extension ScenarioRunRequest {
  /// How many sessions, of how many steps, an exploration from the editor runs: a few seconds
  /// on the built-ins in a debug build; `workbench explore` goes on for longer.
  static let exploredSessions = 100
  static let exploredSteps = 30

  @MainActor
  func explore(
    _ file: ScenarioFile, registry: ModuleRegistry, progress: @escaping (ScenarioRunProgress) -> Void
  ) -> ScenarioRunOutcome {
    var screens: [String] = []
    for scenario in file.scenarios {
      for window in scenario.declaredWindows where !screens.contains(window.screen) { screens.append(window.screen) }
    }
    var options = Explorer.Options()
    options.screens = screens
    options.runs = Self.exploredSessions
    options.steps = Self.exploredSteps
    let explorer = Explorer(registry: registry, options: options)
    let named = screens.isEmpty ? "every screen" : screens.joined(separator: ", ")
    let label = "explore " + named
    let report = explorer.explore { report in
      progress(
        ScenarioRunProgress(
          scenario: label, count: report.sessions, total: options.runs,
          step: "\(report.steps) steps, \(report.checks) checks", unit: "session"))
    }
    guard report.sessions > 0 else {
      return ScenarioRunOutcome(message: "nothing to explore: no screen of \(named) has a sample document to open")
    }
    let explored = "\(report.sessions) sessions (\(report.steps) steps) on \(named)"
    guard let failure = report.failure else {
      return ScenarioRunOutcome(message: "✔ explored \(explored): nothing found")
    }
    let found = "explore found that \(failure.property.rawValue) does not hold"
    let here = file.scenarios.first.map { max(0, $0.location.line - 1) } ?? 0
    let written: String
    var failsUnderRun = false
    do throws(CommandError) {
      guard let scenario = explorer.written(for: report) else {
        throw CommandError("the session could not be written as a scenario")
      }
      written = try Self.writeNew(scenario.text, beside: path)
      failsUnderRun = scenario.failsUnderRun
    } catch {
      return ScenarioRunOutcome(
        message: "✘ \(found), and the shrunk session was not written: \(error.message)",
        diagnostics: [warning(at: here, "\(found): \(failure.detail)")])
    }
    func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
    let shrunk =
      report.shrunk.map { "shrunk to \(counted($0.steps.count, "step")) in \(counted($0.windows.count, "window"))" }
      ?? ""
    let diagnostic = warning(
      at: here,
      "\(found) (session \(report.sessions) of \(options.runs), seed \(options.seed)): \(failure.detail)\n"
        + "\(shrunk): \(written) "
        + (failsUnderRun
          ? "fails the same way under `workbench run`" : "passes when run once (see the comment at its top)"),
      related: [
        "location": [
          "uri": .string(Self.uri(of: written)),
          "range": ["start": ["line": 0, "character": 0], "end": ["line": 0, "character": 0]],
        ],
        "message": "the shrunk session",
      ])
    return ScenarioRunOutcome(message: "✘ \(found): \(shrunk), wrote \(written)", diagnostics: [diagnostic])
  }

  /// A warning on `line` of the file, linked to `related` when given (LSP's
  /// `DiagnosticRelatedInformation`).
  @MainActor
  private func warning(at line: Int, _ message: String, related: FrameValue? = nil) -> FrameValue {
    var members: [(key: String, value: FrameValue)] = [
      ("range", LanguageServer.range(in: lines, line: line, column: 1)), ("severity", 2),
      ("source", "workbench explore"), ("message", .string(message)),
    ]
    if let related { members.append(("relatedInformation", [related])) }
    return .object(FrameObject(members: members))
  }

  /// Writes `text` to a new file next to `path` (`explore-failure.yaml`, or `-2`, `-3`, … when
  /// taken) and returns its path.
  ///
  /// - Throws: `CommandError` saying why no file could be made or written.
  static func writeNew(_ text: String, beside path: String) throws(CommandError) -> String {
    // A file the editor has not saved (`untitled:1`) has no folder to write next to.
    guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/") else {
      throw CommandError("\(path) is not a file in a folder: save it, or run `workbench explore` in a terminal")
    }
    let folder = String(path[..<slash])
    for number in 1...99 {
      let candidate = folder + "/explore-failure" + (number == 1 ? "" : "-\(number)") + ".yaml"
      // O_EXCL: a file that is there (or appears meanwhile) is never written over.
      let descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
      if descriptor < 0 {
        if errno == EEXIST { continue }
        throw CommandError("cannot write \(candidate): \(String(cString: strerror(errno)))")
      }
      defer { close(descriptor) }
      guard FileSystem.writeAll(Array(text.utf8), to: descriptor) else {
        throw CommandError("cannot write \(candidate): \(String(cString: strerror(errno)))")
      }
      return candidate
    }
    throw CommandError("\(folder) has explore-failure.yaml to explore-failure-99.yaml already: move some away")
  }

  /// A path as a `file://` URI, with the bytes a URI cannot hold as they are escaped.
  static func uri(of path: String) -> String {
    var uri = "file://"
    for byte in path.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        uri.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        uri += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
      }
    }
    return uri
  }
}
