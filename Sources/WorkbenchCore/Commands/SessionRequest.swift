import WorkbenchModuleAPI

/// What a command asks of the session beyond showing something: the session carries it out
/// (`WorkbenchSession.run`) and hands what needs a front end to it. Kept apart from what a
/// command shows (`CommandOutput`): a command returns what to show and, through its context,
/// what the session must do (`CommandContext.request`).
package enum SessionRequest: Equatable, Sendable {
  /// End the session; with windows holding unsaved work, do with it what `unsaved` says, or
  /// (`nil`) ask as `unsavedWork` does.
  case quit(unsaved: LeaveChoice?)
  /// Save the session, tear the host down and restore it.
  case relaunch
  /// Start recording the commands that follow into a scenario file, writing over one that
  /// exists only when `replacing`.
  case recordStart(path: String, replacing: Bool)
  /// Stop recording and write the scenario.
  case recordStop
  /// These windows hold unsaved work, and the command (closing a window, ending the session)
  /// needs a choice: the shell asks; scripts and scenarios must state it.
  case unsavedWork(windows: [WindowID], quitting: Bool)
  /// Something only the front end that brought the command does (the shell's `source`,
  /// `history`, `set`): the session hands it on as it is.
  case frontEnd(FrontEndRequest)
  /// Move the session to another of its steps, or list them (time travel, in the shell).
  case travel(TravelRequest)

  /// Whether the commands after this one on the line run on another host (`relaunch`, a move
  /// in time).
  package var replacesHost: Bool {
    switch self {
    case .relaunch: return true
    case .travel(let request): return request.moves
    default: return false
    }
  }
}

/// What `back`, `forward`, `goto` and `steps` ask of a session that keeps its steps.
package enum TravelRequest: Equatable, Sendable {
  /// Back `count` steps.
  case back(Int)
  /// Forward `count` steps.
  case forward(Int)
  /// To step `number` (0: where the session started).
  case goto(Int)
  /// List the steps (`nil`), or say what step `number` changed.
  case steps(Int?)

  /// Whether the session moves.
  package var moves: Bool {
    if case .steps = self { return false }
    return true
  }
}

/// What a front end's own command asks of it (the shell's `source`, `history`, `set`,
/// `watch`): a value of the front end's own type, carried by the session without being read.
package struct FrontEndRequest: Equatable, Sendable {
  /// The request, in the front end's type (the shell reads it back as its `ShellRequest`).
  package let value: any Sendable
  private let isEqual: @Sendable (any Sendable) -> Bool

  /// A request of the front end's own type.
  package init<Request: Equatable & Sendable>(_ value: Request) {
    self.value = value
    isEqual = { ($0 as? Request) == value }
  }

  package static func == (left: FrontEndRequest, right: FrontEndRequest) -> Bool { left.isEqual(right.value) }
}

/// What one command produced, and whether it reports (see `CommandSpec.reports`).
package struct CommandResult: Equatable, Sendable {
  package let output: CommandOutput
  package let reports: Bool
  /// What the command asked of the session, if anything.
  package let request: SessionRequest?

  package init(output: CommandOutput, reports: Bool, request: SessionRequest? = nil) {
    self.output = output
    self.reports = reports
    self.request = request
  }
}

extension CommandContext {
  /// Asks the session to do something once the command returns (quit, relaunch, record, ask
  /// about unsaved work); returns `.nothing`, what such a command shows. The host's own
  /// commands' (and a front end's): a module's command asks nothing of the session.
  package func request(_ request: SessionRequest) -> CommandOutput {
    effects.request = request
    return .nothing
  }
}
