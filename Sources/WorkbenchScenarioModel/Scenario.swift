import WorkbenchCore
import WorkbenchModuleAPI

/// One scenario, loaded and checked, ready to run.
public struct Scenario: Sendable {
  /// The scenario's name; with `examples:`, the row's values are appended.
  public var name: String
  /// Tags for `--tag` and `--exclude-tag`.
  public var tags: [String]
  /// Why the scenario is not run (`skip:`), `nil` when it is: reported as skipped, with the
  /// reason, as pytest reports a test marked skip.
  public var skip: String? = nil
  /// Where `scenario:` was written.
  public var location: SourceLocation
  /// Whether every frame change must be covered by an expectation.
  public var isExhaustive: Bool
  /// How many rows lists show at once (the shell's `--rows`).
  public var viewportRows: Int
  /// Documents set up before the first step (sample documents are there too).
  public var documents: [DocumentSeed]
  /// Windows opened before the first step, in order.
  public var windows: [WindowSeed]
  /// The steps, with includes and repeats expanded.
  public var steps: [Step]
  /// Which example row this is (0-based), when the scenario has `examples:`.
  public var exampleIndex: Int?
  /// Where that row is written (`- {id: 2}` under `examples:`).
  public var row: SourceLocation? = nil
  /// What names this scenario in a run: its row's place for a row of an `examples` table (each
  /// row is run, reported, traced, kept by `--last-failed` and selected by `FILE:LINE` on its
  /// own), else where `scenario:` is written.
  public var identity: SourceLocation { row ?? location }
  /// The number the first window a step opens gets (`nextWindow:`), when set.
  public var nextWindowNumber: Int? = nil
  /// The session's time when the scenario starts (`startsAt: 1500ms`): a recording begun
  /// mid-session keeps it, so its replay tells every module the same `now`. Zero when not set.
  public var startsAt: Duration? = nil
  /// Where the session's clock reads zero on the calendar (`date: 2026-12-07T09:00:00Z`): what
  /// a module reads as the date (`SessionTime.date`). A recording keeps the shell session's;
  /// `CalendarDate.scenarioDefault` when not set.
  public var date: CalendarDate? = nil
  /// The external facts a recording kept (`facts:`), served to the replay instead of live ones;
  /// `nil` for a scenario that is not a recording.
  public var facts: [SessionFacts.Key: [FrameValue]]? = nil
  /// Whether the scenario holds the seeds' first rule as a relation (`holds: rebuilt`): run
  /// again with its `reopen` steps left out, every window shows the same frame after every step
  /// as where the windows were opened again. Explore writes its rebuild findings so: the file
  /// passes on a sound module and fails on the bug.
  public var holdsRebuilt = false
  /// Whether the scenario holds that a session replays with equal frames (`holds: replayed`):
  /// run a second time, the same steps show every window the same after every step. A module
  /// that keeps what one session did for the next, or answers at random, breaks it.
  public var holdsReplayed = false
  /// Every window the scenario names, where it is declared (under `windows:`) or first opened
  /// (by a step whose command opens it), in that order: what an editor goes to and completes.
  public var declaredWindows: [DeclaredWindow] = []

  /// A scenario (a recording builds one to write it).
  public init(
    name: String, tags: [String] = [], location: SourceLocation, isExhaustive: Bool = false,
    viewportRows: Int = ScreenEnvironment.defaultViewportRows, documents: [DocumentSeed] = [],
    windows: [WindowSeed] = [], steps: [Step], exampleIndex: Int? = nil, nextWindowNumber: Int? = nil,
    facts: [SessionFacts.Key: [FrameValue]]? = nil
  ) {
    self.name = name
    self.tags = tags
    self.location = location
    self.isExhaustive = isExhaustive
    self.viewportRows = viewportRows
    self.documents = documents
    self.windows = windows
    self.steps = steps
    self.exampleIndex = exampleIndex
    self.nextWindowNumber = nextWindowNumber
    self.facts = facts
  }
}

/// A document a scenario sets up: its kind and its body as JSON.
public struct DocumentSeed: Sendable {
  public var name: String
  public var kind: String
  public var json: [UInt8]
  /// The revision it starts at (1 unless a recording says otherwise).
  public var revision: Int = 1
  public var location: SourceLocation

