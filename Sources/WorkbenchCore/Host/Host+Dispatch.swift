extension Host {
  /// Runs every command on a line, in order, stopping at the first error.
  ///
  /// - Returns: what each command produced.
  /// - Throws: `CommandError` (with the column it is about) for the first command that fails;
  ///   commands before it have run.
  ///
  /// - Parameter window: the window the commands run in unless one names another (`@NAME`);
  ///   the focused one when `nil`.
  public func run(line: String, in window: String? = nil) throws(CommandError) -> [CommandOutput] {
    try results(line: line, in: window).map(\.output)
  }

  /// Runs every command on a line as `run(line:in:)` does; each command's result, with what it
  /// asked of the session.
  public func results(line: String, in window: String? = nil) throws(CommandError) -> [CommandResult] {
    var results: [CommandResult] = []
    try run(line: line, in: window, continuingAfter: nil) { result throws(CommandError) in results.append(result) }
    return results
  }

  /// The one way a front end runs a line: due timers fire, scheduled source changes are
  /// delivered, and documents other processes saved are brought in, before the first command;
  /// then each command runs in order (in `window` unless it names one with `@NAME`), and its
  /// result (what it shows, whether it reports, what it asks of the session) goes to `handle`
  /// as soon as it has run. The line stops at the first error, or, with `continuingAfter`, reports
  /// it there and goes on (`--keep-going`); nothing after a `quit` runs.
  ///
  /// - Parameter takingLiveChanges: whether what live sources said changed comes in as the line
  ///   begins (a `live` command put in front); `false` for a driver that takes them in itself
  ///   between lines (explore, whose replay must take them at the same point).
  /// - Returns: the commands after a `relaunch`, not run: they are for the host that replaces
  ///   this one (`run(commands:in:continuingAfter:handle:)` on it).
  @discardableResult
  public func run(
    line: String, in window: String?, takingLiveChanges: Bool = true,
    continuingAfter failed: ((CommandError) -> Void)?, handle: (CommandResult) throws(CommandError) -> Void
  ) throws(CommandError) -> [[CommandToken]] {
    try runLine(in: window, takingLiveChanges: takingLiveChanges, continuingAfter: failed, handle: handle) {
      () throws(CommandError) in
      do throws(CommandSyntaxError) {
        return try CommandTokenizer.commands(in: line)
      } catch {
        throw CommandError(error.message, column: error.column, isUsageError: true)
      }
    }
  }

  /// Runs a line already read into commands (a scenario's step, which the loader read and
  /// checked) as `run(line:in:continuingAfter:handle:)` runs text: the line is not read again.
  ///
  /// - Returns: the commands after a `relaunch`, not run.
  @discardableResult
  public func run(
    lineOf commands: [[CommandToken]], in window: String?, takingLiveChanges: Bool = true,
    continuingAfter failed: ((CommandError) -> Void)?, handle: (CommandResult) throws(CommandError) -> Void
  ) throws(CommandError) -> [[CommandToken]] {
    try runLine(in: window, takingLiveChanges: takingLiveChanges, continuingAfter: failed, handle: handle) {
      () throws(CommandError) in commands
    }
  }

  /// A line's work before its commands, then its commands (`read` gives them, after the timers).
  private func runLine(
    in window: String?, takingLiveChanges: Bool, continuingAfter failed: ((CommandError) -> Void)?,
    handle: (CommandResult) throws(CommandError) -> Void, read: () throws(CommandError) -> [[CommandToken]]
  ) throws(CommandError) -> [[CommandToken]] {
    try asALine { () throws(CommandError) in
      var commands = try read()
      // What live sources said changed comes in between commands, never during one, as a `live`
      // step of its own (shown, and written where a recording is made).
      if takingLiveChanges, commands.first?.first?.text != "live", services.liveChangesWaitWhenAsked() {
        commands.insert(Self.liveCommand, at: 0)
      }
      return try run(commands: commands, in: window, continuingAfter: failed, handle: handle)
    }
  }

  /// Runs `body` as a line runs: at the line's time (due timers fire first, and a recording
  /// notes the time passed), after what other processes saved came in. A line given as words
  /// and a command given by name with its values both run this way.
  private func asALine<Result>(_ body: () throws(CommandError) -> Result) throws(CommandError) -> Result {
    clock.beginLine()
    defer { clock.endLine() }
    try beginLine()
    return try body()
  }

  /// The `live` command a line begins with when live sources said something changed.
  private static let liveCommand = [CommandToken(text: "live", column: 1)]

  /// What a line does before its commands, after its time is set: timers that are due fire,
  /// and what other processes saved comes in; what they changed reaches every window before
  /// the first command reads a frame.
  private func beginLine() throws(CommandError) {
    try synchronize()
    services.scheduler.flush()
  }

  /// Runs one command given by its full name (`network fail`) and its arguments as bound
  /// elsewhere, as a line of that one command runs: what a module kit's session does with the
  /// command the workbench host sends it, so no line is read again. The arguments are checked
  /// here as words would be.
  ///
  /// - Parameter window: the window it runs in (by label or number); the focused one when `nil`.
  public func run(
    command name: String, arguments: [String: ArgumentValue], in window: String?
  ) throws(CommandError) -> CommandOutput {
    try asALine { () throws(CommandError) in
      if services.liveChangesWaitWhenAsked() { _ = try runReporting(Self.liveCommand) }
      let words = name.split(separator: " ", omittingEmptySubsequences: true).map {
        CommandToken(text: String($0), column: 1)
      }
      guard !words.isEmpty else { throw CommandError("the command has no name", isUsageError: true) }
      return try runReporting(words, in: window, values: arguments).output
    }
  }

  /// Runs tokenized commands in order, as `run(line:in:continuingAfter:handle:)` does after its
  /// first steps: the rest of a line whose `relaunch` replaced the host it started on.
  ///
  /// - Returns: the commands after a `relaunch`, not run.
  @discardableResult
  public func run(
    commands: [[CommandToken]], in window: String?, continuingAfter failed: ((CommandError) -> Void)?,
    handle: (CommandResult) throws(CommandError) -> Void
  ) throws(CommandError) -> [[CommandToken]] {
    for (index, tokens) in commands.enumerated() {
      let request: SessionRequest?
      do {
        // In `window` unless the command names one itself: the window is given to the
        // resolver as a value, not written into the command as a word.
        let result = try runReporting(tokens, in: tokens.windowPrefix.window == nil ? window : nil)
        request = result.request
        try handle(result)
      } catch {
        guard let failed else { throw error }
        failed(error)
        continue
      }
      if case .quit? = request { return [] }  // nothing after `quit` runs
      // What follows a relaunch (or a move in time) runs on the host that replaced this one.
      if request?.replacesHost == true { return Array(commands[(index + 1)...]) }
    }
    return []
  }

  /// Runs one tokenized command without what a line does first (timers, other processes'
  /// saves): for tests of a session that acts without looking, as another process's would.
  @_spi(Testing)
  public func run(_ tokens: [CommandToken]) throws(CommandError) -> CommandOutput {
    try runReporting(tokens).output
  }

  /// Runs one tokenized command, and says whether it reports.
  ///
  /// - Parameter values: the arguments by name, bound elsewhere, when the words are only the
  ///   command's name (`run(command:arguments:in:)`); `nil` to bind the words after the name.
  func runReporting(
    _ tokens: [CommandToken], in window: String? = nil, values: [String: ArgumentValue]? = nil
  ) throws(CommandError) -> CommandResult {
    let resolved: ResolvedCommand
    let command: BoundCommand
    let directory = self.directory
    do {
      resolved = try resolver.resolve(tokens, in: directory, window: window)
    } catch {
      var usage = error
      usage.isUsageError = true
      throw usage
    }
    // What ran, success or failure, is reported once it is known (a recording listens).
    var bound: BoundCommand?
    var failure: CommandError?
    var request: SessionRequest?
    defer {
      if let commandObserver {
        var ran = RanCommand(
          words: Array(tokens.windowPrefix.rest), window: resolved.window, module: resolved.module,
          request: request, failure: failure)
        ran.command = bound
        ran.windowNamed = window != nil || tokens.windowPrefix.window != nil
        commandObserver(ran)
      }
    }
    do {
      if let values {
        command = try resolver.bind(resolved, values: values, in: directory)
      } else {
        command = try resolver.bind(resolved, in: directory)
      }
      bound = command
    } catch {
      var usage = error
      usage.isUsageError = true
      failure = usage
      throw usage
    }
    let window = resolved.window?.live
    let context = CommandContext(command: command, window: window, host: self)
    let content = window?.content
    content?.beginCommand()
    // Source changes a command causes reach every connected window before its frames are shown.
    defer { services.scheduler.flush() }
    let output: CommandOutput
    do {
      output = try resolved.spec.handler(context)
      services.scheduler.flush()
      content?.finishCommand(recordViewChange: !context.effects.steppedHistory)
      request = context.effects.request
    } catch {
      content?.abandonCommand()
      let refusal = CommandError(converting: error, column: resolved.nameToken.column)
      failure = refusal
      throw refusal
    }
    // What went wrong outside the command meanwhile (a module stopped as its timer ran) fails it.
    if let incident = services.takeIncidentMessage() {
      failure = CommandError(incident, column: resolved.nameToken.column)
      throw failure!
    }
    return CommandResult(output: output, reports: resolved.spec.reports, request: request)
  }

  /// The session's windows and documents, as the resolver reads them.
  public var directory: some WindowDirectory {
    LiveWindows(host: self, windows: windowList, documents: documents)
  }

  /// The words that could complete the word being typed at the end of `line` (see
  /// `CommandResolver.completions`).
  public func completions(for line: String) -> [String] {
    resolver.completions(for: line, in: directory)
  }

  /// What argument `position` of `arguments` may be for a command in the window labelled
  /// `window`, after the arguments `words`: what completion offers there, without a line to
  /// read (explore draws its arguments from it).
  public func candidates(at position: Int, of arguments: [ArgumentSpec], after words: [String], inWindow window: String)
    -> [String]
  {
    resolver.candidates(
      at: position, of: arguments, after: words, in: directory.findWindow(named: window), directory: directory)
  }

  /// What each candidate completing `line` names, for listing beside it: a book's title beside
  /// its id.
  public func completionLabels(for line: String, candidates: [String]) -> [String: String] {
    resolver.completionLabels(for: line, candidates: candidates, in: directory)
  }
}
