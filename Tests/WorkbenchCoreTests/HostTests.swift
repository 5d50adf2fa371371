import Testing

@testable import WorkbenchCore
@testable import WorkbenchModuleAPI

@MainActor
@Suite struct HostTests {
  let host: Host

  init() throws {
    host = try Host(modules: [CounterModule()])
  }

  private func run(_ line: String) throws -> [CommandOutput] { try host.run(line: line) }

  private func error(_ line: String) -> CommandError? {
    do {
      _ = try host.run(line: line)
      return nil
    } catch {
      return error
    }
  }

  private func value(_ window: String) -> Int? { host.window(named: window)?.frame["value"]?.integerValue }
  private func step(_ window: String) -> Int? { host.window(named: window)?.frame["step"]?.integerValue }

  /// A document replaced from JSON (as a module process takes in the host's copy) keeps that
  /// text as its JSON at that revision: comparing it with the next copy costs a comparison of
  /// text, not an encoding of the document (on a 10 MB document, each command re-decoded and
  /// re-encoded it: 79 ms a command where 57 µs was measured before).
  @Test func aDocumentReplacedFromJSONKeepsThatTextAsItsJSON() throws {
    let given = #"{ "value" :3 }"#
    let kind = try #require(host.document(named: "tally")?.kind)
    try host.replaceDocument(named: "tally", kind: kind, json: given, revision: 4)
    #expect(host.documentJSON(named: "tally") == given)
    _ = try run("open counter tally c")
    _ = try run("bump")
    #expect(host.documentJSON(named: "tally") == #"{"value":4}"#)
  }

  /// `reopen` makes each window again from its document and its view state, in place: the same
  /// numbers, names, order and focus, a new screen model, the host's undo history kept. What the
  /// old model held beyond the two (here the count of replacements it saw) is gone.
  @Test func reopenMakesEachWindowAgainFromItsDocumentAndViewState() throws {
    _ = try run("open counter tally a; open counter tally b; @a step 4; @a bump; focus a")
    let before = try #require(host.window(named: "a")?.model(as: CounterScreen.self))
    let seen = before.replacements
    _ = try run("@b bump")
    #expect(before.replacements == seen + 1)
    #expect(try run("reopen") == [.frame(WindowID(1))])
    let after = try #require(host.window(named: "a")?.model(as: CounterScreen.self))
    #expect(after !== before)
    #expect(after.replacements == 0)
    #expect(host.windows.map(\.label) == ["a", "b"])
    #expect(host.focusedWindowID == WindowID(1))
    #expect(value("a") == 5 && step("a") == 4 && step("b") == 1)
    // One window by name; its view-state history goes with it (`undo view` takes its step back).
    _ = try run("@b step 7")
    let b = host.window(named: "b")?.model(as: CounterScreen.self)
    _ = try run("reopen b")
    #expect(host.window(named: "b")?.model(as: CounterScreen.self) !== b)
    #expect(step("b") == 7)
    _ = try run("@b undo view")
    #expect(step("b") == 1)
    // None open: an error that says so.
    _ = try run("close a; close b")
    #expect(error("reopen")?.message == "no window is open")
  }

  /// A command reads its window's document as the type it knows, as it is now; asked as
  /// another type, it is refused with a message, not a trap.
  @Test func aCommandReadsItsWindowsDocumentByItsType() throws {
    _ = try run("open counter tally c; bump; bump")
    #expect(try run("peek") == [.text("2")])
    #expect(error("misread")?.message == "window c shows a counter document, which has no such command")
  }

  /// A module's command reaches the session's work, and a cast gets it no further: the work
  /// is not the host.
  @Test func aModuleCannotCastItsWayToTheHost() throws {
    #expect(try run("cast") == [.text("its work")])
  }

  @Test func sampleDocumentsAreLoaded() {
    #expect(host.documentNames == ["tally"])
    #expect(host.document(named: "tally")?.revision == 1)
  }

  @Test func openFocusesTheNewWindowAndNumbersItsWindows() throws {
    #expect(try run("open counter tally a") == [.frame(WindowID(1))])
    _ = try run("open counter tally")
    #expect(host.focusedWindowID == WindowID(2))
    #expect(host.windows.map(\.label) == ["a", "2"])
  }

  @Test func commitsReachEveryWindowOnTheDocumentAndBumpTheRevision() throws {
    _ = try run("open counter tally a; open counter tally b")
    _ = try run("@a step 5; @a bump")
    #expect(value("a") == 5)
    #expect(value("b") == 5)
    #expect(step("b") == 1)  // view state stays per window
    #expect(host.document(named: "tally")?.revision == 2)
    let screenB = try #require(host.window(named: "b")?.model(as: CounterScreen.self))
    #expect(screenB.replacements == 1)
  }

  @Test func qualifiedCommandsRunFromAnywhere() throws {
    _ = try run("open counter tally a")
    _ = try run("counter.step 3")
    #expect(step("a") == 3)
  }

