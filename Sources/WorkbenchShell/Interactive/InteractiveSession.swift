import CReadline
import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchSession
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The interactive shell on a terminal, on GNU readline's callback interface: a prompt naming
/// the focused window, history, completion from the command specs, Ctrl-C to abandon the line
/// and Ctrl-D to leave.
///
/// The callback interface (rather than a blocking `readline()`) lets the loop notice Ctrl-C
/// between keystrokes, and later lets output arrive above the prompt while a line is typed.
@MainActor
final class InteractiveSession {
  /// Where readline breaks a line into words, and Tab's own reading of the word being typed.
  nonisolated static let wordBreaks = " \t\n;"
  let controller: ShellController
  var host: Host { controller.host }
  var output: OutputWriter { controller.output }
  let historyPath: String?
  private(set) var finished = false
  /// A question about unsaved work waiting for its answer on the next line.
  private var pending: UnsavedWorkQuestion?
  /// Whether a command of the running line was told Ctrl-C came.
  private let interruptAsked = InterruptAsked()

  /// The running session, reached from readline's C callbacks.
  static var current: InteractiveSession?
  /// What the candidates of the last Tab name (a book's title beside its id), for the listing.
  var completionLabels: [String: String] = [:]

  /// The modules `--watch` starts again when they are rebuilt.
  let watcher: ModuleWatcher?

  init(controller: ShellController, watcher: ModuleWatcher? = nil) {
    self.controller = controller
    self.watcher = watcher
    self.historyPath = HistoryFile.path()
  }

  func run() -> ExitCode {
    InteractiveSession.current = self
    defer { InteractiveSession.current = nil }
    configureReadline()
    output.emit("workbench \(WorkbenchVersion.current): type `help` for commands, Ctrl-D to leave.")
    if let window = host.focusedWindow { output.write(.frame(window.id), host: host) }
    let interrupts = wb_install_sigint_handler()
    // `settle` waits for its timers until they are due or Ctrl-C comes.
    controller.interruptibleWait = { time in InteractiveSession.wait(time, unless: interrupts) }
    // A long command (`sort title`) stops when Ctrl-C comes.
    controller.interruptRequested = { [interruptAsked] in interruptAsked.check() }
    defer {
      controller.interruptibleWait = nil
      controller.interruptRequested = nil
    }
    rl_callback_handler_install(prompt(), handleLine)
    reading: while !finished {
      // Changes a module sent while a command ran (kept, not on its pipe any more) show now.
      showLiveChanges()
      // Either a key or Ctrl-C (readline's key reader, wb_getc, tells them apart), a live
      // source with something to say (a module's bridge saw a switch), or the next timer on
      // the session clock (a load finishing) is due.
      let keys = interrupts >= 0 ? [STDIN_FILENO, interrupts] : [STDIN_FILENO]
      let wanted = (keys + host.services.liveSourceDescriptors).map { (descriptor: $0, wanted: Readiness.readable) }
      if controller.watching != nil {
        runWatch(interrupts: interrupts)
        continue
      }
      let happened: [Readiness]
      switch Descriptors.wait(forAny: wanted, milliseconds: Int(timeout())) {
      case .ready(let what): happened = what
      case .interrupted: continue
      case .failed: break reading
      case .timedOut:
        runDueTimers()
        checkWatchedModules()
        sayIncidents()
        continue
      }
      if happened[keys.count...].contains(where: \.happened) { showLiveChanges() }
      sayIncidents()
      if happened[..<keys.count].contains(where: \.happened) { rl_callback_read_char() }
    }
    rl_callback_handler_remove()
    return .success
  }

