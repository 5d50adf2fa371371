import WorkbenchModuleAPI

/// The commands every session has, whatever modules are loaded.
enum HostCommands {
  /// The host's commands, in the order `help` lists them, each by its name and how to build it:
  /// a command is built the first time it is needed, so a start that runs `open` does not
  /// build the other sixteen (a test holds each name to its command's).
  static let table: [Entry] = [
    .looking("help") { help.reporting() }, .looking("modules") { modules.reporting() },
    .looking("documents") { documents.reporting() }, .acting("open") { open },
    .looking("windows") { windows.reporting() }, .acting("focus") { focus }, .acting("close") { close },
    .looking("show") { show.reporting() }, .looking("frame") { frame.reporting() },
    .looking("state") { state.reporting() }, .acting("undo") { undo }, .acting("redo") { redo },
    .acting("clock") { clock.reporting() }, .acting("settle") { settle }, .acting("live") { live },
    .acting("relaunch") { relaunch }, .acting("reopen") { reopen },
    .acting("restart-module") { restartModule },
    // In the shell, and in a scenario (the runner keeps the steps of one that travels).
    .looking("travel") { travel.reporting() },
  ]

  /// One host command: its name, whether it only shows something (a time-travel journal does
  /// not count such a command as a step), and how to build it.
  struct Entry: Sendable {
    let name: String
    let onlyLooks: Bool
    let make: @MainActor @Sendable () -> CommandSpec

    static func looking(_ name: String, _ make: @escaping @MainActor @Sendable () -> CommandSpec) -> Entry {
      Entry(name: name, onlyLooks: true, make: make)
    }

    static func acting(_ name: String, _ make: @escaping @MainActor @Sendable () -> CommandSpec) -> Entry {
      Entry(name: name, onlyLooks: false, make: make)
    }
  }

  /// A command only a front end runs: its name, whether it only shows something, and why a
  /// session without that front end (a scenario's) refuses it.
  struct FrontEndCommand: Sendable {
    let name: String
    let onlyLooks: Bool
    let reason: String

    static func looking(_ name: String, because reason: String) -> FrontEndCommand {
      FrontEndCommand(name: name, onlyLooks: true, reason: reason)
    }

    static func acting(_ name: String, because reason: String) -> FrontEndCommand {
      FrontEndCommand(name: name, onlyLooks: false, reason: reason)
    }
  }

  /// The commands a front end brings (the shell's `record`, `source`, `history`, `set`,
  /// `watch`, `quit`, `exit`: `ModuleRegistry.bringing(frontEnd:)`), with why a session without
  /// that front end refuses each. The core keeps only these names and reasons: a scenario that
  /// uses one is refused with its reason when it is checked, and no module may take the name.
  static let frontEndOnly: [FrontEndCommand] = [
    .acting("record", because: "`record` works in the shell; a scenario is a recording already"),
    .acting("source", because: "`source` works in the shell; a scenario lists its steps, or includes a flow"),
    .looking("history", because: "`history` works in the shell, which keeps the lines typed"),
    .looking("set", because: "`set` changes how the shell prints; a scenario asserts on frames"),
    .looking("watch", because: "`watch` works at the shell's prompt, where a key stops it"),
    .acting("quit", because: "`quit` ends a shell session; a scenario ends after its last step"),
    .acting("exit", because: "`exit` ends a shell session; a scenario ends after its last step"),
  ]

  /// The host's command names, known without building any command.
  static let names: Set<String> = Set(table.map(\.name))

  /// Whether no module may take `name`: a host command's, or one a front end brings. (Looked up
  /// in the two tables, which a start reads anyway: a set made of them cost a start more than
  /// the lookups it saves.)
  static func isReserved(_ name: String) -> Bool {
    table.contains { $0.name == name } || frontEndOnly.contains { $0.name == name }
  }

  /// Why a session without its front end refuses the front-end command `name`; `nil` for any
  /// other name.
  static func frontEndReason(_ name: String) -> String? {
    frontEndOnly.first { $0.name == name }?.reason
  }

  /// The host's commands that only show something (`clock` without `advance` too), and the
  /// front ends' that do: a time-travel journal does not count them as steps. Read from the
  /// tables.
  static let lookingNames: Set<String> = Set(
    table.filter(\.onlyLooks).map(\.name) + frontEndOnly.filter(\.onlyLooks).map(\.name))