  @Test func unknownCommandsSuggestTheClosestName() {
    let failure = error("hlep")
    #expect(failure?.message.contains("Did you mean 'help'?") == true)
    #expect(failure?.column == 1)
    #expect(failure?.isUsageError == true)
  }

  @Test func moduleCommandsWithoutAWindowSayHowToGetOne() {
    let failure = error("bump")
    #expect(failure?.message.contains("open counter") == true)
  }

  @Test func unknownWindowsAreReportedWithTheirColumn() throws {
    _ = try run("open counter tally left")
    let failure = error("@lfet bump")
    #expect(failure?.message == "no window 'lfet'. Did you mean 'left'?")
    #expect(failure?.column == 1)
    #expect(value("left") == 0)
  }

  @Test func argumentsAreTypeCheckedBeforeAnythingRuns() throws {
    _ = try run("open counter tally")
    #expect(error("step two")?.message == "SIZE must be a whole number, not 'two'")
    #expect(error("step two")?.column == 6)
    #expect(error("step 11")?.message == "SIZE must be between 1 and 10, not 11")
    #expect(error("step")?.message == "missing SIZE. Usage: step SIZE")
    #expect(error("step 2 3")?.message == "too many arguments: '3' is extra. Usage: step SIZE")
    #expect(error("mode fsat")?.message == "KIND must be one of fast, slow, not 'fsat'. Did you mean 'fast'?")
    #expect(step("1") == 1)
  }

  @Test func aRejectedCommandLeavesTheViewStateAsItWas() throws {
    _ = try run("open counter tally")
    #expect(error("fail")?.message == "the counter refuses")
    #expect(error("fail")?.isUsageError == false)
    #expect(step("1") == 1)
  }

  @Test func laterCommandsOnALineDoNotRunAfterAnError() throws {
    _ = try run("open counter tally")
    #expect(error("bump; nope; bump") != nil)
    #expect(value("1") == 1)
  }

  @Test func documentUndoKeepsTheViewStateAndViewUndoKeepsTheDocument() throws {
    _ = try run("open counter tally a")
    _ = try run("step 4; bump; step 2")
    #expect(value("a") == 4)
    _ = try run("undo")
    #expect(value("a") == 0)
    #expect(step("a") == 2)  // the document went back, the window's step did not
    _ = try run("undo view")
    #expect(step("a") == 4)
    #expect(value("a") == 0)
    _ = try run("redo; redo view")
    #expect(value("a") == 4)
    #expect(step("a") == 2)
    #expect(host.document(named: "tally")?.revision == 4)  // bump, undo, redo
    #expect(error("redo")?.message == "nothing to redo in document 'tally'")
  }

  @Test func aNewEditClearsTheRedoHistory() throws {
    _ = try run("open counter tally; bump; undo; bump")
    #expect(error("redo") != nil)
  }

  @Test func closingMovesFocusAndUnknownWindowsAreRejected() throws {
    _ = try run("open counter tally a; open counter tally b; focus a")
    #expect(host.focusedWindow?.label == "a")
    _ = try run("close a")
    #expect(host.focusedWindow?.label == "b")
    // 'b' is no likely typo for 'a': nothing is suggested (a name one keystroke away is).
    #expect(error("focus a")?.message == "no window 'a'")
    _ = try run("open counter tally left")
    #expect(error("focus lft")?.message == "no window 'lft'. Did you mean 'left'?")
  }

  @Test func windowNamesMustBeUniqueAndWellFormed() throws {
    _ = try run("open counter tally a")
    #expect(error("open counter tally a")?.message.contains("already open") == true)
    #expect(error("open counter tally 9x")?.message.contains("must start with a letter") == true)
    #expect(host.windows.count == 1)
  }

  @Test func registrationClashesAreErrorsNotTraps() {
    #expect(throws: RegistrationError.self) { try Host(modules: [CounterModule(), CounterModule()]) }
    #expect(throws: RegistrationError.self) { try Host(modules: [ClashingModule()]) }
  }

  @Test func helpComesFromTheSpecs() throws {
    guard case .text(let text) = try run("help step").first else {
      Issue.record("help did not print text")
      return
    }
    #expect(text.hasPrefix("usage: step SIZE"))
    #expect(error("help nosuch")?.message.contains("no command 'nosuch'") == true)
  }
}

@MainActor
@Suite struct CompletionTests {
  let host: Host

  init() throws {
    host = try Host(modules: [CounterModule()])
    _ = try host.run(line: "open counter tally left; open counter tally right")
  }

  @Test func completesCommandNames() {
    #expect(host.completions(for: "st") == ["state", "step"])
    #expect(host.completions(for: "counter.b") == ["counter.bump"])
  }

  @Test func completesWindowsAfterAnAtSign() {
    #expect(host.completions(for: "@l") == ["@left"])
    #expect(host.completions(for: "focus r") == ["right"])
  }