  /// `watch`: runs the command now and after every interval, showing its output with the lines
  /// that changed since the run before marked (`+`), until a key (which is not typed) or Ctrl-C;
  /// timers due meanwhile run as they do at the prompt. Then the prompt comes back.
  private func runWatch(interrupts: Int32) {
    guard let watch = controller.watching else { return }
    rl_clear_visible_line()
    wb_rl_flush()
    var previous: [String]? = nil
    var runs = 0
    stopping: while true {
      runs += 1
      // Captured without colour (what it shows is marked line by line instead), and each line
      // cut to the terminal's width as it is now.
      let shown = controller.capture(withoutColor: true) { _ = controller.execute(watch.line, place: nil) }
      let width = OutputWriter.terminalWidth()
      let lines = shown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      let changed = previous.map { before in lines.filter { !before.contains($0) }.count } ?? 0
      output.emit(
        "every \(SessionClock.describe(watch.interval)): \(watch.line) · run \(runs)"
          + (previous == nil ? "" : " · \(changed) line\(changed == 1 ? "" : "s") changed")
          + " · any key or Ctrl-C stops")
      for line in lines where !(line.isEmpty && line == lines.last) {
        let isNew = previous.map { !$0.contains(line) } ?? false
        let marked = TerminalText.visible((isNew ? "+ " : "  ") + line)
        output.emit(width.map { SideBySide.truncate(marked, to: $0) } ?? marked)
      }
      previous = lines
      // Wait the interval, running due timers, until it passes or a key or Ctrl-C comes.
      let deadline = host.clock.now + watch.interval
      while host.clock.now < deadline {
        let keys = interrupts >= 0 ? [STDIN_FILENO, interrupts] : [STDIN_FILENO]
        let left = deadline - host.clock.now
        let wait = min(Int32(clamping: left.wholeMilliseconds + 1), timeout() < 0 ? Int32.max : timeout())
        let waited = Descriptors.wait(
          forAny: keys.map { (descriptor: $0, wanted: .readable) }, milliseconds: Int(max(1, wait)))
        if case .ready(let happened) = waited {
          // A key stops the watch and is not typed; Ctrl-C stops it too.
          if happened[0].contains(.readable) {
            var byte: UInt8 = 0
            _ = read(STDIN_FILENO, &byte, 1)
          }
          _ = wb_take_interrupt()
          break stopping
        }
        _ = host.clock.fireDue()
      }
    }
    controller.watching = nil
    let pending = host.clock.pendingTimers > 0 ? " (\(host.clock.pendingSummary) still pending)" : ""
    output.emit("stopped watching \(watch.line)\(pending)")
    rl_on_new_line()
    rl_forced_update_display()
    wb_rl_flush()
  }

  /// Waits `time`, or until Ctrl-C (a byte on `interrupts`, the signal handler's pipe): whether
  /// the whole time passed.
  static func wait(_ time: Duration, unless interrupts: Int32) -> Bool {
    let deadline = ContinuousClock.now + time
    while ContinuousClock.now < deadline {
      let left = deadline - ContinuousClock.now
      let waited = Descriptors.wait(
        forAny: interrupts >= 0 ? [(interrupts, .readable)] : [],
        milliseconds: Int(min(60_000, left.wholeMilliseconds + 1)))
      if wb_take_interrupt() != 0 { return false }
      if case .failed = waited { return true }
    }
    return true
  }

  /// Milliseconds until the next timer, or -1 to wait for a key only; with `--watch`, at most
  /// 100 ms, to look at the modules' executables.
  private func timeout() -> Int32 {
    let watching: Int32 = watcher == nil ? -1 : 100
    // A virtual clock's timers wait for `clock advance`, not for the time to pass.
    guard host.clock.mode == .real, let wait = host.clock.untilNextTimer else { return watching }
    let timer = Int32(min(60_000, wait.wholeMilliseconds + 1))
    return watching < 0 ? timer : min(timer, watching)
  }

