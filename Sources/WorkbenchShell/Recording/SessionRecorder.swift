import WorkbenchCore
import WorkbenchSession
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
  /// The host's own commands (the same for every host of the session).
  private let hostCommandNames: Set<String>
  private var steps: [RecordedStep] = []
  /// The commands of the line running (`nil` until the host has tokenized it), and which of
  /// them runs next.
  private var queued: [[CommandToken]]? = []
  private var line = ""
  private var nextCommand = 0
  /// The window the next command of the line runs in unless it names one.
  private var focusedID: WindowID?

  struct RecordedStep {
    /// The window a command runs in, or `nil` for a host command.
    var window: String?
    /// The command's words (the text is put together when the file is written).
    var words: ArraySlice<CommandToken>
    var failure: String?

    var line: String { words.map { CommandTokenizer.quoted($0.text) }.joined(separator: " ") }
  }

  /// Starts recording `session` to `path`, once its pending work has finished.
  ///
  /// - Throws: `CommandError` when the file cannot be written, or work is still pending after
  ///   `wait`.
  init(path: String, session: WorkbenchSession, line: String, wait: Duration = .seconds(10)) throws(CommandError) {
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
    hostCommandNames = host.hostCommandNames
    session.facts.startRecording()
    session.facts.timeline = timeline
    host.clock.timeline = timeline
    focusedID = host.focusedWindowID
    // The rest of the line `record start` is on is recorded too (`-c "record start F; ..."`).
    let commands = (try? CommandTokenizer.commands(in: line)) ?? []
    if let index = commands.firstIndex(where: { tokens in
      tokens.windowPrefix.rest.map(\.text).starts(with: ["record", "start"])
    }) {
      queued = commands
      nextCommand = index + 1
    }
  }

  // MARK: Following the session

  /// Before a line runs: its commands are taken from the host once the first one is done.
  func lineWillRun(_ line: String, session: WorkbenchSession) {
    self.line = line
    queued = nil
    nextCommand = 0
    focusedID = session.host.focusedWindowID
  }

  /// A `clock advance` step for the time the replay's clock must move before the next step.
  private func writeTimePassed() {
    let advance = timeline.takeAdvance()
    if advance > .zero {
      let words = ["clock", "advance", SessionClock.describe(advance)].map { CommandToken(text: $0, column: 1) }
      steps.append(RecordedStep(window: nil, words: words[...], failure: nil))
    }
  }

  /// Where the recorder is in the line running: saved around a file of commands (`source`)
  /// that runs its own lines in the middle of one.
  struct LineState {
    fileprivate var queued: [[CommandToken]]?
    fileprivate var nextCommand: Int
    fileprivate var line: String
  }

  var lineState: LineState {
    get { LineState(queued: queued, nextCommand: nextCommand, line: line) }
    set {
      queued = newValue.queued
      nextCommand = newValue.nextCommand
      line = newValue.line
    }
  }

  /// After a `source`: the outer line goes on, in whatever window its commands made current.
  func resume(_ state: LineState, session: WorkbenchSession) {
    lineState = state
    focusedID = session.host.focusedWindowID
  }

  /// The line's next command is the shell's own (`source`, `history`, `set`): a replay runs what
  /// it led to, or does not need it.
  func commandSkipped(session: WorkbenchSession) {
    let commands = queued ?? commandsOfLine(session: session)
    queued = commands
    nextCommand += 1
    focusedID = session.host.focusedWindowID
  }

  /// The line's next command ran.
  func commandRan(session: WorkbenchSession) { take(failure: nil, session: session) }

  /// The line's next command failed.
  func commandFailed(_ error: CommandError, session: WorkbenchSession) {
    // A command the window does not have (unknown, or another screen's) changed nothing, and
    // a scenario that named it would not load: it is left out.
    let commands = queued ?? commandsOfLine(session: session)
    queued = commands
    if error.isUsageError, nextCommand < commands.count, isUnknownCommand(commands[nextCommand], session: session) {
      nextCommand += 1
      focusedID = session.host.focusedWindowID
      return
    }
    take(failure: error.message, session: session)
  }

  private func take(failure: String?, session: WorkbenchSession) {
    let commands = queued ?? commandsOfLine(session: session)
    queued = commands
    guard nextCommand < commands.count else { return }
    var words = commands[nextCommand][...]
    nextCommand += 1
    let focused = focusedID
    defer { focusedID = session.host.focusedWindowID }
    var window: String?
    let prefix = words.windowPrefix
    if let named = prefix.window {
      window = named
      words = prefix.rest
    } else {
      window = focused.flatMap { session.host.window($0)?.label }
    }
    // Recording and leaving belong to the shell; a scenario ends after its last step.
    guard let name = words.first?.text, !["record", "quit", "exit"].contains(name) else { return }
    // `clock advance` fails on real time; the replay's virtual clock is moved by the recording.
    if name == "clock", failure != nil { return }
    writeTimePassed()
    let isHostCommand = window == nil || hostCommandNames.contains(name)
    steps.append(RecordedStep(window: isHostCommand ? nil : window, words: words, failure: failure))
  }

  /// The line's commands as the host tokenized them; a host a relaunch just made has not seen
  /// the line, so it is tokenized again then.
  private func commandsOfLine(session: WorkbenchSession) -> [[CommandToken]] {
    let commands = session.host.lineCommands
    return commands.isEmpty ? (try? CommandTokenizer.commands(in: line)) ?? [] : commands
  }

  private func isUnknownCommand(_ tokens: [CommandToken], session: WorkbenchSession) -> Bool {
    var words = tokens[...]
    var window = session.host.focusedWindow
    let prefix = words.windowPrefix
    if let reference = prefix.window {
      guard let named = session.host.window(named: reference) else { return true }
      window = named
      words = prefix.rest
    }
    guard let name = words.first?.text else { return true }
    return session.host.problemWithCommand(named: name, inScreen: window?.screen.name) != nil
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