  /// Whether a host command only looks at the session.
  static func onlyLooks(_ spec: CommandSpec) -> Bool {
    // A subcommand's full name starts with its command's (`travel back`); `clock` alone shows
    // the time, and its subcommands (`clock advance`) move it.
    let command = spec.name.prefix { $0 != " " }
    return lookingNames.contains(String(command)) || spec.name == "clock"
  }

  /// Where each name is in `table`.
  private static let positions: [String: Int] = Dictionary(
    table.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { first, _ in first })

  /// The host's command named `name`, built now.
  @MainActor static func spec(named name: String) -> CommandSpec? {
    positions[name].map { table[$0].make() }
  }

  /// Every host command, in `help`'s order.
  @MainActor static var all: [CommandSpec] { table.map { $0.make() } }

  static let helpTopic = Argument<String>.command("command", help: "a command name").optional

  static let help = CommandSpec(
    "help", arguments: [helpTopic],
    summary: "List the commands, or show how to use one",
    details: "Without an argument, lists the host's commands and those of the focused window's module "
      + "(every module's when no window is open); `help MODULE` lists a module's commands."
  ) { context in
    if let name = context.arguments[helpTopic] {
      return .text(try context.host.helpText(for: name, in: context.window))
    }
    return .text(context.host.helpOverview(for: context.window))
  }

  static let modules = CommandSpec("modules", summary: "List the loaded modules") { context in
    let manifests = context.host.manifests
    let rows = manifests.map { "\($0.name) \($0.version)  \($0.summary)" }
    let value: FrameValue = [
      "type": "modules",
      "modules": .list(
        manifests.map { ["name": .string($0.name), "version": .string($0.version), "summary": .string($0.summary)] }),
    ]
    return .listing(text: rows.joined(separator: "\n"), value: value)
  }

  static let documents = CommandSpec(
    "documents", subcommands: [documentsRemove],
    summary: "List the documents, their kinds, revisions and the windows on them; `documents remove NAME` deletes one",
    details: "A document shown in windows is removed only with `force`, which closes them (unsaved drafts in them "
      + "are lost). A removed sample does not come back at the next start."
  ) { context in
    let host = context.host
    var rows: [String] = []
    var values: [FrameValue] = []
    for name in host.documentNames {
      guard let entry = host.documents[name] else { continue }
      let showing = host.windows.filter { $0.documentName == name }.map(\.label)
      let windows = showing.isEmpty ? "" : "  shown in " + showing.map { "@" + $0 }.joined(separator: ", ")
      rows.append("\(name)  \(entry.kind)  revision \(entry.revision)\(windows)")
      values.append([
        "name": .string(name), "kind": .string(entry.kind), "revision": .integer(entry.revision),
        "windows": .list(showing.map(FrameValue.string)),
      ])
    }
    // Documents of modules not loaded are listed too, marked with whose they are.
    for document in host.dormantDocuments {
      let owner = host.knownModules.owner(ofKind: document.kind)
      let dormant = [KnownModule].dormantMark(owner: owner)
      rows.append("\(document.name)  \(document.kind)  revision \(document.revision)  \(dormant)")
      values.append([
        "name": .string(document.name), "kind": .string(document.kind), "revision": .integer(document.revision),
        "windows": [], "dormant": .string(owner?.name ?? ""),
      ])
    }
    return .listing(
      text: rows.isEmpty ? "no documents" : rows.joined(separator: "\n"),
      value: ["type": "documents", "documents": .list(values)])
  }

  static let removedDocument = Argument<String>.document("document", help: "the document to remove")
  static let removeForce = Argument<String>.choice("force", ["force"], help: "close the windows on it").optional
  static let documentsRemove = CommandSpec(
    "remove", arguments: [removedDocument, removeForce],
    summary: "Remove a document from the workspace (with `force`, closing the windows on it)"
  ) { context in
    let name = context.arguments[removedDocument]
    try context.host.removeDocument(named: name, closingWindows: context.arguments[removeForce] != nil)
    return .listing(
      text: "removed document \(name)", value: ["type": "removed", "document": .string(name)])
  }