  /// A document seed.
  public init(name: String, kind: String, json: [UInt8], revision: Int = 1, location: SourceLocation) {
    self.name = name
    self.kind = kind
    self.json = json
    self.revision = revision
    self.location = location
  }
}

/// A window a scenario opens before its steps.
public struct WindowSeed: Sendable {
  public var name: String
  /// The window's number, when the scenario gives it (a recording keeps each window's).
  public var number: Int? = nil
  /// Whether the window has no name of its own (its key is its number).
  public var isUnnamed: Bool { number.map(String.init) == name }
  public var screen: String
  public var document: String
  /// A view state to start from, as JSON.
  public var state: String?
  /// The version the state was written by; the screen's current version when not given.
  public var stateVersion: Int?
  /// When set, restoring the state must fall back to a fresh view with a message containing
  /// this text (a corrupt or too-new record).
  public var expectedWarning: String?
  public var location: SourceLocation
  /// Where its name is written, when a file declared it.
  public var nameLocation: SourceLocation?

  /// A window seed; an unnamed window's `name` is its number.
  public init(
    name: String, number: Int? = nil, screen: String, document: String, state: String? = nil,
    stateVersion: Int? = nil, expectedWarning: String? = nil, location: SourceLocation,
    nameLocation: SourceLocation? = nil
  ) {
    self.nameLocation = nameLocation
    self.name = name
    self.number = number
    self.screen = screen
    self.document = document
    self.state = state
    self.stateVersion = stateVersion
    self.expectedWarning = expectedWarning
    self.location = location
  }
}

/// One step of a scenario.
public struct Step: Sendable {
  /// What the step does.
  public enum Action: Sendable {
    /// A command line run in a window (`left: select 2`).
    case command(window: String, line: String)
    /// A host command (`do: relaunch`).
    case host(line: String)
    /// Expected frames, by window.
    case expect([(window: String, expected: YAMLNode)])
    /// Text snapshots of windows, compared with a golden file.
    case snapshot(windows: [String])
  }

  public var action: Action
  /// Where the step was written (in an included file, that file).
  public var location: SourceLocation
  /// When set, the step must fail with a matching message.
  public var failure: FailureMatcher?
  /// The include and repeat steps this step was expanded from, outermost first, for messages.
  public var origin: [String]
  /// The commands of a `.command` or `.host` step's line, each read once and resolved where the
  /// step runs (empty for expectations and snapshots, and for a line that does not read as
  /// commands at all, which a step expected to fail may hold).
  public var commands: [StepCommand]

  /// A step.
  public init(
    action: Action, location: SourceLocation, failure: FailureMatcher? = nil, origin: [String] = [],
    commands: [StepCommand] = []
  ) {
    self.action = action
    self.location = location
    self.failure = failure
    self.origin = origin
    self.commands = commands
  }

  /// Each command of the line as the loader bound it against the windows planned at the step:
  /// what a runner runs, so the line is not read again. `nil` when one of them did not bind (a
  /// step expected to fail may hold an unknown command, or name a window the plan does not
  /// have): that step runs as its text, read against the session's windows, and fails as the
  /// text does.
  public var boundCommands: [BoundCommand]? {
    guard !commands.isEmpty else { return nil }
    var bound: [BoundCommand] = []
    bound.reserveCapacity(commands.count)
    for command in commands {
      guard let resolution = command.resolution else { return nil }
      bound.append(resolution.command)
    }
    return bound
  }

  /// `boundCommands`, those that name no window run in the step's window when the step has one
  /// (a step the journal kept from a command typed in the focused window runs in that window
  /// again, whichever is focused then).
  public var boundCommandsInItsWindow: [BoundCommand]? {
    guard case .command(let window, _) = action, let bound = boundCommands else { return boundCommands }
    return bound.map { $0.target == .focused ? $0.naming(window: window) : $0 }
  }

  /// The line of a `.command` or `.host` step, and the window it runs in (`nil` for a host
  /// step); `nil` for expectations and snapshots.
  public var line: (text: String, window: String?)? {
    switch action {
    case .command(let window, let line): return (line, window)
    case .host(let line): return (line, nil)
    case .expect, .snapshot: return nil
    }
  }
}