  @Test func completesArgumentValuesFromTheSpec() {
    #expect(host.completions(for: "mode ") == ["fast", "slow"])
    #expect(host.completions(for: "open c") == ["counter"])
    #expect(host.completions(for: "open counter t") == ["tally"])
    #expect(host.completions(for: "undo v") == ["view"])
  }

  @Test func completesInTheWindowNamedInFront() {
    #expect(host.completions(for: "@right mode s") == ["slow"])
  }

  @Test func completesAfterASemicolon() {
    #expect(host.completions(for: "bump; ste") == ["step"])
  }
}

/// Running, checking, help and completion find commands through one router, so they agree on
/// what a name means where it is typed.
@MainActor
@Suite struct CommandRouterTests {
  @Test func runCheckHelpAndCompletionAgreeOnAModulesCommand() throws {
    let host = try Host(modules: [CounterModule()])
    // With no counter window, `step` is counter's command and runs nowhere yet.
    #expect(failure(host, "step 2")?.contains("counter.step needs a counter window, and none is open") == true)
    // The scenario loader's check resolves against the windows a script will have open, and
    // says what running says.
    #expect(
      problem(host, "step 2", screen: nil)
        == "counter.step needs a counter window, and none is open: open one with `open counter DOCUMENT`")
    let help = try host.run(line: "help step").first.map { "\($0)" } ?? ""
    #expect(help.contains("usage: step SIZE"))
    #expect(
      help.contains("(a command of counter, and no window is open: run it in such a window, or as counter.step)"))
    #expect(host.completions(for: "ste") == [])
    // In a counter window it is the window's own.
    _ = try host.run(line: "open counter tally")
    #expect(problem(host, "step 2", screen: "counter") == nil)
    #expect(host.completions(for: "ste") == ["step"])
    #expect(try host.run(line: "help step").first.map { "\($0)" }?.contains("(also typed as counter.step)") == true)
    // A typo gets the same suggestion everywhere.
    #expect(failure(host, "stpe 2")?.hasPrefix("unknown command 'stpe'. Did you mean 'step'?") == true)
    #expect(problem(host, "stpe 2", screen: "counter") == "unknown command 'stpe'. Did you mean 'step'?")
    // A run-time refusal carries the column of its command.
    #expect(throws: CommandError("no command 'stpe'. Did you mean 'step'?", column: 1)) {
      try host.run(line: "help stpe")
    }
  }
}

/// Commands made of subcommands (`clock advance`, `travel back|forward|to|steps`): the first word picks
/// one, with its own arguments; help, completion and messages know them.
@MainActor
@Suite struct SubcommandTests {
  @Test func theFirstWordPicksASubcommand() throws {
    let host = try Host(modules: [CounterModule()], clock: .virtual)
    #expect(
      try host.run(line: "clock advance 2s") == [
        .text("2s since the session started (virtual time), at 2026-01-01T00:00:02Z")
      ])
    #expect(
      try host.run(line: "clock advance 1d") == [
        .text("86402s since the session started (virtual time), at 2026-01-02T00:00:02Z")
      ])
    #expect(
      failure(host, "clock advanc 2s")?.hasPrefix("clock has no subcommand 'advanc'. Did you mean 'advance'?") == true)
    #expect(failure(host, "clock advance") == "missing DURATION. Usage: clock advance DURATION")
    #expect(
      failure(host, "travel")
        == "travel needs a subcommand (steps, back, forward, to). Usage: travel steps [STEP] | back [COUNT] | "
        + "forward [COUNT] | to STEP")
    #expect(try host.results(line: "travel back 2").map(\.request) == [.travel(.back(2))])
    #expect(try host.results(line: "travel steps").map(\.request) == [.travel(.steps(nil))])
    #expect(host.completions(for: "clock ") == ["advance"])
    #expect(host.completions(for: "travel ") == ["steps", "back", "forward", "to"])
    let help = try host.run(line: "help travel").first.map { "\($0)" } ?? ""
    #expect(help.contains("travel to STEP"))
    #expect(help.contains("Move the session to step N"))
  }
}

/// The message a line fails with, or `nil` when it runs.
@MainActor
func failure(_ host: Host, _ line: String) -> String? {
  do {
    _ = try host.run(line: line)
    return nil
  } catch {
    return error.message
  }
}

/// The message the scenario loader's check gives a line before anything runs, in a script
/// whose one window (if `screen`) shows `screen`, or `nil` when it resolves and binds.
@MainActor
func problem(_ host: Host, _ line: String, screen: String?) -> String? {
  var planned = PlannedWindows()
  if let screen {
    planned.open("main", screen: screen)
    planned.current = planned.openWindows.last
  }
  guard let commands = try? CommandTokenizer.commands(in: line) else { return "the line does not tokenize" }
  do throws(CommandError) {
    for tokens in commands {
      _ = try host.resolver.bind(try host.resolver.resolve(tokens, in: planned), in: planned)
    }
    return nil
  } catch {
    return error.message
  }
}