  /// Starts again the modules that were rebuilt, says so above the prompt, and shows the
  /// focused window as it is now.
  private func checkWatchedModules() {
    guard let watcher else { return }
    var lines = watcher.check()
    guard !lines.isEmpty else { return }
    // A build that registers other commands, screens or kinds: the session takes them in (its
    // registry made again, the session relaunched onto it); a window whose screen went away is
    // closed, with a line.
    if watcher.registrationChanged {
      do {
        lines += try controller.session.reregister(try watcher.registry())
      } catch {
        lines.append("the new registration was not taken in (\(error)); the session keeps the last one")
      }
    }
    rl_clear_visible_line()
    wb_rl_flush()
    for line in lines { output.emitShown(line) }
    if let window = host.focusedWindow { output.write(.frame(window.id), host: host) }
    // The focused window may be another now (one on a screen that went away was closed).
    if pending == nil { rl_set_prompt(prompt()) }
    rl_on_new_line()
    rl_forced_update_display()
    wb_rl_flush()
  }

  /// Takes what live sources say changed (as a `live` step, so a recording has it where it
  /// came in) and shows the focused window above the prompt, as a timer's change is.
  private func showLiveChanges() {
    guard host.services.liveChangesWait else { return }
    rl_clear_visible_line()
    wb_rl_flush()
    _ = controller.execute("live", place: nil)
    rl_on_new_line()
    rl_forced_update_display()
    wb_rl_flush()
  }

  /// Says above the prompt what went wrong while it waited (a module process that stopped as
  /// its timer ran or on its own), with the focused window as it is now, then redraws the line.
  private func sayIncidents() {
    let incidents = controller.session.takeIncidents()
    guard !incidents.isEmpty else { return }
    rl_clear_visible_line()
    wb_rl_flush()
    for incident in incidents { output.writeError(incident, place: nil) }
    if let window = host.focusedWindow { output.write(.frame(window.id), host: host) }
    // The focused window may be another now (one on a screen that went away was closed).
    if pending == nil { rl_set_prompt(prompt()) }
    rl_on_new_line()
    rl_forced_update_display()
    wb_rl_flush()
  }

  /// Runs due timers; when the focused window's frame changed, shows it above the prompt and
  /// redraws the line being typed as it was.
  private func runDueTimers() {
    let before = host.focusedWindow?.frame
    guard host.clock.fireDue(), let window = host.focusedWindow, window.frame != before else { return }
    rl_clear_visible_line()
    wb_rl_flush()
    output.write(.frame(window.id), host: host)
    rl_on_new_line()
    rl_forced_update_display()
    wb_rl_flush()
  }

  private func prompt() -> String {
    if let pending {
      return pending.quitting
        ? "Save, discard, keep the drafts for next time, or cancel? [s/d/k/c] " : "Save, discard or cancel? [s/d/c] "
    }
    return ShellPrompt.styled(for: host, color: output.color)
  }

  private func configureReadline() {
    wb_rl_keep_environment()
    wb_rl_set_readline_name("workbench")
    wb_rl_set_completion_function(completeLine)
    wb_rl_set_display_matches_hook(displayMatches)
    // The host gives candidates in their own order (ids numerically: 2 before 10).
    wb_rl_set_sort_completion_matches(0)
    wb_rl_set_basic_word_break_characters(Self.wordBreaks)
    wb_rl_set_catch_signals(0)
    wb_rl_use_interruptible_getc()
    rl_bind_key(3, abandonLineKey)
    using_history()
    stifle_history(2000)
    if let historyPath {
      if access(historyPath, F_OK) == 0 {
        read_history(historyPath)
      } else {
        let descriptor = open(historyPath, O_CREAT | O_WRONLY, 0o600)
        if descriptor >= 0 { close(descriptor) }
      }
    }
  }

  /// Ctrl-C: drop the line being typed and start a fresh one; at the question about unsaved
  /// work, it is the answer `cancel` (it asked again), as Ctrl-C cancels a prompt in psql.
  func abandonLine() {
    rl_replace_line("", 1)
    StandardStreams.out("^C\n")
    if let question = pending {
      pending = nil
      answer("c", to: question)
      if !finished { rl_set_prompt(prompt()) }
    }
    rl_on_new_line()
  }

  /// Runs one line typed at the prompt; `nil` means Ctrl-D, which leaves like `quit`.
  func accept(_ line: String?) {
    if let question = pending {
      pending = nil
      answer(line, to: question)
      return
    }
    guard let line else {
      output.emit("")
      run("quit", remembering: false)
      return
    }
    run(line, remembering: true)
  }

