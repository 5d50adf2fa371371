import WorkbenchCore
import WorkbenchModuleAPI

/// What the shell's own commands ask of it: carried by the session, unread, from the command
/// to the shell (`ShellController.carryOut`).
enum ShellRequest: Equatable, Sendable {
  /// Run the commands in a file, a line at a time.
  case source(path: String)
  /// List the last `count` lines of the history (20 when `nil`).
  case history(count: Int?)
  /// Set a shell option (`json`, `color`, `quiet`, `keep-going`, `echo`) on or off; list them
  /// all when `option` is `nil`.
  case set(option: String?, on: Bool?)
  /// Print lists as `text`, `json`, `csv` or `table` from now on.
  case output(String)
  /// Run `line` every `interval` and show what changed, until a key or Ctrl-C (psql's `\watch`).
  case watch(interval: Duration, line: String)
}

/// The commands the shell brings to the sessions it runs (interactive and piped), beside the
/// host's and the modules': a scenario's session has none of them, and the host refuses each
/// there with the reason it keeps (`HostCommands.frontEndOnly`).
enum ShellCommands {
  /// Every one, in the order `help` lists them.
  static let all: [CommandSpec] = [record, source, history, set, watch, quit, exit]

  /// The modules' registry with the shell's commands.
  @MainActor static func registry(modules: [any FeatureModule]) throws(RegistrationError) -> ModuleRegistry {
    try ModuleRegistry(modules: modules).bringing(frontEnd: all)
  }

  /// What a shell command returns: its request to the shell, carried through the session.
  @MainActor static func ask(_ context: CommandContext, _ request: ShellRequest) -> CommandOutput {
    context.request(.frontEnd(FrontEndRequest(request)))
  }

  // MARK: Leaving

  static let quitUnsaved = Argument<String>.choice(
    "unsaved", ["save", "discard", "keep", "force"],
    help: "for windows with unsaved work: save, discard (force), or keep the drafts for next time"
  ).optional

  static let quit = CommandSpec(
    "quit", arguments: [quitUnsaved],
    summary: "End the session",
    details: "With unsaved work in any window the shell asks what to do; scripts say `quit save`, `quit discard` "
      + "or `quit keep` (drafts are view state, so kept drafts come back with the session)."
  ) { context in
    let choice: LeaveChoice? =
      switch context.arguments[quitUnsaved] {
      case nil: nil
      case "save": .save
      case "keep": .keep
      default: .discard
      }
    return context.request(.quit(unsaved: choice))
  }

  /// `exit`, as `quit` (the word other shells use).
  static let exit = CommandSpec(
    "exit", arguments: [quitUnsaved], summary: "End the session, as `quit` does", details: quit.details,
    handler: quit.handler)

  // MARK: Recording

  static let recordFile = Argument<String>.file("file", help: "the scenario file to write")

  static let record = CommandSpec(
    "record", subcommands: [recordStart, recordStop],
    summary: "Record the commands that follow as a scenario file",
    details:
      "`record start FILE` begins (an existing FILE is refused: `record start FILE replace` writes over it); "
      + "`record stop` writes the scenario, ending with the final frames.")

  static let recordReplace = Argument<String>.choice(
    "replace", ["replace"], help: "write over FILE when it exists (otherwise an existing FILE is refused)"
  ).optional

  static let recordStart = CommandSpec(
    "start", arguments: [recordFile, recordReplace], summary: "Start recording into FILE"
  ) { context in
    context.request(
      .recordStart(path: context.arguments[recordFile], replacing: context.arguments[recordReplace] != nil))
  }

  static let recordStop = CommandSpec(
    "stop", summary: "Stop recording and write the scenario; says where, with how many steps and facts"
  ) { context in
    context.request(.recordStop)
  }

  // MARK: The shell's own

  static let sourceFile = Argument<String>.file("file", help: "a file of commands, one line each")
  static let source = CommandSpec(
    "source", arguments: [sourceFile], summary: "Run the commands in a file, a line at a time",
    details: "Errors name FILE:LINE:COLUMN; the file stops at its first error unless --keep-going."
  ) { context in ask(context, .source(path: context.arguments[sourceFile])) }

  static let watchedLine = Argument<String>.rest(
    "command", help: "the command to run again, after an interval (2s when left out)")
  static let watch = CommandSpec(
    "watch", arguments: [watchedLine],
    summary: "Run a command again and again, showing what changed, until a key or Ctrl-C",
    details: "`watch 500ms frame` runs `frame` every half second on the session's clock and marks the lines "
      + "that changed since the run before, as psql's \\watch does; `watch frame` waits 2 s. Any key or Ctrl-C stops."
  ) { context in
    var words = context.arguments[watchedLine].split(separator: " ", maxSplits: 1).map(String.init)
    var interval = Duration.seconds(2)
    if let first = words.first, let given = SessionClock.parseDuration(first) {
      guard given >= .milliseconds(100), given <= .seconds(3600) else {
        throw CommandError("the interval is from 100ms to 1h, not \(first)")
      }
      interval = given
      words.removeFirst()
    }
    guard let line = words.first, !line.allSatisfy(\.isWhitespace) else {
      throw CommandError("say what to run: `watch 1s frame`")
    }
    return ask(context, .watch(interval: interval, line: line))
  }

  static let historyCount = Argument<Int>.integer("count", in: 1...100_000, help: "how many (20 when left out)")
    .optional
  static let history = CommandSpec(
    "history", arguments: [historyCount], summary: "List the last lines typed at the prompt",
    details: "The session's steps, with the windows each changed, are `travel steps`."
  ) { context in ask(context, .history(count: context.arguments[historyCount])) }
  .reporting()

  static let settableOptions = ["json", "color", "quiet", "keep-going", "echo", "output"]
  /// How lists are printed (`set output MODE`, `--output MODE`).
  static let outputModes = ["text", "json", "csv", "table"]
  static let switchValue = Argument<String>.choice("value", ["on", "off"], help: "on or off")
  static let outputMode = Argument<String>.choice("mode", outputModes, help: "text, json, csv or table")

  /// `set NAME on|off`: each option its own subcommand, so `set json <Tab>` offers `on off` and
  /// `set output <Tab>` the modes (it offered both to every option).
  static func switchOption(_ name: String, _ summary: String) -> CommandSpec {
    CommandSpec(name, arguments: [switchValue], summary: summary) { context in
      ask(context, .set(option: name, on: context.arguments[switchValue] == "on"))
    }
    .reporting()
  }

  static let set = CommandSpec(
    "set",
    subcommands: [
      switchOption("json", "Print frames as JSON lines"), switchOption("color", "Use colour on a terminal"),
      switchOption("quiet", "Print only what was asked for"),
      switchOption("keep-going", "Go on after a command fails (the run still fails)"),
      switchOption("echo", "Print each line after a prompt, as typed"),
      CommandSpec(
        "output", arguments: [outputMode],
        summary: "Print lists (documents, windows, modules, a window's rows) as text, JSON lines, CSV or a table"
      ) { context in ask(context, .output(context.arguments[outputMode])) }
      .reporting(),
    ],
    summary: "Turn a shell option on or off for this session, or list them",
    details: "Options: json (frames as JSON lines), color, quiet (only what was asked for), keep-going, echo; "
      + "`set output text|json|csv|table` prints lists (documents, windows, modules) as text, JSON lines, CSV "
      + "or an aligned table, for piping to other tools."
  ) { context in
    ask(context, .set(option: nil, on: nil))
  }
  .reporting()
}