  static let openScreen = Argument<String>.screen("screen", help: "the screen to show")
  static let openDocument = Argument<String>.document("document", help: "the document to show")
  static let openName = Argument<String>.word("name", help: "a name to type instead of the window's number").optional

  static let open = {
    var spec = openSpec
    spec.windowEffect = .opens(screenArgument: openScreen.spec.name, nameArgument: openName.spec.name)
    return spec
  }()

  static let openSpec = CommandSpec(
    "open", arguments: [openScreen, openDocument, openName],
    summary: "Open a window showing a document, and focus it",
    details: "Each window has its own view state: two windows on one document filter and select independently."
  ) { context in
    let arguments = context.arguments
    let window = try context.host.openWindow(
      screen: arguments[openScreen], document: arguments[openDocument], name: arguments[openName])
    return .frame(window.id)
  }

  static let windows = CommandSpec("windows", summary: "List the open windows") { context in
    let host = context.host
    let rows = host.windows.map { window in
      let marker = window.id == host.focusedWindowID ? "*" : " "
      let name = window.name.map { " \($0)" } ?? ""
      return "\(marker) [\(window.id.number)\(name)] \(window.screen.name) \(window.documentName)"
    }
    var values = host.windows.map { window -> FrameValue in
      [
        "number": .integer(window.id.number), "name": FrameValue(window.name), "screen": .string(window.screen.name),
        "document": .string(window.documentName), "focused": .bool(window.id == host.focusedWindowID),
      ]
    }
    // Windows of a module that is not loaded wait, dormant, and are listed as such.
    var dormantRows: [String] = []
    for window in host.dormantWindows {
      let owner = host.knownModules.owner(ofScreen: window.screen)
      let dormant = [KnownModule].dormantMark(owner: owner)
      let name = window.name.map { " \($0)" } ?? ""
      dormantRows.append("  [\(window.number)\(name)] \(window.screen) \(window.document)  \(dormant)")
      values.append([
        "number": .integer(window.number), "name": FrameValue(window.name), "screen": .string(window.screen),
        "document": .string(window.document), "focused": false, "dormant": .string(owner?.name ?? ""),
      ])
    }
    let listed = rows + dormantRows
    return .listing(
      text: listed.isEmpty ? "no windows are open (see `help open`)" : listed.joined(separator: "\n"),
      value: ["type": "windows", "windows": .list(values)])
  }

  static let focusWindow = Argument<WindowID>.window("window", help: "a window name or number")

  static let focus = CommandSpec(
    "focus", arguments: [focusWindow], summary: "Make a window the one commands run in"
  ) { context in
    let id = context.arguments[focusWindow]
    context.host.focus(id)
    return .frame(id)
  }

  static let leaveWords = ["save", "discard", "force"]

  static let closeWindow = Argument<WindowOrWord>.windowOr(
    "window", leaveWords, help: "default: the focused window"
  ).optional
  static let closeUnsaved = Argument<String>.choice(
    "unsaved", leaveWords, help: "for a window with unsaved work: save it first, or discard it (force is discard)"
  ).optional

  static let close = {
    var spec = closeSpec
    spec.windowEffect = .closes(argument: closeWindow.spec.name)
    return spec
  }()

  static let closeSpec = CommandSpec(
    "close", arguments: [closeWindow, closeUnsaved],
    summary: "Close a window; its view state goes with it",
    details: "A window with unsaved work (a draft) is not closed until you say what to do with it: the shell "
      + "asks; scripts and scenarios say `close WINDOW save` or `close WINDOW discard`."
  ) { context in
    let host = context.host
    var choice = context.arguments[closeUnsaved]
    var named: Window?
    switch context.arguments[closeWindow] {
    case .window(let id)?: named = host.window(id)
    case .word(let word)?: choice = choice ?? word  // `close save`: the focused window
    case nil: break
    }
    let window = try named ?? context.requireWindow()
    if host.unsavedSummary(of: window.id) != nil {
      guard let choice else { return context.request(.unsavedWork(windows: [window.id], quitting: false)) }
      try host.leave(window.id, choice: choice == "save" ? .save : .discard)
    }
    host.closeWindow(window.id)
    return host.focusedWindowID.map(CommandOutput.frame) ?? .text("no windows are open")
  }

