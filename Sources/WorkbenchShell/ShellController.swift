import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchSession
import WorkbenchStore
import WorkbenchSystem

/// What the shell does with each line, in both interactive and batch sessions: hands it to
/// the session, shows what comes back, and carries out what only a front end can (asking about
/// unsaved work, recording).
@MainActor
final class ShellController {
  let session: WorkbenchSession
  var host: Host { session.host }
  /// The options; `set` changes some of them for the rest of the session.
  var options: ShellOptions
  let output: OutputWriter

  init(session: WorkbenchSession, options: ShellOptions, output: OutputWriter) {
    self.session = session
    self.options = options
    self.output = output
  }

  enum Outcome: Equatable {
    case ran
    case failed(usage: Bool)
    case quit
    /// Windows hold unsaved work: the interactive shell asks, then calls `answer`.
    case ask(UnsavedWorkQuestion)
  }

  /// Whether unsaved work may be asked about (the interactive shell); otherwise it is an error
  /// that says which words to add.
  var canAsk = false

  /// Whether `watch` may run (the interactive shell, where a key stops it).
  var canWatch = false

  /// How the session's real clock waits for a timer (`settle`), so Ctrl-C stops the wait: the
  /// interactive shell's; given to every host the session has (a relaunch makes a new one).
  var interruptibleWait: ((Duration) -> Bool)? {
    didSet { host.clock.interruptibleWait = interruptibleWait }
  }

  /// Whether Ctrl-C asked the running command to stop: the interactive shell's, given to every
  /// host the session has, as `interruptibleWait` is.
  var interruptRequested: (@MainActor () -> Bool)? {
    didSet { host.services.interruptRequested = interruptRequested }
  }

  /// A command `watch` runs again and again: the interactive session takes it from here.
  struct Watch {
    var interval: Duration
    var line: String
  }
  var watching: Watch?

  /// Runs `body`, keeping what it writes instead of writing it; returns it.
  func capture(withoutColor: Bool = false, _ body: () -> Void) -> String {
    output.capturing(withoutColor: withoutColor, body)
  }

  /// Whether the session (windows, view state, focus) is saved after every line, so a crash
  /// of the shell loses at most the line it was running. The interactive shell does this;
  /// batch runs start without windows and leave the stored session alone.
  var savesSessionAfterEachLine = false

