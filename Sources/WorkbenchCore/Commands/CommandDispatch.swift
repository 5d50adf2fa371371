import WorkbenchModuleAPI

/// How the host reads and runs one command: words read against the session's windows, a command
/// bound elsewhere bound again against them (only what is live is checked again), values bound to
/// a resolved command; then the command's handler, run as the module that registered it, with the
/// window's view history kept and what it caused delivered to every window. Each command that
/// ran, success or failure, is reported to the host's observer (`RanCommand`). The host runs
/// lines through it (`Host+Dispatch`); it holds nothing of its own.
@MainActor
struct CommandDispatch {
  let host: Host

  /// Reads one command's words against the session's windows and runs it.
  func run(_ tokens: [CommandToken], in window: String? = nil) throws(CommandError) -> CommandResult {
    let directory = host.directory
    let resolved: ResolvedCommand
    do {
      resolved = try host.resolver.resolve(tokens, in: directory, window: window)
    } catch {
      throw error.asUsage
    }
    let command: BoundCommand
    do {
      command = try host.resolver.bind(resolved, in: directory)
    } catch {
      // A command whose arguments did not bind ran, and failed: a recording keeps it.
      host.commandObserver?(RanCommand(resolved: resolved, failure: error.asUsage))
      throw error.asUsage
    }
    return try perform(command)
  }

  /// Runs a command bound elsewhere: bound again against the session's windows first, which
  /// checks only what is live.
  func execute(_ command: BoundCommand) throws(CommandError) -> CommandResult {
    let directory = host.directory
    let resolved: ResolvedCommand
    do {
      resolved = try host.resolver.relocate(command.resolved, in: directory)
    } catch {
      throw error.asUsage
    }
    let here: BoundCommand
    do {
      here = try host.resolver.rebind(command, at: resolved, in: directory)
    } catch {
      host.commandObserver?(RanCommand(resolved: resolved, values: command.call, failure: error.asUsage))
      throw error.asUsage
    }
    return try perform(here)
  }

  /// Runs a command bound against the session's windows as they are: its handler, as the module
  /// that registered it; the window's view history; what it caused reaching every window.
  private func perform(_ command: BoundCommand) throws(CommandError) -> CommandResult {
    let resolved = command.resolved
    // What ran, success or failure, is reported once it is known (a recording listens).
    var failure: CommandError?
    var request: SessionRequest?
    defer {
      host.commandObserver?(RanCommand(resolved: resolved, command: command, request: request, failure: failure))
    }
    let window = resolved.window?.live
    let context = CommandContext(arguments: command.arguments, window: window, runtime: host, command: command)
    let content = window?.content
    content?.beginCommand()
    // Source changes a command causes reach every connected window before its frames are shown.
    defer { host.services.scheduler.flush() }
    // The timers the command sets and cancels are its window's, kept with its view-history step.
    let clock = host.clock
    let noted = window.map { ($0.id.number, clock.beginChanges()) }
    func timerChanges() -> TimerChanges? { noted.flatMap { clock.changes(since: $0.1, window: $0.0) } }
    let output: CommandOutput
    do {
      // The command's code runs as the module that registered it (the host's own: `nil`), in its
      // window.
      output = try clock.inWindow(noted?.0 ?? clock.actingWindow) { () throws(any Error) in
        try host.acting(as: resolved.module) { () throws(any Error) in try resolved.spec.handler(context) }
      }
      host.services.scheduler.flush()
      content?.finishCommand(recordViewChange: !context.effects.steppedHistory, timers: timerChanges())
      request = context.effects.request as? SessionRequest
    } catch {
      _ = timerChanges()
      content?.abandonCommand()
      let refusal = CommandError(converting: error, column: resolved.nameToken.column)
      failure = refusal
      throw refusal
    }
    // What went wrong outside the command meanwhile (a module stopped as its timer ran) fails it.
    if let incident = host.services.takeIncidentMessage() {
      // The command did its work; what went wrong besides it fails the step, and what it did stays.
      var refusal = CommandError(incident, column: resolved.nameToken.column)
      refusal.isPartial = true
      failure = refusal
      throw refusal
    }
    return CommandResult(output: output, reports: resolved.spec.reports, request: request)
  }

  /// Binds values to a resolved command against the session's windows and runs it; a value the
  /// spec refuses fails the command (reported: it ran, and failed).
  func bindAndPerform(_ resolved: ResolvedCommand, values: [String: ArgumentValue]) throws(CommandError)
    -> CommandResult
  {
    let command: BoundCommand
    do {
      command = try host.resolver.bind(resolved, values: values, in: host.directory)
    } catch {
      let call = CommandCall(path: resolved.path, spec: resolved.spec, target: resolved.target, arguments: values)
      host.commandObserver?(RanCommand(resolved: resolved, values: call, failure: error.asUsage))
      throw error.asUsage
    }
    return try perform(command)
  }
}

extension CommandError {
  /// The error as one about how the command was written (its window, its name, its words).
  var asUsage: CommandError {
    var usage = self
    usage.isUsageError = true
    return usage
  }
}