  static let showFirst = Argument<WindowID>.window("window", help: "the first window (default: the focused one)")
    .optional
  static let showOther = Argument<WindowID>.window("other", help: "a second window, shown beside the first").optional

  static let show = CommandSpec(
    "show", arguments: [showFirst, showOther], summary: "Show one window's frame, or two side by side"
  ) { context in
    guard let first = context.arguments[showFirst] ?? context.host.focusedWindowID else {
      throw CommandError("no window is open: open one first (see `help open`)")
    }
    guard let other = context.arguments[showOther] else { return .frame(first) }
    return .frames([first, other])
  }

  static let targetWindow = Argument<WindowID>.window("window", help: "default: the focused window").optional

  static let frame = CommandSpec(
    "frame", arguments: [targetWindow], summary: "Print a window's structured frame, the value scenarios assert on"
  ) { context in
    let window = try context.arguments[targetWindow].flatMap(context.host.window) ?? context.requireWindow()
    return .value(window.frame)
  }

  static let state = CommandSpec(
    "state", arguments: [targetWindow], summary: "Print a window's view state as JSON"
  ) { context in
    let window = try context.arguments[targetWindow].flatMap(context.host.window) ?? context.requireWindow()
    do {
      let json = try window.content.viewStateJSON()
      let state = (try? FrameValue.parse(json: Array(json.utf8))) ?? .string(json)
      return .listing(
        text: json, value: ["type": "state", "window": .integer(window.id.number), "state": state])
    } catch {
      throw CommandError("the view state of window \(window.label) cannot be encoded: \(error)")
    }
  }

  static let historyChoice = Argument<String>.choice(
    "history", ["document", "view"],
    help: "document (default): the shared document's edits; view: this window's view state"
  ).optional

  static let undo = CommandSpec(
    "undo", arguments: [historyChoice],
    summary: "Undo the last document edit, or with `view` the window's last view-state change",
    details: """
      The two histories are separate. Undoing a document edit restores the document for every \
      window on it and leaves each window's query and selection as they are; undoing in the view \
      history moves only this window's view state back, with the timers the command undone set or \
      cancelled in the window (an autosave a discard cancelled waits again, due when it was).
      """
  ) { context in
    try context.host.stepHistory(context, undo: true)
  }

  static let redo = CommandSpec(
    "redo", arguments: [historyChoice],
    summary: "Redo what `undo` undid, in the document or the view history"
  ) { context in
    try context.host.stepHistory(context, undo: false)
  }

  static let moduleName = Argument<String>.word("module", help: "the name of a module that runs as a process")

  static let restartModule = CommandSpec(
    "restart-module", arguments: [moduleName],
    summary: "Start a module that runs in its own process again after it stopped"
  ) { context in
    let name = context.arguments[moduleName]
    guard let restart = context.host.moduleRestarts[name] else {
      let known = context.host.moduleRestarts.keys.sorted()
      throw CommandError(
        known.isEmpty
          ? "no module runs in its own process in this session"
          : "no process module named '\(name)'" + Suggestions.didYouMean(name, in: known))
    }
    do {
      try restart()
    } catch let error as CommandError {
      throw error
    } catch {
      throw CommandError(String(describing: error))
    }
    return .text("\(name) is running again, with its windows open on it again")
  }

  static let clockDuration = Argument<String>.duration("duration", help: "how far: 300ms, 2s, 1.5s, 1m")

  static let clock = CommandSpec(
    "clock", subcommands: [clockAdvance],
    summary: "Show the session's clock, or move a scenario's virtual clock forward",
    details: "The shell runs on real time until its first `clock advance`; scenarios run on a virtual clock that "
      + "only `clock advance` and `settle` move. "
      + "The date is where the clock read zero (the shell's start, a scenario's `date:`) plus its time."
  ) { context in
    let clock = context.host.clock
    let mode = clock.mode == .virtual ? "virtual" : "real"
    return .text("\(SessionClock.describe(clock.now)) since the session started (\(mode) time), at \(clock.date)")
  }