/// One command of a step, located in its file and, where it resolves, resolved against the
/// windows open at that step: the one model of a command that the runner, the journal, the
/// recorder and the language server read.
public struct StepCommand: Sendable {
  /// The command's words as the tokenizer read them (`@WINDOW` included), with their columns
  /// in the line.
  public var tokens: [CommandToken]
  /// Where the line starts in its file: a token's place is this line, at this column plus the
  /// token's column less one.
  public var lineStart: SourceLocation
  /// What the command is where it runs; `nil` when it does not resolve (a step expected to fail
  /// may say an unknown command on purpose).
  public var resolution: Resolution?
  /// What the words resolved to (spec, module, window, the words of each argument) when they
  /// resolved but did not bind (a number out of range in a step expected to fail): what a
  /// coverage count and an editor read of such a command.
  public var unbound: ResolvedCommand?

  /// The command the words name, bound or not: its spec, module, window and argument words.
  public var resolved: ResolvedCommand? { resolution?.command.resolved ?? unbound }

  /// A command as resolved and bound by the loader, against the windows planned at its step.
  /// (A class: a step's commands are copied whenever steps are, and a spec is many references.)
  public final class Resolution: Sendable {
    /// The command as the resolver bound it: spec, module, planned window and arguments.
    public let command: BoundCommand
    /// The window the command opens or closes when it succeeds.
    public let windowChange: WindowChange?

    /// A resolution of `command`, which changes the windows as `windowChange` says.
    public init(_ command: BoundCommand, windowChange: WindowChange?) {
      self.command = command
      self.windowChange = windowChange
    }

    /// The command (or subcommand) the words name.
    public var spec: CommandSpec { command.spec }
    /// The module that registered it; `nil` for a host command.
    public var module: String? { command.module }
    /// The window it runs in (the step's, or the one `@NAME` names), by label; `nil` for a
    /// command that runs in no window.
    public var window: String? { command.window?.label }
    /// The screen that window shows.
    public var screen: String? { command.window?.screen }
    /// The word that named the command (the subcommand's, for a subcommand).
    public var nameToken: CommandToken { command.resolved.nameToken }
    /// The arguments, bound to the spec's declarations.
    public var arguments: ParsedArguments { command.arguments }
  }

  /// A command read from a line starting at `lineStart`.
  public init(tokens: [CommandToken], lineStart: SourceLocation, resolution: Resolution? = nil) {
    self.tokens = tokens
    self.lineStart = lineStart
    self.resolution = resolution
  }

  /// Where a token of the command stands in its file.
  public func location(of token: CommandToken) -> SourceLocation {
    var location = lineStart
    location.column = OutsideNumbers.saturatingSum(lineStart.column, token.column - 1)
    return location
  }

  /// The columns the command covers on its line (1-based, the end one past its last
  /// character), from its first word to the end of its last.
  public var columns: Range<Int> {
    guard let first = tokens.first, let last = tokens.last else { return lineStart.column..<lineStart.column }
    let start = location(of: first).column
    let end = OutsideNumbers.saturatingSum(location(of: last).column, last.text.count + (last.wasQuoted ? 2 : 0))
    return start..<max(start, end)
  }

  /// Whether the command's name word covers `column` (1-based) of its line.
  public func namesCommand(at column: Int) -> Bool {
    guard let token = resolution?.nameToken else { return false }
    let start = location(of: token).column
    return column >= start && column < start + token.text.count
  }
}

/// A window a scenario names: its label, its screen, and where it is declared or first opened.
public struct DeclaredWindow: Sendable, Equatable {
  public var name: String
  public var screen: String
  public var location: SourceLocation

  /// A declared window.
  public init(name: String, screen: String, location: SourceLocation) {
    self.name = name
    self.screen = screen
    self.location = location
  }
}

/// What an expected failure's message must contain: text, or a regular expression.
public enum FailureMatcher: Sendable, CustomStringConvertible {
  case substring(String)
  case pattern(String)

  /// Whether `message` matches.
  public func matches(_ message: String) -> Bool {
    switch self {
    case .substring(let text): return message.contains(text)
    case .pattern(let pattern):
      guard case .success(let regex) = RegexLimits.compile(pattern) else { return false }
      return regex.matches(in: message)
    }
  }

  public var description: String {
    switch self {
    case .substring(let text): return "'\(text)'"
    case .pattern(let pattern): return "/\(pattern)/"
    }
  }
}
