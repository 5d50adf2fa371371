import WorkbenchCore
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Records a session as a scenario that replays it exactly.
///
/// Recording starts from a settled session (pending loads and timers finish first) and keeps:
/// the documents with their revisions, the windows with their numbers, view state and focus;
/// each command, with `fails:` for one that failed; the real time that passed between lines
/// where a timer was pending, as `clock advance` steps worked out so the replay's virtual clock
/// fires the same timers between the same commands; and the session's external facts (network
/// answers, a bridge's state and events) in order, by window and source. The final expectation
/// lists the fields of each frame that changed while recording.
@MainActor
final class SessionRecorder {
  let path: String
  /// The session as recording started.
  private let start: SessionRecord
  private let startFrames: [Int: FrameValue]
  /// Documents that are the modules' samples, untouched: a scenario has them already.
  private let samples: [SessionRecord.Document]
  private let timeline = ReplayTimeline()
  private var steps: [RecordedStep] = []

  struct RecordedStep {
    /// The window a command runs in, or `nil` for a host command.
    var window: String?
    /// The command's words (the text is put together when the file is written).
    var words: [CommandToken]
    var failure: String?

    var line: String { words.map { CommandTokenizer.quoted($0.text) }.joined(separator: " ") }
  }

  /// Starts recording `session` to `path`, once its pending work has finished. The commands the
  /// host runs from here on (the rest of the line `record start` is on, too) are reported to
  /// `commandRan`.
  ///
  /// - Throws: `CommandError` when the file cannot be written, or work is still pending after
  ///   `wait`.
  init(path: String, session: WorkbenchSession, wait: Duration = .seconds(10)) throws(CommandError) {
    self.path = path
    let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    guard descriptor >= 0 else {
      throw CommandError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
    close(descriptor)
    let host = session.host
    do {
      try host.clock.settle(within: wait, flush: host.services.scheduler)
    } catch {
      throw CommandError("recording starts from a settled session, and \(error.message)")
    }
    start = try host.sessionRecord()
    var frames: [Int: FrameValue] = [:]
    for window in host.windows { frames[window.id.number] = window.frame }
    startFrames = frames
    samples = session.sampleDocuments()
    session.facts.startRecording()
    session.facts.timeline = timeline
    host.clock.timeline = timeline
  }

  // MARK: Following the session

  /// A `clock advance` step for the time the replay's clock must move before the next step.
  private func writeTimePassed() {
    let advance = timeline.takeAdvance()
    if advance > .zero {
      let words = ["clock", "advance", SessionClock.describe(advance)].map { CommandToken(text: $0, column: 1) }
      steps.append(RecordedStep(window: nil, words: words, failure: nil))
    }
  }

  /// A command the host ran (or that failed once resolved): it becomes a step, in the window
  /// it ran in, with `fails:` when it failed. What belongs to the front end (`source`,
  /// `history`, `set`: a replay runs what they led to), recording itself and leaving are
  /// left out, as is `clock advance` failing on real time (the recording moves the replay's
  /// clock itself).
  func commandRan(_ command: RanCommand) {
    guard let name = command.words.first?.text, !["record", "quit", "exit"].contains(name) else { return }
    switch command.request {
    case .shell?, .recordStart?, .recordStop?, .quit?: return
    default: break
    }
    if name == "clock", command.failure != nil { return }
    writeTimePassed()
    let window = command.isHostCommand ? nil : command.window?.label
    steps.append(RecordedStep(window: window, words: command.words, failure: command.failure?.message))
  }

  /// The last command's request was refused by the front end (unsaved work a script cannot be
  /// asked about): the step fails with that message.
  func lastCommandRefused(_ error: CommandError) {
    guard !steps.isEmpty else { return }
    steps[steps.count - 1].failure = error.message
  }

  /// After a line: timers it fired (`settle`) moved the replay's clock too.
  func lineFinished() {
    timeline.lineFinished()
  }

  /// A question about unsaved work was answered: the command that asked says so in words,
  /// as a script must (`close main save`); cancelled, it did nothing.
  func answered(_ choice: LeaveChoice) {
    guard var last = steps.popLast() else { return }
    if choice == .cancel { return }
    last.words.append(CommandToken(text: choice.rawValue, column: 1))
    steps.append(last)
  }

  // MARK: Writing

  /// Writes the scenario (and its data files); returns the number of steps.
  func finish(session: WorkbenchSession) throws(CommandError) -> Int {
    let host = session.host
    host.clock.fireDue()
    timeline.lineStarts()
    writeTimePassed()
    host.clock.timeline = nil
    session.facts.timeline = nil
    let facts = session.facts.stopRecording()
    let data = DataFolder(scenarioPath: path)
    var lines = ["scenario: " + YAMLWriter.scalar(DataFolder.title(for: path))]
    if let next = nextWindowLine() { lines.append(next) }
    lines += try documentLines(data: data)
    lines += windowLines()
    lines += try factLines(facts, data: data)
    lines.append("steps:")
    var count = 0
    if let focused = start.focusedWindow, focused != start.windows.last?.number,
      let window = start.windows.first(where: { $0.number == focused })
    {
      lines.append("  - do: " + YAMLWriter.scalar("focus \(window.name ?? String(focused))"))
      count += 1
    }
    for step in steps {
      lines.append("  - " + YAMLWriter.key(step.window ?? "do") + ": " + YAMLWriter.scalar(step.line))
      if let failure = step.failure { lines.append("    fails: " + YAMLWriter.scalar(failure)) }
    }
    count += steps.count
    let expectation = expectationLines(host: host)
    lines += expectation
    if !expectation.isEmpty { count += 1 }
    if count == 0 {
      lines.append("  - do: documents")
      count = 1
    }
    // A recording copies what the workspace holds, which is its owner's alone: it is made
    // readable by its owner only, as the workspace is.
    guard FileSystem.write(lines.joined(separator: "\n") + "\n", to: path, mode: 0o600) else {
      throw CommandError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
    return count
  }

  private func nextWindowLine() -> String? {
    let implied = (start.windows.last?.number ?? 0) + 1
    return start.nextWindowNumber == implied ? nil : "nextWindow: \(start.nextWindowNumber)"
  }

  private func documentLines(data: DataFolder) throws(CommandError) -> [String] {
    var lines: [String] = []
    for document in start.documents where !samples.contains(document) {
      guard case .object(let body)? = try? FrameValue.parse(json: Array(document.body.utf8)) else {
        throw CommandError("document '\(document.name)' cannot be written into a scenario: its body is no object")
      }
      lines.append("  " + YAMLWriter.key(document.name) + ":")
      lines.append("    kind: " + YAMLWriter.scalar(document.kind))
      if document.revision != 1 { lines.append("    revision: \(document.revision)") }
      if document.body.utf8.count > DataFolder.inlineLimit {
        let file = try data.write(document.body + "\n", named: document.name + ".json")
        lines.append("    file: " + YAMLWriter.scalar(file))
      } else {
        lines += YAMLWriter.block(.object(body), indent: 4)
      }
    }
    return lines.isEmpty ? [] : ["documents:"] + lines
  }

  private func windowLines() -> [String] {
    var lines: [String] = []
    var implied = 1
    for window in start.windows {
      lines.append("  " + YAMLWriter.key(window.name ?? String(window.number)) + ":")
      lines.append("    screen: " + YAMLWriter.scalar(window.screen))
      lines.append("    document: " + YAMLWriter.scalar(window.document))
      if window.name != nil, window.number != implied { lines.append("    number: \(window.number)") }
      implied = window.number + 1
      if let state = try? FrameValue.parse(json: Array(window.viewState.state.utf8)) {
        if state != .object(FrameObject()) { lines += YAMLWriter.entry("state", state, indent: 4) }
      } else {
        lines.append("    state: " + YAMLWriter.scalar(window.viewState.state))
      }
    }
    return lines.isEmpty ? [] : ["windows:"] + lines
  }

  private func factLines(_ facts: [SessionFacts.Entry], data: DataFolder) throws(CommandError) -> [String] {
    guard !facts.isEmpty else { return [] }
    // Group in one pass (scopes and sources in the order first used), then build the values.
    var order: [String: [String]] = [:]
    var scopeOrder: [String] = []
    var values: [SessionFacts.Key: [FrameValue]] = [:]
    for fact in facts {
      if values[fact.key] == nil {
        if order[fact.key.scope] == nil { scopeOrder.append(fact.key.scope) }
        order[fact.key.scope, default: []].append(fact.key.source)
      }
      values[fact.key, default: []].append(fact.value)
    }
    var scopes = FrameObject()
    for scope in scopeOrder {
      var sources = FrameObject()
      for source in order[scope] ?? [] {
        sources[source] = .list(values[SessionFacts.Key(scope: scope, source: source)] ?? [])
      }
      scopes[scope] = .object(sources)
    }
    if facts.count > DataFolder.inlineFacts {
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

  /// `expect:` with what changed in each open window's frame since recording started (the
  /// whole frame for a window opened since); empty when nothing changed.
  private func expectationLines(host: Host) -> [String] {
    var lines: [String] = []
    for window in host.windows {
      guard let changed = Self.changes(from: startFrames[window.id.number], to: window.frame) else { continue }
      lines += YAMLWriter.entry(window.label, changed, indent: 6)
    }
    return lines.isEmpty ? [] : ["  - expect:"] + lines
  }

  /// The parts of `new` that differ from `old`, compacted for an expectation: objects keep
  /// only changed members (a removed one expected `null`), lists of objects with ids become
  /// their ids. `nil` when nothing changed.
  static func changes(from old: FrameValue?, to new: FrameValue) -> FrameValue? {
    guard let old else { return compact(withoutNulls(new)) }
    guard old != new else { return nil }
    guard case .object(let before) = old, case .object(let after) = new else { return compact(new) }
    var result = FrameObject()
    for member in after.members {
      if let changed = changes(from: before[member.key], to: member.value) { result[member.key] = changed }
    }
    for member in before.members where after[member.key] == nil { result[member.key] = .null }
    return result.members.isEmpty ? nil : .object(result)
  }

  /// A new window's frame without its empty members (`null` expects absent or null, which
  /// a frame that leaves them out passes too).
  static func withoutNulls(_ value: FrameValue) -> FrameValue {
    guard case .object(let object) = value else { return value }
    return .object(FrameObject(members: object.members.filter { $0.value != .null }))
  }

  /// A value as an expectation writes it: lists of objects with ids as their ids.
  static func compact(_ value: FrameValue) -> FrameValue {
    switch value {
    case .list(let items):
      let ids = items.compactMap { item -> FrameValue? in
        guard case .object(let object) = item, let id = object["id"] else { return nil }
        switch id {
        case .integer, .string: return id
        default: return nil
        }
      }
      return ids.count == items.count && !items.isEmpty ? .list(ids) : .list(items.map(compact))
    case .object(let object):
      return .object(FrameObject(members: object.members.map { ($0.key, compact($0.value)) }))
    default:
      return value
    }
  }
}

/// Where a recording puts what is too big to read inline: `NAME.data/` beside the scenario.
struct DataFolder {
  /// Documents bigger than this (in bytes of JSON) go to a file.
  static let inlineLimit = 2048
  /// More facts than this go to a file.
  static let inlineFacts = 64
  let folder: String
  let relative: String

  init(scenarioPath: String) {
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
  static func title(for path: String) -> String {
    let file = path.split(separator: "/").last.map(String.init) ?? path
    let stem = file.split(separator: ".").first.map(String.init) ?? file
    return stem.replacing("-", with: " ").replacing("_", with: " ")
  }
}