  static let clockAdvance = CommandSpec(
    "advance", arguments: [clockDuration], summary: "Move the session's clock forward (a real one turns virtual)",
    details: "In a scenario the clock is virtual already. In the shell the first `clock advance` turns the "
      + "session's clock virtual where it is: from then on only `clock advance` and `settle` move it, so "
      + "midnight can be seen without waiting for it."
  ) { context in
    let clock = context.host.clock
    let duration = try SessionClock.duration(context.arguments[clockDuration])
    var turned = ""
    if clock.mode == .real {
      clock.turnVirtual()
      turned = "the session runs on virtual time from here: only `clock advance` and `settle` move it\n"
    }
    try clock.advance(by: duration)
    return .text(
      turned + "\(SessionClock.describe(clock.now)) since the session started (virtual time), at \(clock.date)")
  }

  static let settleLimit = Argument<String>.duration(
    "timeout", help: "the longest to wait (default 10s; in a scenario, the furthest to move the clock, default 60s)"
  ).optional

  static let settle = CommandSpec(
    "settle", arguments: [settleLimit],
    summary: "Wait until no load, debounce or timer is pending, so a script sees the result",
    details: "On real time (the shell, scripts) it waits for the session's timers to fire and their changes to "
      + "land, or fails when TIMEOUT passes first, saying what is still pending. On a scenario's virtual clock it "
      + "moves the clock to the moment nothing is pending, at most TIMEOUT."
  ) { context in
    let host = context.host
    let clock = host.clock
    let limit = try SessionClock.duration(context.arguments[settleLimit] ?? (clock.mode == .virtual ? "60s" : "10s"))
    let before = host.windows.map { ($0.id, $0.frame) }
    let waited = try clock.settle(within: limit, flush: host.services.scheduler)
    // The windows the timers changed, as they are now.
    let changed = before.compactMap { id, frame in host.window(id).flatMap { $0.frame == frame ? nil : id } }
    return .textWithFrames(
      "settled after \(SessionClock.describe(waited)) (\(clock.mode == .virtual ? "virtual" : "real") time)", changed)
  }

  static let live = CommandSpec(
    "live", summary: "Take in what live sources said changed (a module's bridge saw a switch at the wall)",
    details: "Changes a module process sends unasked come in between commands on their own, and the shell shows "
      + "them as they arrive; a recording writes this step where they came in, and its replay brings in the "
      + "recorded changes here instead of the module's."
  ) { context in
    // Asked first, then taken whether or not they said anything: a replay's `live` step brings
    // in the recording's changes, whatever the module's sources are doing.
    context.host.services.synchronizeLiveSources()
    context.host.services.takeLiveChanges()
    guard let window = context.host.focusedWindow else { return .text("no window is open") }
    return .frame(window.id)
  }

  static let relaunch = CommandSpec(
    "relaunch", summary: "Save the session, tear the host down and restore it, as quitting and starting again would",
    details: "Windows come back in order with their view state; undo histories do not survive."
  ) { context in context.request(.relaunch) }

  static let reopenWindow = Argument<WindowID>.window("window", help: "the window to open again (default: all)")
    .optional

  static let reopen = CommandSpec(
    "reopen", arguments: [reopenWindow],
    summary: "Open windows again from their documents and view states, in place",
    details: "What a relaunch restores, without ending the session: each window (or the one named) is made again "
      + "from its document and view state, keeping its number, name and undo history, the clock and the services. "
      + "What a window asks the outside world as it opens is served the answers the session already took to the same "
      + "questions, and in a settled session (no timer waiting) the work it starts as it opens (a load) is finished "
      + "at once, as the window it replaces had finished it. A window that then shows something else kept state "
      + "outside the two."
  ) { context in
    let host = context.host
    let ids = context.arguments[reopenWindow].map { [$0] } ?? host.windows.map(\.id)
    guard !ids.isEmpty else { throw CommandError("no window is open") }
    let problems = host.reopenWindows(ids)
    guard problems.isEmpty else { throw CommandError(problems.joined(separator: "\n")) }
    return (context.arguments[reopenWindow] ?? host.focusedWindowID).map(CommandOutput.frame)
      ?? .text("no windows are open")
  }

  // MARK: Time travel