  private func run(_ line: String, remembering: Bool) {
    // Ctrl-C while the line runs: a long command that looks for it stops (`interruptRequested`).
    // Whatever it was, it is taken when the line ends, so the next prompt is not abandoned.
    _ = wb_take_interrupt()
    interruptAsked.reset()
    let outcome = controller.execute(line, place: nil)
    if wb_take_interrupt() != 0, !interruptAsked.answered {
      output.writeError(
        "Ctrl-C came as the line ran, and what it ran has no point to stop at: it finished", place: nil)
    }
    // Every line is kept, mistyped ones too (as bash, psql and sqlite3 do): Up recalls the line
    // a did-you-mean message is about, to fix it.
    if remembering, !line.allSatisfy(\.isWhitespace) { remember(line) }
    follow(outcome)
  }

  /// Acts on what a line or an answer led to: the next prompt, a question, or the end.
  private func follow(_ outcome: ShellController.Outcome) {
    switch outcome {
    case .ran, .failed: break
    case .quit: finished = true
    case .ask(let question):
      output.emit(question.summary + ".")
      pending = question
    }
    if finished {
      rl_callback_handler_remove()
    } else {
      rl_set_prompt(prompt())
    }
  }

  /// Carries out the answer to a question about unsaved work.
  private func answer(_ line: String?, to question: UnsavedWorkQuestion) {
    let word = (line ?? "c").filter { !$0.isWhitespace }.lowercased()
    let choices: [String: LeaveChoice] = ["s": .save, "d": .discard, "k": .keep, "c": .cancel]
    guard let first = word.first, let choice = choices[String(first)], choice != .keep || question.quitting else {
      output.writeError(
        "answer s (save), d (discard)\(question.quitting ? ", k (keep)" : "") or c (cancel)", place: nil)
      pending = question
      rl_set_prompt(prompt())
      return
    }
    follow(controller.answer(question, with: choice))
  }

  /// Adds a line to the history and appends it to the history file at once, so a crash or a
  /// second shell loses nothing.
  private func remember(_ line: String) {
    add_history(line)
    guard let historyPath else { return }
    append_history(1, historyPath)
    history_truncate_file(historyPath, 2000)
  }
}

/// Ctrl-C, as a key: the signal handler makes readline's key reader return it.
private func abandonLineKey(_ count: Int32, _ key: Int32) -> Int32 {
  MainActor.assumeIsolated { InteractiveSession.current?.abandonLine() }
  return 0
}

/// readline's line callback.
private func handleLine(_ line: UnsafeMutablePointer<CChar>?) {
  let text: String?
  var invalid = false
  if let line {
    let bytes = UnsafeRawBufferPointer(start: line, count: strlen(line)).bindMemory(to: UInt8.self)
    text = String(validating: bytes, as: UTF8.self)
    invalid = text == nil
    free(line)
  } else {
    text = nil
  }
  MainActor.assumeIsolated {
    guard let session = InteractiveSession.current else { return }
    if invalid {
      session.output.writeError("the line is not valid UTF-8 and was not run", place: nil)
      return
    }
    session.accept(text)
  }
}

