import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writes a `Scenario` as the YAML `ScenarioLoader` reads: the loader's model types, the other
/// way. Recordings are written with it; what it writes loads back as the same scenario (a
/// property test holds it to that).
///
/// It writes what a recording has: the name, tags, `exhaustive`, `rows`, `nextWindow`,
/// documents (with their revisions), windows (with their numbers and view state), facts, and
/// steps (`WINDOW: command`, `do: command`, `fails:`, `expect:`, `snapshot:`). Documents over
/// `DataFolder.inlineLimit` bytes and more than `DataFolder.inlineFacts` facts go to files in the
/// scenario's data folder.
public struct ScenarioWriter {
  /// A writer.
  public init() {}

  /// The scenario's text. Big documents and many facts are written to `data` on the way;
  /// without a data folder they stay inline.
  ///
  /// - Throws: `CommandError` when a document's body is not a JSON object, or a data file
  ///   cannot be written.
  public func text(of scenario: Scenario, data: DataFolder?) throws(CommandError) -> String {
    var lines = ["scenario: " + YAMLWriter.scalar(scenario.name)]
    if !scenario.tags.isEmpty { lines.append("tags: " + YAMLWriter.flow(.list(scenario.tags.map(FrameValue.string)))) }
    if scenario.isExhaustive { lines.append("exhaustive: true") }
    let relations = (scenario.holdsRebuilt ? ["rebuilt"] : []) + (scenario.holdsReplayed ? ["replayed"] : [])
    if relations.count == 1 { lines.append("holds: " + relations[0]) }
    if relations.count > 1 { lines.append("holds: [" + relations.joined(separator: ", ") + "]") }
    if scenario.viewportRows != ScreenEnvironment.defaultViewportRows { lines.append("rows: \(scenario.viewportRows)") }
    if let next = scenario.nextWindowNumber { lines.append("nextWindow: \(next)") }
    if let date = scenario.date { lines.append("date: \(date)") }
    if let start = scenario.startsAt, start > .zero { lines.append("startsAt: \(SessionClock.describe(start))") }
    lines += try documentLines(scenario.documents, data: data)
    lines += windowLines(scenario.windows)
    lines += try factLines(scenario.facts ?? [:], data: data)
    lines.append("steps:")
    for step in scenario.steps { lines += stepLines(step) }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Writes the scenario to `path` (readable by its owner only: a recording copies what the
  /// workspace holds), with its data folder beside it.
  ///
  /// - Throws: `CommandError` when something cannot be written.
  public func write(_ scenario: Scenario, to path: String) throws(CommandError) {
    let text = try text(of: scenario, data: DataFolder(scenarioPath: path))
    guard FileSystem.write(text, to: path, mode: 0o600) else {
      throw CommandError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
  }

  // MARK: Sections

  private func documentLines(_ documents: [DocumentSeed], data: DataFolder?) throws(CommandError) -> [String] {
    var lines: [String] = []
    for document in documents {
      guard case .object(let body)? = try? FrameValue.parse(json: document.json) else {
        throw CommandError("document '\(document.name)' cannot be written into a scenario: its body is no object")
      }
      lines.append("  " + YAMLWriter.key(document.name) + ":")
      lines.append("    kind: " + YAMLWriter.scalar(document.kind))
      if document.revision != 1 { lines.append("    revision: \(document.revision)") }
      if let data, document.json.count > DataFolder.inlineLimit {
        let file = try data.write(String(decoding: document.json, as: UTF8.self) + "\n", named: document.name + ".json")
        lines.append("    file: " + YAMLWriter.scalar(file))
      } else {
        lines += YAMLWriter.block(.object(body), indent: 4)
      }
    }
    return lines.isEmpty ? [] : ["documents:"] + lines
  }

  private func windowLines(_ windows: [WindowSeed]) -> [String] {
    var lines: [String] = []
    var implied = 1
    for window in windows {
      lines.append("  " + YAMLWriter.key(window.name) + ":")
      lines.append("    screen: " + YAMLWriter.scalar(window.screen))
      lines.append("    document: " + YAMLWriter.scalar(window.document))
      let number = window.number ?? implied
      if !window.isUnnamed, number != implied { lines.append("    number: \(number)") }
      implied = OutsideNumbers.saturatingSuccessor(of: number)
      if let state = window.state {
        if let value = try? FrameValue.parse(json: Array(state.utf8)) {
          if value != .object(FrameObject()) { lines += YAMLWriter.entry("state", value, indent: 4) }
        } else {
          lines.append("    state: " + YAMLWriter.scalar(state))
        }
        if let version = window.stateVersion { lines.append("    stateVersion: \(version)") }
        if let warning = window.expectedWarning { lines.append("    warning: " + YAMLWriter.scalar(warning)) }
      }
    }
    return lines.isEmpty ? [] : ["windows:"] + lines
  }

  private func factLines(_ facts: [SessionFacts.Key: [FrameValue]], data: DataFolder?) throws(CommandError) -> [String]
  {
    guard !facts.isEmpty else { return [] }
    var scopes = FrameObject()
    for key in facts.keys.sorted() {
      var sources =
        scopes[key.scope].flatMap { value -> FrameObject? in
          if case .object(let object) = value { return object } else { return nil }
        } ?? FrameObject()
      sources[key.source] = .list(facts[key] ?? [])
      scopes[key.scope] = .object(sources)
    }
    if let data, facts.values.reduce(0, { $0 + $1.count }) > DataFolder.inlineFacts {
      let json = FrameValue.object(scopes).jsonText
      return ["facts: " + YAMLWriter.scalar(try data.write(json + "\n", named: "facts.json"))]
    }
    var lines = ["facts:"]
    for scope in scopes.members {
      lines.append("  " + YAMLWriter.key(scope.key) + ":")
      lines += YAMLWriter.block(scope.value, indent: 4)
    }
    return lines
  }

  private func stepLines(_ step: Step) -> [String] {
    var lines: [String]
    switch step.action {
    case .host(let line):
      lines = ["  - do: " + YAMLWriter.scalar(line)]
    case .command(let window, let line):
      lines = ["  - " + YAMLWriter.key(window) + ": " + YAMLWriter.scalar(line)]
    case .expect(let expectations):
      lines = ["  - expect:"]
      for expectation in expectations {
        lines += YAMLWriter.entry(expectation.window, expectation.expected.frameValue, indent: 6)
      }
    case .snapshot(let windows):
      lines = ["  - snapshot: " + YAMLWriter.flow(.list(windows.map(FrameValue.string)))]
    }
    switch step.failure {
    case .substring(let text)?: lines.append("    fails: " + YAMLWriter.scalar(text))
    case .pattern(let pattern)?: lines.append("    fails: " + YAMLWriter.scalar("/" + pattern + "/"))
    case nil: break
    }
    return lines
  }
}

/// Where a recording puts what is too big to read inline: `NAME.data/` beside the scenario.
public struct DataFolder: Sendable {
  /// Documents bigger than this (in bytes of JSON) go to a file.
  public static let inlineLimit = 2048
  /// More facts than this go to a file.
  public static let inlineFacts = 64
  let folder: String
  let relative: String

  /// The data folder of the scenario at `scenarioPath`.
  public init(scenarioPath: String) {
    let parent = FileSystem.folder(of: scenarioPath)
    let file = scenarioPath.split(separator: "/").last.map(String.init) ?? scenarioPath
    let stem = file.split(separator: ".").first.map(String.init) ?? file
    relative = stem + ".data"
    folder = parent == "" || parent == "." ? relative : parent + "/" + relative
  }

  /// Writes `text` as `name` in the folder; returns its path relative to the scenario.
  func write(_ text: String, named name: String) throws(CommandError) -> String {
    let safe = String(
      name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") ? $0 : "_" })
    if mkdir(folder, 0o700) != 0 && errno != EEXIST {
      throw CommandError("cannot make \(folder): \(String(cString: strerror(errno)))")
    }
    guard FileSystem.write(text, to: folder + "/" + safe, mode: 0o600) else {
      throw CommandError("cannot write \(folder)/\(safe): \(String(cString: strerror(errno)))")
    }
    return relative + "/" + safe
  }

  /// A scenario title from a file name: `two-windows.yaml` becomes "two windows".
  public static func title(for path: String) -> String {
    let file = path.split(separator: "/").last.map(String.init) ?? path
    let stem = file.split(separator: ".").first.map(String.init) ?? file
    return stem.replacing("-", with: " ").replacing("_", with: " ")
  }
}

extension YAMLNode {
  /// A node holding `value` as the loader would read it back, at `location`: strings that
  /// would read as something else are quoted (not plain).
  public init(_ value: FrameValue, at location: SourceLocation) {
    switch value {
    case .string(let text):
      self.init(content: .scalar(text, isPlain: YAMLNode.resolvePlain(text) == .string(text)), location: location)
    case .list(let items):
      self.init(content: .sequence(items.map { YAMLNode($0, at: location) }), location: location)
    case .object(let object):
      self.init(
        content: .mapping(
          object.members.map { YAMLPair(key: $0.key, keyLocation: location, value: YAMLNode($0.value, at: location)) }),
        location: location)
    default:
      self.init(content: .scalar(value.jsonText, isPlain: true), location: location)
    }
  }
}
