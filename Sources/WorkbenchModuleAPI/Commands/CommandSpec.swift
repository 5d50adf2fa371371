/// What a command does once its arguments are parsed.
public enum CommandOutput: Equatable, Sendable {
  /// Show a window's frame (most commands: the window they ran in).
  case frame(WindowID)
  /// Show several windows side by side.
  case frames([WindowID])
  /// Print text.
  case text(String)
  /// Print text, then the windows it is about side by side (none: the text alone): `settle`
  /// and the windows its timers changed.
  case textWithFrames(String, [WindowID])
  /// Print a structured value (as JSON in JSON mode, as an outline otherwise).
  case value(FrameValue)
  /// A list or a record (`windows`, `documents`, `modules`, `state`): text for the terminal,
  /// and the same as a structured value, with its `type`, for `--json`.
  case listing(text: String, value: FrameValue)
  /// Nothing to show.
  case nothing
}

/// Where a command may run.
public enum CommandScope: Sendable {
  /// Anywhere; it does not need a window.
  case anywhere
  /// In a window showing one of the given screens (a module's own windows).
  case window(screens: [String])
}

/// A declared command: its name, arguments, help, and the handler that runs it.
///
/// Help, usage, completion, validation and did-you-mean suggestions all come from the spec,
/// so the shell, the scenario runner and the generated reference agree.
public struct CommandSpec: Sendable {
  /// The name typed to run the command.
  public let name: String
  /// The arguments, required ones first.
  public let arguments: [ArgumentSpec]
  /// One line that says what the command does.
  public let summary: String
  /// More help, shown by `help NAME`; may be empty.
  public let details: String
  /// Where the command may run.
  public let scope: CommandScope
  /// Runs the command.
  package let handler: @MainActor @Sendable (CommandContext) throws -> CommandOutput
  /// Whether the command's output is what it is run for (`frame`, `windows`, `help`), as
  /// opposed to the frame most commands show after acting; `--quiet` prints only these.
  public var reports = false
  /// What the command does to the set of windows, for checks made before anything runs (a
  /// scenario file's, which must know which windows later steps may name): opening one, of the
  /// screen an argument names or the one that follows from the screen it runs in, or closing one.
  /// The one declaration of window effects.
  public var windowEffect: WindowEffect?
  /// A command.
  public init(
    _ name: String,
    arguments: [any ArgumentDeclaration] = [],
    summary: String,
    details: String = "",
    scope: CommandScope = .anywhere,
    handler: @escaping @MainActor @Sendable (CommandContext) throws -> CommandOutput
  ) {
    self.name = name
    self.arguments = arguments.map(\.spec)
    self.summary = summary
    self.details = details
    self.scope = scope
    self.handler = handler
  }

  /// Subcommands, chosen by the first word after the name (`clock advance 2s`), each with its
  /// own arguments, help and handler. With none given, the command's own handler runs (`clock`
  /// alone shows the time); it refuses when a subcommand is required.
  public var subcommands: [CommandSpec] = []

  /// A command made of subcommands: `record start FILE`, `record stop`.
  ///
  /// - Parameter handler: what the name alone does; by default it asks for a subcommand.
  public init(
    _ name: String, subcommands: [CommandSpec], summary: String, details: String = "", scope: CommandScope = .anywhere,
    handler: (@MainActor @Sendable (CommandContext) throws -> CommandOutput)? = nil
  ) {
    let usage = name + " " + subcommands.map(\.usage).joined(separator: " | ")
    let words = subcommands.map(\.name).joined(separator: ", ")
    self.init(
      name, summary: summary, details: details, scope: scope,
      handler: handler ?? { _ in throw CommandError("\(name) needs a subcommand (\(words)). Usage: \(usage)") })
    self.subcommands = subcommands
    requiresSubcommand = handler == nil
  }

  /// Whether the name alone is refused (no default handler).
  public private(set) var requiresSubcommand = false

  /// The same command, marked as one that reports (see `reports`).
  public func reporting() -> CommandSpec {
    var spec = self
    spec.reports = true
    return spec
  }

  /// The subcommand a word names.
  public func subcommand(named word: String) -> CommandSpec? {
    subcommands.first { $0.name == word }
  }

  /// The subcommand `word` picks, named in full (`clock advance`, so its usage and messages say
  /// what to type) and keeping its window effect and whether it reports: the one way a
  /// subcommand is chosen, for running, checking a scenario and completion. `nil` when `word`
  /// names none.
  package func chosenSubcommand(_ word: String) -> CommandSpec? {
    guard let sub = subcommand(named: word) else { return nil }
    var named = CommandSpec(
      "\(name) \(sub.name)", arguments: sub.arguments, summary: sub.summary, details: sub.details,
      scope: sub.scope, handler: sub.handler)
    named.windowEffect = sub.windowEffect
    named.reports = sub.reports
    return named
  }

  /// The usage line: the name followed by each argument's usage, or by its subcommands'.
  package var usage: String {
    guard !subcommands.isEmpty else { return ([name] + arguments.map(\.usage)).joined(separator: " ") }
    let choices = subcommands.map(\.usage).joined(separator: " | ")
    return name + " " + (requiresSubcommand ? choices : "[\(choices)]")
  }
}

/// What a command does to the set of open windows, declared with the command so that a check
/// made before anything runs follows the windows a scenario will have.
public enum WindowEffect: Sendable {
  /// Opens a window showing the screen `screenArgument` names, named by `nameArgument` (its
  /// number when left out).
  case opens(screenArgument: String, nameArgument: String)
  /// Opens a window named by `nameArgument`, showing the screen `screens` gives for the screen
  /// the command runs in (a room window from a home window).
  case opensFrom(screens: [String: String], nameArgument: String)
  /// Closes the window `argument` names, or the one the command runs in.
  case closes(argument: String)
}