/// readline's completion callback: candidates come from the host's command specs.
private func completeLine(
  _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32
) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
  wb_rl_set_attempted_completion_over(1)  // never fall back to file names
  guard let buffer = wb_rl_line_buffer() else { return nil }
  let prefixBytes = UnsafeRawBufferPointer(start: buffer, count: Int(end)).bindMemory(to: UInt8.self)
  let prefix = String(decoding: prefixBytes, as: UTF8.self)
  // readline's `set completion-ignore-case on`: a word typed in capitals (`SEL`) completes as
  // the lowercase names it matches.
  let ignoresCase = rl_variable_value("completion-ignore-case").map { String(cString: $0) == "on" } ?? false
  let fileName = MainActor.assumeIsolated { InteractiveSession.current?.host.completesFileName(prefix) ?? false }
  if fileName {
    // readline's own file-name completion: folders, `~`, the listing in columns.
    wb_rl_set_attempted_completion_over(0)
    return nil
  }
  let candidates: [String] = MainActor.assumeIsolated {
    guard let session = InteractiveSession.current else { return [] }
    var candidates = session.host.completions(for: prefix)
    if candidates.isEmpty, ignoresCase {
      let word = prefix.reversed().prefix { !$0.isWhitespace }.reversed()
      let lowered = String(prefix.dropLast(word.count)) + String(word).lowercased()
      if lowered != prefix { candidates = session.host.completions(for: lowered) }
    }
    session.completionLabels =
      candidates.count > 1 ? session.host.completionLabels(for: prefix, candidates: candidates) : [:]
    return candidates
  }
  guard !candidates.isEmpty else { return nil }
  var common = candidates.dropFirst().reduce(candidates[0]) { shared, next in
    String(zip(shared, next).prefix { $0 == $1 }.map(\.0))
  }
  // Candidates found by what they name (`select dun` lists the ids of titles with "Dune"):
  // the word typed stays until one is chosen.
  var word = String.UnicodeScalarView()
  word.append(
    contentsOf: prefix.unicodeScalars.reversed().prefix { !InteractiveSession.wordBreaks.unicodeScalars.contains($0) }
      .reversed())
  let typed = String(word)
  if candidates.count > 1, !candidates.allSatisfy({ $0.lowercased().hasPrefix(typed.lowercased()) }) {
    common = typed
  }
  // readline's format: the text to substitute, then each match, then NULL.
  let matches = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: candidates.count + 2)
  matches[0] = strdup(common)
  if candidates.count == 1 {
    matches[1] = nil
  } else {
    for (index, candidate) in candidates.enumerated() { matches[index + 1] = strdup(candidate) }
    matches[candidates.count + 1] = nil
  }
  // readline frees the array with free(), so it must come from malloc.
  let size = MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * (candidates.count + 2)
  guard let raw = malloc(size) else {
    matches.deallocate()
    return nil
  }
  let copy = raw.bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: candidates.count + 2)
  copy.update(from: matches, count: candidates.count + 2)
  matches.deallocate()
  return copy
}

/// What a line's commands are told when they ask whether Ctrl-C came, and whether one was told
/// yes (then its error already said it stopped).
@MainActor
final class InterruptAsked {
  private(set) var answered = false

  func reset() { answered = false }

  func check() -> Bool {
    guard wb_interrupt_pending() != 0 else { return false }
    answered = true
    return true
  }
}

/// readline's hook for listing candidates: identifiers with what they name beside them, one
/// a line (`12  Dune`), cut to the terminal's width; readline's own columns otherwise.
private func displayMatches(
  _ matches: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ count: Int32, _ longest: Int32
) {
  let labels = MainActor.assumeIsolated { InteractiveSession.current?.completionLabels ?? [:] }
  guard let matches, count > 0, !labels.isEmpty else {
    rl_display_match_list(matches, count, longest)
    wb_rl_flush()
    rl_forced_update_display()
    return
  }
  let words = (1...Int(count)).compactMap { matches[$0].map { String(cString: $0) } }
  wb_rl_show_listing(labelledListing(words, labels: labels, width: Int(wb_rl_screen_width()), limit: 100))
}

/// The listing `displayMatches` prints: at most `limit` lines, then how many were left out.
func labelledListing(_ words: [String], labels: [String: String], width: Int, limit: Int) -> String {
  let column = words.prefix(limit).map(\.count).max() ?? 0
  var text = "\n"
  for word in words.prefix(limit) {
    var line = word + String(repeating: " ", count: column - word.count)
    if let label = labels[word] { line += "  " + label }
    if line.count > width - 1 { line = String(line.prefix(max(width - 2, column))) + "…" }
    text += line + "\n"
  }
  if words.count > limit { text += "… and \(words.count - limit) more: type more of the word\n" }
  return text
}