  static let stepCount = Argument<Int>.integer("count", in: 1...1_000_000, help: "how many steps (1 when left out)")
    .optional
  static let stepNumber = Argument<Int>.integer("step", in: 0...1_000_000, help: "a step's number, as `steps` lists it")

  static let stepShown = stepNumber.optional

  static let travel = CommandSpec(
    "travel", subcommands: [travelSteps, travelBack, travelForward, travelTo],
    summary: "Move the whole session to another of its steps, or list them",
    details: "Each line typed (or scenario step a session was opened after) is a step; a move replays the session "
      + "from its start on a virtual clock. A command typed after `travel back` that changes something starts a new "
      + "branch and the later steps are dropped (one that failed, or only looks, keeps them). The workspace on disk "
      + "is never written after a move.")

  static let travelSteps = CommandSpec(
    "steps", arguments: [stepShown], summary: "List the steps, the current one marked, or what step N changed"
  ) { context in context.request(.travel(.steps(context.arguments[stepShown]))) }

  static let travelBack = CommandSpec(
    "back", arguments: [stepCount],
    summary: "Move the session back COUNT steps: windows, documents, view state and clock as they were"
  ) { context in context.request(.travel(.back(context.arguments[stepCount] ?? 1))) }

  static let travelForward = CommandSpec(
    "forward", arguments: [stepCount], summary: "Move the session forward COUNT steps after `travel back`"
  ) { context in context.request(.travel(.forward(context.arguments[stepCount] ?? 1))) }

  static let travelTo = CommandSpec(
    "to", arguments: [stepNumber], summary: "Move the session to step N (0 is where it started)"
  ) { context in context.request(.travel(.goto(context.arguments[stepNumber]))) }
}

extension Host {
  /// The message for a close or quit that needs a choice about unsaved work, for front ends
  /// that cannot ask (scripts, scenarios).
  public func unsavedWorkMessage(windows ids: [WindowID], quitting: Bool) -> String {
    let what = ids.compactMap { id in
      window(id).map { "window \($0.label) has \(unsavedSummary(of: id) ?? "unsaved work")" }
    }.joined(separator: "; ")
    let label = ids.first.flatMap { window($0)?.label } ?? "WINDOW"
    return quitting
      ? "\(what): say `quit save`, `quit discard` or `quit keep`"
      : "\(what): say `close \(label) save` or `close \(label) discard`"
  }

  /// What unsaved work a window holds, if any.
  public func unsavedSummary(of id: WindowID) -> String? {
    window(id)?.content.unsavedWork?.unsavedSummary
  }

  /// Saves or discards a window's unsaved work. Saving can fail (invalid, conflicted); then
  /// nothing changes and the window stays.
  package func leave(_ id: WindowID, choice: LeaveChoice) throws(CommandError) {
    guard let window = window(id), let work = window.content.unsavedWork else { return }
    switch choice {
    case .save:
      let context = CommandContext(arguments: ParsedArguments(), window: window, runtime: self)
      do {
        try work.saveUnsavedWork(context)
      } catch {
        throw CommandError("window \(window.label) was not left: \(error.message)")
      }
      // A save that did not save (a module that answered with its work still unsaved) keeps
      // the window, as a conflict does: the work is not dropped without a word.
      if let still = work.unsavedSummary {
        throw CommandError(
          "window \(window.label) was not left: saving did not save it (it still has \(still)); "
            + "save it in the window, or close it with `discard`")
      }
    case .discard:
      work.discardUnsavedWork()
    case .keep, .cancel:
      break
    }
  }

  func stepHistory(_ context: CommandContext, undo: Bool) throws(CommandError) -> CommandOutput {
    let window = try context.requireWindow()
    let verb = undo ? "undo" : "redo"
    if context.arguments[HostCommands.historyChoice] == "view" {
      let moved = undo ? window.content.undoViewState() : window.content.redoViewState()
      guard moved else { throw CommandError("nothing to \(verb) in the view history of window \(window.label)") }
      context.effects.steppedHistory = true  // the step is itself a history move, not a new view change
      return .frame(window.id)
    }
    guard let entry = documents[window.documentName] else {
      throw CommandError("document '\(window.documentName)' no longer exists")
    }
    try documents.step(entry, undo: undo)
    context.effects.steppedHistory = true
    return .frame(window.id)
  }
}
