import WorkbenchModuleAPI

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
  package func results(line: String, in window: String? = nil) throws(CommandError) -> [CommandResult] {
    var results: [CommandResult] = []
    try run(line: line, in: window, continuingAfter: nil) { result throws(CommandError) in results.append(result) }
    return results
  }

  /// The one way a front end runs a line of text: due timers fire, scheduled source changes
  /// are delivered, and documents other processes saved are brought in, before the first
  /// command; then each command is read against the windows as they are by then and runs (in
  /// `window` unless it names one with `@NAME`), and its result (what it shows, whether it
  /// reports, what it asks of the session) goes to `handle` as soon as it has run. The line
  /// stops at the first error, or, with `continuingAfter`, reports it there and goes on
  /// (`--keep-going`); nothing after a `quit` runs.
  ///
  /// - Parameter takingLiveChanges: whether what live sources said changed comes in as the line
  ///   begins (a `live` command put in front); `false` for a driver that takes them in itself
  ///   between lines (explore, whose replay must take them at the same point).
  /// - Returns: the commands after a `relaunch`, not run: they are for the host that replaces
  ///   this one (`run(rest:continuingAfter:handle:)` on it).
  @discardableResult
  package func run(
    line: String, in window: String?, takingLiveChanges: Bool = true,
    continuingAfter failed: ((CommandError) -> Void)?, handle: (CommandResult) throws(CommandError) -> Void
  ) throws(CommandError) -> [LineCommand] {
    try beginLine()
    defer { clock.endLine() }
    var commands: [LineCommand] = []
    do throws(CommandSyntaxError) {
      for words in try CommandTokenizer.commands(in: line) { commands.append(.words(words, window: window)) }
    } catch {
      throw CommandError(error.message, column: error.column, isUsageError: true)
    }
    return try runBegun(commands, takingLiveChanges: takingLiveChanges, continuingAfter: failed, handle: handle)
  }

  /// Runs commands bound elsewhere (a scenario's step as the loader bound it, a step the journal
  /// replays, explore's) as a line: each finds its window again by how it named it, and what it
  /// names that the session has (windows, documents, ids) is checked again as it runs; nothing
  /// is read from text.
  ///
  /// - Returns: the commands after a `relaunch`, not run.
  @discardableResult
  package func run(
    commands: [BoundCommand], takingLiveChanges: Bool = true, continuingAfter failed: ((CommandError) -> Void)?,
    handle: (CommandResult) throws(CommandError) -> Void
  ) throws(CommandError) -> [LineCommand] {
    try beginLine()
    defer { clock.endLine() }
    var line: [LineCommand] = []
    line.reserveCapacity(commands.count + 1)
    for command in commands { line.append(.bound(command)) }
    return try runBegun(line, takingLiveChanges: takingLiveChanges, continuingAfter: failed, handle: handle)
  }

  /// Runs commands given as values (explore's) as a line: each is bound against the session's
  /// windows as it runs, as `run(commands:)` runs bound ones.
  ///
  /// - Returns: the commands after a `relaunch`, not run.
  @discardableResult
  package func run(
    calls: [CommandCall], takingLiveChanges: Bool = true, continuingAfter failed: ((CommandError) -> Void)?,
    handle: (CommandResult) throws(CommandError) -> Void
  ) throws(CommandError) -> [LineCommand] {
    try beginLine()
    defer { clock.endLine() }
    var line: [LineCommand] = []
    line.reserveCapacity(calls.count + 1)
    for call in calls { line.append(.call(call)) }
    return try runBegun(line, takingLiveChanges: takingLiveChanges, continuingAfter: failed, handle: handle)
  }

  /// A line's commands, once its work before them is done (`beginLine`).
  private func runBegun(
    _ commands: [LineCommand], takingLiveChanges: Bool, continuingAfter failed: ((CommandError) -> Void)?,
    handle: (CommandResult) throws(CommandError) -> Void
  ) throws(CommandError) -> [LineCommand] {
    var commands = commands
    // What live sources said changed comes in between commands, never during one, as a `live`
    // step of its own (shown, and written where a recording is made).
    if takingLiveChanges, !Self.isLive(commands.first), services.liveChangesWaitWhenAsked() {
      commands.insert(Self.liveCommand, at: 0)
    }
    return try run(rest: commands, continuingAfter: failed, handle: handle)
  }

  /// What a line does before its commands: its time set (due timers fire first, and a
  /// recording notes the time passed), then what other processes saved comes in and what that
  /// changed reaches every window. The caller ends the line (`clock.endLine()`) after its
  /// commands.
  private func beginLine() throws(CommandError) {
    clock.beginLine()
    do {
      try synchronize()
    } catch {
      clock.endLine()
      throw error
    }
    services.scheduler.flush()
  }

  /// The `live` command a line begins with when live sources said something changed.
  private static let liveCommand = LineCommand.words([CommandToken(text: "live", column: 1)], window: nil)

  /// Whether a line already begins with `live`.
  private static func isLive(_ command: LineCommand?) -> Bool {
    switch command {
    case .words(let words, _)?: return words.first?.text == "live"
    case .bound(let bound)?: return bound.module == nil && bound.name == "live"
    case .call(let call)?: return call.path == ["live"]
    case nil: return false
    }
  }

  /// Runs one command given by its spec's path (`["network", "fail"]`) and its arguments as
  /// values, as a line of that one command runs: what a module kit's session does with the
  /// command the workbench host sends it, so no line is read. The values are checked as words
  /// would be.
  ///
  /// - Parameter window: the window it runs in (by label or number); the focused one when `nil`.
  public func run(
    path: [String], arguments: [String: ArgumentValue], in window: String?
  ) throws(CommandError) -> CommandOutput {
    try beginLine()
    defer { clock.endLine() }
    if services.liveChangesWaitWhenAsked() { _ = try run(rest: [Self.liveCommand], continuingAfter: nil) { _ in } }
    let resolved: ResolvedCommand
    do throws(CommandError) {
      resolved = try resolver.resolve(path: path, in: directory, window: window)
    } catch {
      throw error.asUsage
    }
    return try dispatch.bindAndPerform(resolved, values: arguments).output
  }

  /// Runs commands in order, as a line does after its first steps: the rest of a line whose
  /// `relaunch` replaced the host it started on.
  ///
  /// - Returns: the commands after a `relaunch`, not run.
  @discardableResult
  package func run(
    rest commands: [LineCommand], continuingAfter failed: ((CommandError) -> Void)?,
    handle: (CommandResult) throws(CommandError) -> Void
  ) throws(CommandError) -> [LineCommand] {
    for (index, command) in commands.enumerated() {
      let request: SessionRequest?
      do throws(CommandError) {
        let result: CommandResult
        switch command {
        case .words(let words, let window):
          // In `window` unless the command names one itself: the window is given to the
          // resolver as a value, not written into the command as a word.
          result = try dispatch.run(words, in: words.first?.windowReference == nil ? window : nil)
        case .bound(let bound): result = try dispatch.execute(bound)
        case .call(let call):
          let resolved: ResolvedCommand
          do throws(CommandError) {
            let label: String? =
              switch call.target {
              case .focused: nil
              case .label(let label): label
              }
            resolved = try resolver.resolve(path: call.path, in: directory, window: label)
          } catch {
            throw error.asUsage
          }
          result = try dispatch.bindAndPerform(resolved, values: call.arguments)
        }
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
    try dispatch.run(tokens).output
  }

  /// How the host reads and runs one command.
  var dispatch: CommandDispatch { CommandDispatch(host: self) }

  /// The session's windows and documents, as the resolver reads them.
  public var directory: some WindowDirectory {
    LiveWindows(host: self, windows: windowList, documents: documents)
  }

  /// The words that could complete the word being typed at the end of `line`, in `window`
  /// unless the line names one (see `CommandResolver.partial`).
  public func completions(for line: String, in window: String? = nil) -> [String] {
    resolver.completions(for: line, in: directory, window: window)
  }

  /// Whether the word being typed at the end of `line` is a file name, for the front end to
  /// complete from the file system.
  public func completesFileName(_ line: String, in window: String? = nil) -> Bool {
    resolver.completesFileName(line, in: directory, window: window)
  }

  /// What each candidate completing `line` names, for listing beside it: a book's title beside
  /// its id.
  public func completionLabels(for line: String, candidates: [String], in window: String? = nil) -> [String: String] {
    resolver.completionLabels(for: line, candidates: candidates, in: directory, window: window)
  }
}
