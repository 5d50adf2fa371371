extension Host {
  /// Runs every command on a line, in order, stopping at the first error.
  ///
  /// - Returns: what each command produced.
  /// - Throws: `CommandError` (with the column it is about) for the first command that fails;
  ///   commands before it have run.
  public func run(line: String) throws(CommandError) -> [CommandOutput] {
    try results(line: line).map(\.output)
  }

  /// Runs every command on a line as `run(line:)` does; each command's result, with what it
  /// asked of the session.
  public func results(line: String) throws(CommandError) -> [CommandResult] {
    var results: [CommandResult] = []
    try run(line: line, in: nil, continuingAfter: nil) { result throws(CommandError) in results.append(result) }
    return results
  }

  /// The one way a front end runs a line: due timers fire, scheduled source changes are
  /// delivered, and documents other processes saved are brought in, before the first command;
  /// then each command runs in order (in `window` unless it names one with `@NAME`), and its
  /// result (what it shows, whether it reports, what it asks of the session) goes to `handle`
  /// as soon as it has run. The line stops at the first error, or, with `continuingAfter`, reports
  /// it there and goes on (`--keep-going`); nothing after a `quit` runs.
  public func run(
    line: String, in window: String?, continuingAfter failed: ((CommandError) -> Void)?,
    handle: (CommandResult) throws(CommandError) -> Void
  ) throws(CommandError) {
    clock.fireDue()
    // While recording, the time that passed up to here is what a replay's clock must move.
    clock.timeline?.lineStarts()
    try synchronize()
    // Changes the timers and other processes' saves caused reach every window before the
    // first command reads a frame.
    services.scheduler.flush()
    let commands: [[CommandToken]]
    do {
      commands = try CommandTokenizer.commands(in: line)
    } catch {
      throw CommandError(error.message, column: error.column, isUsageError: true)
    }
    lineCommands = commands
    for var tokens in commands {
      if let window, tokens.windowPrefix.window == nil {
        tokens.insert(CommandToken(text: "@" + window, column: 1), at: 0)
      }
      let request: SessionRequest?
      do {
        let result = try runReporting(tokens)
        request = result.request
        try handle(result)
      } catch {
        guard let failed else { throw error }
        failed(error)
        continue
      }
      if request == .quit { return }  // nothing after `quit` runs
    }
  }

  /// A command resolved against the host: which spec, which window, which argument words.
  struct ResolvedCommand {
    let spec: CommandSpec
    let window: Window?
    let nameToken: CommandToken
    let argumentTokens: [CommandToken]
  }

  /// Runs one tokenized command.
  public func run(_ tokens: [CommandToken]) throws(CommandError) -> CommandOutput {
    try runReporting(tokens).output
  }

  /// Runs one tokenized command, and says whether it reports.
  func runReporting(_ tokens: [CommandToken]) throws(CommandError) -> CommandResult {
    let resolved: ResolvedCommand
    let arguments: ParsedArguments
    do {
      resolved = try choosingSubcommand(try resolve(tokens))
      arguments = try bind(resolved)
    } catch {
      var usage = error
      usage.isUsageError = true
      throw usage
    }
    let context = CommandContext(arguments: arguments, window: resolved.window, host: self)
    let content = resolved.window?.content
    content?.beginCommand()
    // Source changes a command causes reach every connected window before its frames are shown.
    defer { services.scheduler.flush() }
    do {
      let output = try resolved.spec.handler(context)
      services.scheduler.flush()
      content?.finishCommand(recordViewChange: !context.effects.steppedHistory)
      return CommandResult(output: output, reports: resolved.spec.reports, request: context.effects.request)
    } catch var error as CommandError {
      content?.abandonCommand()
      // A run-time refusal points at its command, as a parse error points at its word.
      if error.column == nil { error.column = resolved.nameToken.column }
      throw error
    } catch let error as any UserFacingError {
      // A module's own error, meant for the user: converted here, once, for every module.
      content?.abandonCommand()
      throw CommandError(error.userMessage, column: resolved.nameToken.column)
    } catch {
      content?.abandonCommand()
      throw CommandError(String(describing: error), column: resolved.nameToken.column)
    }
  }

  func resolve(_ tokens: [CommandToken]) throws(CommandError) -> ResolvedCommand {
    var rest = tokens[...]
    var window = focusedWindow
    let prefix = rest.windowPrefix
    if let reference = prefix.window, let first = prefix.token {
      guard let target = self.window(named: reference) else {
        throw CommandError(
          "no window '\(reference)'" + suggestion(reference, in: windowLabels)
            + (windows.isEmpty ? ": no window is open" : ""),
          column: first.column)
      }
      window = target
      rest = prefix.rest
    }
    guard let nameToken = rest.first else {
      throw CommandError("a window reference needs a command after it", column: tokens[0].column)
    }
    let arguments = Array(rest.dropFirst())
    let name = nameToken.text
    switch router.route(name, screen: window?.screen.name) {
    case .success(let route):
      guard let module = route.module else {
        return ResolvedCommand(spec: route.spec, window: window, nameToken: nameToken, argumentTokens: arguments)
      }
      return ResolvedCommand(
        spec: route.spec, window: try self.window(for: route.spec, module: module, preferred: window, token: nameToken),
        nameToken: nameToken, argumentTokens: arguments)
    case .failure(let refusal):
      // A command of one module whose window is not open says which window it needs.
      if case .otherModules(_, let owners) = refusal, owners.count == 1,
        let spec = moduleCommands[owners[0]]?[name], case .window(let screens) = spec.scope,
        !windows.contains(where: { screens.contains($0.screen.name) })
      {
        _ = try self.window(for: spec, module: owners[0], preferred: nil, token: nameToken)
      }
      let place = window.map { "window \($0.label) shows \($0.screen.name)" } ?? "no window is open"
      var message = refusal.message(place: place)
      if case .unknown = refusal { message += " (type `help` for the list)" }
      throw CommandError(message, column: nameToken.column)
    }
  }

  /// The subcommand the first argument word names, for a command made of subcommands.
  func choosingSubcommand(_ command: ResolvedCommand) throws(CommandError) -> ResolvedCommand {
    let spec = command.spec
    guard !spec.subcommands.isEmpty, let word = command.argumentTokens.first else { return command }
    guard let named = spec.chosenSubcommand(word.text) else {
      let names = spec.subcommands.map(\.name)
      throw CommandError(
        "\(spec.name) has no subcommand '\(word.text)'" + suggestion(word.text, in: names) + " (it has "
          + names.joined(separator: ", ") + "). Usage: \(spec.usage)",
        column: word.column)
    }
    return ResolvedCommand(
      spec: named, window: command.window, nameToken: word, argumentTokens: Array(command.argumentTokens.dropFirst()))
  }

  /// The window a module command runs in: the preferred one when its screen fits, else the
  /// only open window that fits.
  private func window(for spec: CommandSpec, module: String, preferred: Window?, token: CommandToken)
    throws(CommandError) -> Window?
  {
    guard case .window(let screens) = spec.scope else { return preferred }
    if let preferred, screens.contains(preferred.screen.name) { return preferred }
    let fitting = windows.filter { screens.contains($0.screen.name) }
    let wanted = screens.joined(separator: " or ")
    if preferred == nil, fitting.count == 1 { return fitting[0] }
    if fitting.isEmpty {
      throw CommandError(
        "\(module).\(spec.name) needs a \(wanted) window, and none is open: open one with "
          + "`open \(screens[0]) DOCUMENT`",
        column: token.column)
    }
    let labels = fitting.map { "@" + $0.label }.joined(separator: ", ")
    throw CommandError(
      "\(module).\(spec.name) needs a \(wanted) window: put one of \(labels) in front",
      column: token.column)
  }

  var windowLabels: [String] { windowList.labels }
}