  /// How users of psql (`\q`) and sqlite3 (`.quit`, `.exit`) leave a shell; each is `quit`.
  static let leavingSpellings: Set<String> = [#"\q"#, ".quit", ".exit"]
  /// How they ask for help (`\?`, `\h`, `.help`); each is `help` (`\h select`: `help select`).
  static let helpSpellings: Set<String> = [#"\?"#, #"\h"#, ".help"]
  /// How they list what the database holds (`.tables`, `\d`, `\dt`); each is `documents`.
  static let listingSpellings: Set<String> = [".tables", #"\d"#, #"\dt"#]

  /// The line with each of its commands (`;` between them, outside quotes) in one of those
  /// spellings as the shell's own: `documents; \?` is `documents; help`. (Every spelling starts
  /// with `\` or `.`, which no command does: other lines are not looked at.)
  static func commandSpelled(_ typed: String) -> String {
    guard typed.contains(where: { $0 == "\\" || $0 == "." }) else { return typed }
    var commands: [String] = []
    var current = ""
    var quote: Character?
    for character in typed {
      if let open = quote {
        if character == open { quote = nil }
      } else if character == "\"" || character == "'" {
        quote = character
      } else if character == ";" {
        commands.append(current)
        current = ""
        continue
      }
      current.append(character)
    }
    commands.append(current)
    return commands.map(spelledCommand).joined(separator: ";")
  }

  /// One command as the shell's own when it is spelled as psql or sqlite3 spell it.
  private static func spelledCommand(_ command: String) -> String {
    let words = command.split(whereSeparator: \.isWhitespace)
    guard let first = words.first, first.hasPrefix("\\") || first.hasPrefix(".") else { return command }
    let leading = command.prefix { $0.isWhitespace }
    let word = String(first)
    if words.count == 1, leavingSpellings.contains(word) { return leading + "quit" }
    if words.count == 1, listingSpellings.contains(word) { return leading + "documents" }
    if helpSpellings.contains(word) {
      return leading + (["help"] + words.dropFirst().map(String.init)).joined(separator: " ")
    }
    return command
  }

  /// What the line running has come to so far (a question, quitting), as the session tells
  /// this front end.
  private var lineOutcome = Outcome.ran

  /// Runs one line. Errors are reported with `place` (`<stdin>:3`) in front, when given.
  func execute(_ typed: String, place: String?) -> Outcome {
    let line = Self.commandSpelled(typed)
    var failedCommand: CommandError?
    // A sourced file runs its lines inside this one: each keeps its own outcome.
    let outer = lineOutcome
    defer { lineOutcome = outer }
    let outcome = report(place: place) { () throws(CommandError) -> Outcome in
      lineOutcome = .ran
      // With --keep-going each command of the line is reported and the next one runs.
      let keepGoing: ((CommandError) -> Void)? =
        options.keepGoing
        ? { error in
          self.writeFailure(error, place: place)
          failedCommand = error
        } : nil
      host.clock.interruptibleWait = interruptibleWait
      host.services.interruptRequested = interruptRequested
      try session.run(line, continuingAfter: keepGoing, frontEnd: self)
      if let failedCommand, lineOutcome == .ran { return .failed(usage: failedCommand.isUsageError) }
      return lineOutcome
    }
    if savesSessionAfterEachLine, outcome != .quit { saveSessionIfChanged() }
    return outcome
  }

  /// Carries out the answer to a question about unsaved work.
  func answer(_ question: UnsavedWorkQuestion, with choice: LeaveChoice) -> Outcome {
    let outer = lineOutcome
    defer { lineOutcome = outer }
    let outcome = report(place: nil) { () throws(CommandError) -> Outcome in
      lineOutcome = .ran
      try session.leave(question, choice: choice, frontEnd: self)
      return lineOutcome
    }
    if savesSessionAfterEachLine, outcome != .quit { saveSessionIfChanged() }
    return outcome
  }

  // MARK: The shell's own commands

  /// How deep `source` files run inside each other.
  private var sourceDepth = 0
  static let maximumSourceDepth = 16

  /// Carries out `source`, `history` or `set`; returns the outcome a sourced file led to.
  private func carryOutShellRequest(_ request: ShellRequest) throws(CommandError) -> Outcome? {
    switch request {
    case .source(let path):
      return try source(path)
    case .history(let count):
      let lines = historyLines()
      guard !lines.isEmpty else {
        output.write(.text("the history is empty (it keeps the lines typed at the prompt)"), host: host)
        return nil
      }
      let shown = lines.suffix(count ?? 20)
      let first = lines.count - shown.count + 1
      let width = String(lines.count).count
      let text = shown.enumerated().map { offset, line in
        let number = String(first + offset)
        return String(repeating: " ", count: width - number.count) + number + "  " + line
      }
      output.write(.text(text.joined(separator: "\n")), host: host)
    case .watch(let interval, let line):
      guard canWatch else {
        throw CommandError("`watch` works at the prompt (any key or Ctrl-C stops it); a script runs the command itself")
      }
      watching = Watch(interval: interval, line: line)
    case .output(let name):
      output.mode = OutputWriter.Mode(rawValue: name) ?? .text
      output.write(.text("output \(name)"), host: host)
    case .set(let option, let on):
      guard let option, let on else {
        let states = [
          ("json", output.json), ("color", output.color), ("quiet", options.quiet),
          ("keep-going", options.keepGoing), ("echo", options.echo),
        ]
        let lines = states.map { "\($0.0) \($0.1 ? "on" : "off")" } + ["output \(output.mode.rawValue)"]
        output.write(.text(lines.joined(separator: "\n")), host: host)
        return nil
      }
      switch option {
      case "json": output.json = on
      case "color": output.color = on && OutputWriter.colorWanted(on: 1, allowed: true)
      case "quiet": options.quiet = on
      case "keep-going": options.keepGoing = on
      default: options.echo = on
      }
      output.write(.text("\(option) \(on ? "on" : "off")"), host: host)
    }
    return nil
  }

  /// Runs a file of commands a line at a time, each reported with `FILE:LINE`; stops at the
  /// first line that fails unless keeping going. Questions about unsaved work cannot be asked
  /// from a file: they are errors that say what to add.
  private func source(_ path: String) throws(CommandError) -> Outcome? {
    guard sourceDepth < Self.maximumSourceDepth else {
      throw CommandError("source files run inside each other more than \(Self.maximumSourceDepth) deep at \(path)")
    }
    let bytes: [UInt8]
    do {
      bytes = try FileSystem.read(path)
    } catch {
      switch error {
      case .missing: throw CommandError("no file \(path) to source")
      case .tooLarge:
        throw CommandError("cannot source \(path): \(error) of \(FileSystem.maximumFileSize / 1_048_576) MB")
      case .unreadable(let reason): throw CommandError("cannot read \(path): \(reason)")
      }
    }
    sourceDepth += 1
    let asked = canAsk
    canAsk = false
    defer {
      sourceDepth -= 1
      canAsk = asked
    }
    var number = 0
    var failed = 0
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
      number += 1
      let text = String(line)
      let trimmed = text.drop { $0 == " " || $0 == "\t" }
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      if options.echo { output.emit(ShellPrompt.plain(for: host) + TerminalText.visible(text)) }
      switch execute(text, place: "\(path):\(number)") {
      case .ran: continue
      case .quit: return .quit
      case .failed, .ask:
        failed += 1
        if options.keepGoing { continue }
        throw CommandError("\(path) stopped at line \(number)")
      }
    }
    // Gone on after errors (--keep-going): the `source` line still fails, as each of its lines
    // typed at the prompt would have, so a script's exit code says so.
    if failed > 0 {
      throw CommandError("\(path): \(failed) line\(failed == 1 ? "" : "s") failed (--keep-going ran the others)")
    }
    return nil
  }

  /// The lines of the history file, oldest first.
  private func historyLines() -> [String] {
    guard let path = HistoryFile.path(), let bytes = try? FileSystem.read(path) else { return [] }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  /// Writes a recording still running when the session ends, so nothing recorded is lost.
  func finishRecording(because reason: String) {
    switch session.finishRecording(because: reason) {
    case .wrote(let sentence)?: output.write(.text(sentence), host: host)
    case .failed(let sentence)?: output.writeError(sentence, place: nil)
    case nil: break
    }
  }

  /// Runs `body`, reporting a failure with its place and column.
  private func report(place: String?, _ body: () throws(CommandError) -> Outcome) -> Outcome {
    do {
      return try body()
    } catch {
      writeFailure(error, place: place)
      return .failed(usage: error.isUsageError)
    }
  }

  /// Writes a failed command's message with its place and column.
  private func writeFailure(_ error: CommandError, place: String?) {
    let column = error.column.map { ":\($0)" } ?? ""
    if let place {
      output.writeError(error.message, place: place + column, column: error.column, usage: error.isUsageError)
    } else {
      output.writeError(
        (error.column.map { "column \($0): " } ?? "") + error.message, place: nil, column: error.column,
        usage: error.isUsageError)
    }
  }

  /// Saves the session when it changed; reports a failure once per line and carries on (the
  /// next line tries again).
  private func saveSessionIfChanged() {
    do {
      try session.saveSessionIfChanged()
    } catch let error as StoreError where error.kind == .secret {
      output.writeError(error.message, place: nil)
    } catch let error as StoreError {
      output.writeError("the session was not saved: \(error.message)", place: nil)
    } catch {
      output.writeError("the session was not saved: \(error)", place: nil)
    }
  }

  /// Saves the session's windows to the workspace; reports and returns false if it cannot.
  func saveSession() -> Bool {
    do {
      try session.saveSession()
      return true
    } catch let error as StoreError where error.kind == .secret {
      // The other windows were saved; the one with a secret says so.
      output.writeError(error.message, place: nil)
      return true
    } catch let error as StoreError {
      output.writeError("the session was not saved: \(error.message)", place: nil)
    } catch {
      output.writeError("the session was not saved: \(error)", place: nil)
    }
    return false
  }
}

/// The shell as the session's front end: output goes to the terminal or the pipe, questions
/// are asked at the prompt (or refused in scripts), and `source`, `history` and `set` are done
/// here.
extension ShellController: SessionFrontEnd {
  func show(_ output: CommandOutput, reports: Bool) throws(CommandError) {
    guard reports || !hidesWhatCommandsShow else { return }
    if let refusal = self.output.refusal(for: output) { throw CommandError(refusal) }
    self.output.write(output, host: host)
  }

  /// Whether only what was asked for is printed: with `-q`, and in CSV and table output, which a
  /// program reads as rows (a frame an `open` shows would break them).
  var hidesWhatCommandsShow: Bool { options.quiet || output.mode == .csv || output.mode == .table }

  func relaunched(warnings: [RestorationWarning]) throws(CommandError) {
    host.clock.interruptibleWait = interruptibleWait
    host.services.interruptRequested = interruptRequested
    for warning in warnings { output.writeError(warning.message, place: nil) }
    if !hidesWhatCommandsShow {
      output.write(host.focusedWindowID.map(CommandOutput.frame) ?? .text("no windows are open"), host: host)
    }
  }

  func unsavedWork(_ question: UnsavedWorkQuestion) throws(CommandError) {
    guard canAsk else { throw CommandError(question.message) }
    lineOutcome = .ask(question)
  }

  func carryOut(_ request: FrontEndRequest) throws(CommandError) {
    // Only the shell's own commands ask anything of it, and they ask in its own terms.
    guard let request = request.value as? ShellRequest else { return }
    if let outcome = try carryOutShellRequest(request) { lineOutcome = outcome }
  }

  func quit() throws(CommandError) { lineOutcome = .quit }

  func problem(_ message: String) { output.writeError(message, place: nil) }
}
