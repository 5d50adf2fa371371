import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol

/// A window on an external screen: the module renders and keeps the real state; this screen
/// forwards and remembers the last frame and view state it was sent.
@MainActor
public final class ProxyScreen: ScreenModel {
  public private(set) var document: ExternalDocument {
    didSet { documentJSON = document.value.jsonText }
  }
  public private(set) var viewState: ExternalViewState
  /// The document as sent with every request, encoded once per change.
  private var documentJSON: String
  let process: ModuleProcess?
  let rendered: RenderedTexts
  let screenName: String
  let documentName: String
  let key: String
  /// The session's facts, and this window's scope among them.
  let facts: SessionFacts
  let factScope: String
  /// The number of the window's session among the module's (protocol 2, §16).
  let session: Int
  /// How many rows a window shows (`--rows`, a scenario's `rows:`), sent with `open` and
  /// `restore` in protocol 2 so a module pages as a built-in screen does.
  let viewportRows: Int
  private(set) var currentFrame: FrameValue = .null {
    didSet { currentText = nil }
  }
  /// The module's text for `currentFrame`, when it sent one with it.
  private var currentText: String?
  private var revision = 1
  /// What the module said the window holds unsaved (protocol 2, §20), or `nil`.
  private(set) var unsaved: String?
  /// The view state and revision the module opened the window with, while nothing else has
  /// reached the window since: restoring that same view state (a window opened again, which
  /// the host makes and then restores) is the open again, and is not sent.
  private var openedWith: (state: String?, revision: Int)?

  /// A screen with no module behind it: it shows an error (the registration builds proxies
  /// with their process).
  public convenience init(document: ExternalDocument, viewState: ExternalViewState, environment: ScreenEnvironment) {
    self.init(
      document: document, viewState: viewState, environment: environment, process: nil, rendered: RenderedTexts())
  }

  init(
    document: ExternalDocument, viewState: ExternalViewState, environment: ScreenEnvironment, process: ModuleProcess?,
    rendered: RenderedTexts, adopting opened: WireOpenedWindow? = nil
  ) {
    self.document = document
    self.documentJSON = document.value.jsonText
    self.viewState = viewState
    self.process = process
    self.rendered = rendered
    screenName = opened?.screen ?? environment.screenName ?? ""
    documentName = environment.documentName ?? ""
    // The host's facts (a window's environment is its host's), or live ones of its own.
    facts = environment.services.sessionFacts ?? SessionFacts()
    factScope = environment.factScope
    session = process?.session(of: environment.services) ?? 0
    viewportRows = environment.viewportRows
    revision = environment.documentRevision ?? 1
    key = opened?.key ?? process?.nextWindowKey() ?? "w0"
    process?.screens.append(ModuleProcess.ScreenBox(self))
    // A window the module opened from a command (§17) is already open there, with a frame.
    if let opened {
      process?[sent: sentKey] = documentJSON
      takeFrame(opened.frame, text: opened.text, state: opened.state)
    } else {
      open()
    }
  }

  /// Opens the window again on a process that just replaced the one it was on (a reload or a
  /// restart), with its document and its view state as they are.
  func reopen() {
    open()
  }

  private var kind: String {
    process?.hello.screens.first { $0.name == screenName }?.documentKind ?? ""
  }

  /// The request about this window: its document (the body when the module does not hold it as
  /// it is now: a command on a big document costs what the command costs, not a copy of the
  /// document each time), its view state, its session and the facts of a recording or replay.
  private func windowRequest(rows: Bool = false) -> WindowRequest {
    var request = WindowRequest()
    request.key = key
    request.screen = screenName
    request.document = documentName
    request.kind = kind
    request.revision = revision
    request.state = viewState.json
    if process?[sent: sentKey] != documentJSON { request.body = documentJSON }
    process?.documentsHanded.insert(sentKey)
    if let process, process.version >= 2 {
      request.session = session
      if rows { request.rows = viewportRows }
    }
    request.facts = RelayedFacts.request(
      facts, scope: factScope, version: process?.version ?? 1, windows: process?.windowScopes(in: session) ?? [])
    return request
  }

  /// A command for this window, by its spec's path, with its arguments as bound and the keys of
  /// the module's windows they name.
  func commandRequest(_ command: SentCommand) -> CommandRequest {
    var request = CommandRequest(command.line, arguments: command.arguments, in: windowRequest())
    command.describe(&request, version: process?.version ?? 1)
    return request
  }

  func takeFacts(_ facts: [WireFact]?, divergence: String?) {
    guard facts != nil || divergence != nil else { return }
    let windows = Dictionary(
      (process?.windowScopes(in: session) ?? []).map { ($0.key, $0.scope) }, uniquingKeysWith: { first, _ in first })
    RelayedFacts.take(facts, divergence: divergence, into: self.facts, scope: factScope, windows: windows)
  }

  /// Takes a result: the module holds the document as it was sent; its frame, text and view
  /// state; the facts it used; and (protocol 2) its timers and the other windows it changed.
  func take(_ result: WireResult) {
    process?[sent: sentKey] = documentJSON
    takeFacts(result.facts, divergence: result.divergence)
    takeFrame(result.frame, text: result.text, state: result.state)
    unsaved = result.unsaved
    guard let process, process.version >= 2 else { return }
    process.takeTimers(result.timers, cancelling: result.cancel, in: session)
    process.takeUpdates(result.updates, in: session)
  }

  /// The frame, its text and the view state a reply (or one of its `updates`) carries.
  func takeFrame(_ frame: FrameValue, text: String, state: String) {
    openedWith = nil
    currentFrame = frame
    currentText = text
    rendered.remember(text, for: frame)
    viewState.json = state
  }

  private func open() {
    guard let process else {
      currentFrame = ["error": "no module process for this screen"]
      return
    }
    // Opening a window on a module that stopped (or ended since its last request) starts it
    // again, a limited number of times in each session; the restart opens every window on it,
    // this one too.
    if !process.noticeEnd(), process.mayRestart(in: session) {
      do {
        try process.restart(in: session)
      } catch {
        currentFrame = ["error": .string(error.message)]
      }
      return
    }
    do {
      let request = windowRequest(rows: true)
      take(try process.result(of: .open(request)))
      openedWith = (viewState.json, request.revision)
    } catch {
      currentFrame = ["error": .string(error.message)]
    }
  }

  public func documentReplaced(_ document: ExternalDocument) {
    self.document = document
    guard let process, process.isRunning else { return }
    if let reply = try? process.result(of: .refresh(windowRequest())) { take(reply) }
  }

  public func documentRevisionChanged(_ revision: Int) { self.revision = revision }

  /// The window's document as the module's session holds it.
  var sentKey: ModuleProcess.SentDocument { ModuleProcess.SentDocument(session: session, name: documentName) }

  public func restore(_ viewState: ExternalViewState) {
    self.viewState = viewState
    // Protocol 2 gives the open window its view state (§18), as a built-in screen is restored
    // in place; protocol 1 opens the window again with it.
    guard let process, process.version >= 2, process.isRunning else { return open() }
    if let opened = openedWith, opened.state == viewState.json, opened.revision == revision { return }
    var request = windowRequest(rows: true)
    // What an undo or redo did to the module's timers as it restored the state: the module puts
    // them back or takes them away with it, unless its screen set them from the state itself.
    let entry = process.entry(of: session)
    let moves = entry?.timerMoves ?? (back: [], away: [])
    if !moves.back.isEmpty { request.timers = moves.back }
    if !moves.away.isEmpty { request.cancel = moves.away }
    entry?.timerMoves = ([], [])
    do {
      let result = try process.result(of: .restore(request))
      if let entry, !moves.back.isEmpty || !moves.away.isEmpty { check(result, moved: moves, in: entry) }
      take(result)
    } catch {
      currentFrame = ["error": .string(error.message)]
    }
  }

  /// Holds a module's reply to a `restore` that named timers to §18: each put back waits at its
  /// time and each taken away is gone, unless its screen set its timers from the state itself
  /// (`ownTimers`, which explore then does not hold to the history's). One that did neither
  /// fails the step that undid or redid: its timers are not what the window's history says.
  private func check(_ result: WireResult, moved: (back: [WireTimer], away: [String]), in entry: SessionEntry) {
    if result.ownTimers == true {
      (entry.services?.clock as? SessionClock)?.movingHistory?.takeOver()
      return
    }
    let waiting = Dictionary((result.timers ?? []).map { ($0.id, $0.at) }, uniquingKeysWith: { $1 })
    let cancelled = Set(result.cancel ?? [])
    // Counted, not named: a timer's id may hold the window's key, which differs from run to run.
    let notBack = moved.back.filter { waiting[$0.id] != .some($0.at) }.count
    let notAway = moved.away.filter { !cancelled.contains($0) }.count
    guard notBack + notAway > 0, let services = entry.services else { return }
    let words = [
      notBack > 0 ? "\(notBack) of \(moved.back.count) to put back did not wait at its time" : nil,
      notAway > 0 ? "\(notAway) of \(moved.away.count) to take away was not cancelled" : nil,
    ].compactMap { $0 }
    services.report(
      incident: "the \(process?.name ?? "") module did not move the window's timers as `restore` asked (§18): "
        + words.joined(separator: ", ")
        + "; its reply says each as it waits (`timers`) or not (`cancel`), or `ownTimers` when its screen set its own")
  }

  public func windowClosed() {
    guard let process, process.isRunning else { return }
    // Closing may cancel what the window started (a load's timer) or change other windows.
    var request = CloseRequest()
    request.key = key
    if process.version >= 2 { request.session = session }
    guard var reply = try? process.ok(of: .close(request)), process.version >= 2 else { return }
    // A close saves nothing (§8): what the module says it changed as the window went is not
    // stored, and the host's copy goes with the next request about each such document.
    for commit in reply.commits ?? [] {
      process[sent: ModuleProcess.SentDocument(session: session, name: commit.document)] = nil
    }
    reply.commits = nil
    try? process.takeWork(reply, in: session, summary: "\(process.name) close")
  }

  /// The module's own text for the frame the window shows; `nil` when it shows one the module
  /// did not send (an error, or a module gone since).
  var text: String? {
    process?.noticeEnd()
    guard process?.stopReason == nil else { return nil }
    return currentText
  }

  public var frame: FrameValue {
    // A module gone since its last request shows so at once: no expectation passes on the
    // last frame it sent.
    process?.noticeEnd()
    if let reason = process?.stopReason { return ["error": .string("the module stopped: \(reason)")] }
    return currentFrame
  }

  /// Runs a module command: the command goes to the process by its spec's path, with its
  /// arguments as bound (and its text as the line); a document the module changed comes back and
  /// is committed here, through the workspace, like any edit.
  static func run(
    _ path: [String], arguments: [ArgumentSpec], module: String, process: ModuleProcess? = nil, anywhere: Bool = false,
    context: CommandContext
  ) throws(CommandError) -> CommandOutput {
    let command = SentCommand(path: path, specs: arguments, context: context, process: process)
    let shown = context.window.flatMap { $0.model(as: ProxyScreen.self) }
    guard let window = context.window, let screen = shown, screen.process === process ?? screen.process else {
      // A command of the module's that runs anywhere, with none of its windows in front: it
      // runs in the module's session without one (protocol 2, §16).
      if let process, process.version >= 2, anywhere {
        return try runInNoWindow(command, process: process, context: context)
      }
      let window = try context.requireWindow()
      throw CommandError("window \(window.label) does not show a \(module) screen")
    }
    guard let process = screen.process else {
      throw CommandError("window \(window.label) does not show a \(module) screen")
    }
    // A stop anywhere in the command (its reply, the commit in it, the updates) is the command's
    // error, and its windows close.
    do {
      return try process.duringCommand { () throws(CommandError) -> CommandOutput in
        try forward(
          command, to: screen, in: window, process: process, summary: "\(module).\(command.name)", context: context)
      }
    } catch {
      if !process.isRunning { closeWindows(of: process, in: context) }
      throw error
    }
  }

  /// Sends a command line to the module for `screen`'s window and takes what the reply says.
  private static func forward(
    _ command: SentCommand, to screen: ProxyScreen, in window: Window, process: ModuleProcess, summary: String,
    context: CommandContext
  ) throws(CommandError) -> CommandOutput {
    let reply: WireResult
    _ = process.takeRefusal()
    do {
      reply = try process.result(of: .command(screen.commandRequest(command)))
    } catch {
      // What the refused work learnt from outside is kept (an answer that made it fail).
      if let refusal = process.takeRefusal() { screen.takeFacts(refusal.facts, divergence: refusal.divergence) }
      throw error
    }
    // A document that comes back malformed is a protocol violation, not "nothing to save":
    // the command fails and the module is stopped, as for any other garbage it sends.
    var committedDocument: (any DocumentBody)?
    if let commit = reply.commit {
      committedDocument = try process.admittedBody(
        commit, toDocument: screen.documentName, in: screen.session, host: context.host, what: "its `commit`")
    }
    screen.take(reply)
    let opened = try adoptWindows(
      opened: reply.opened, closed: reply.closed, on: screen.documentName, session: screen.session, process: process,
      host: context.host)
    // The module's copy moved with its commit; whatever the host makes of it (saved, or refused
    // as a conflict), the next request sends the host's copy.
    if committedDocument != nil { process[sent: screen.sentKey] = nil }
    if let committedDocument {
      try context.commit(committedDocument, summary: summary)
    }
    if let output = reply.output { return .text(output) }
    // A command that opened a window shows it, as the built-in `enter` does.
    return .frame(opened ?? window.id)
  }

  /// Opens here the windows the module opened (`opened`, §17: a room window from a home window,
  /// on the same document), and closes the ones it closed (`closed`). A command's windows open
  /// on the document of the window it ran in (`document`); a timer's, on any of the session's.
  ///
  /// - Returns: the last window opened.
  static func adoptWindows(
    opened: [WireOpenedWindow]?, closed: [String]?, on document: String?, session: Int, process: ModuleProcess,
    host: Host
  ) throws(CommandError) -> WindowID? {
    guard process.version >= 2 else { return nil }
    var last: WindowID?
    for entry in opened ?? [] {
      guard document == nil || entry.document == document, let shown = host.document(named: entry.document),
        let body = shown.body as? ExternalDocument
      else {
        throw protocolViolation(
          "a window it opened was not {key, screen, document} on "
            + (document == nil ? "a document of the session" : "the document of the window it opened from") + " (§17)",
          process: process, host: host)
      }
      // A module opens windows only on its own screens and documents (who may write what).
      guard process.hello.screens.contains(where: { $0.name == entry.screen }),
        process.hello.documentKinds.contains(shown.kind), process.isHeld(entry.document, in: session)
      else {
        throw protocolViolation(
          "it opened a window on the screen \(TerminalText.visible(entry.screen)) and the \(shown.kind) document "
            + "\(TerminalText.visible(entry.document)): a module opens windows only on its own screens, on documents "
            + "of its kinds the session has open on it (§17)", process: process, host: host)
      }
      guard !process.windowScopes(in: session).contains(where: { $0.key == entry.key }) else {
        throw protocolViolation(
          "it opened a window under the key \(entry.key), which another window of the session has (§17)",
          process: process, host: host)
      }
      let environment = host.screenEnvironment(for: entry.document)
      let model = ProxyScreen(
        document: body, viewState: ExternalViewState(json: entry.state),
        environment: environment, process: process, rendered: process.rendered, adopting: entry)
      do {
        let window = try host.openWindow(model, screen: entry.screen, document: entry.document, name: entry.name)
        last = window.id
      } catch {
        // The host cannot open it (a name that is not a window name, or one in use): the module
        // opened it already, and is told it closed, so the refused command leaves nothing open
        // there that the host does not have (the lights port sent updates for such a window).
        model.windowClosed()
        throw error
      }
    }
    for key in closed ?? [] {
      for window in host.windows {
        guard let model = window.anyModel as? ProxyScreen, model.process === process, model.key == key,
          model.session == session
        else { continue }
        host.closeWindow(window.id)
      }
    }
    return last
  }

  /// Runs a command line in the module's side of the session with no window (§16): the module
  /// answers `ok`, with text to show and the windows it changed.
  static func runInNoWindow(
    _ command: SentCommand, process: ModuleProcess, context: CommandContext
  ) throws(CommandError) -> CommandOutput {
    let session = process.session(of: context.services)
    var request = CommandRequest()
    request.line = command.line
    request.arguments = command.arguments
    command.describe(&request, version: process.version)
    request.session = session
    let reply = try process.duringCommand { () throws(CommandError) -> WireOk in
      let reply = try process.ok(of: .command(request))
      try process.takeWork(reply, in: session, summary: "\(process.name) \(command.line)")
      return reply
    }
    // Nothing to say is nothing shown, as for a built-in command run with no window.
    if let output = reply.output { return .text(output) }
    return .nothing
  }

  /// Closes every window on a module that stopped.
  static func closeWindows(of process: ModuleProcess, in context: CommandContext) {
    closeWindows(of: process, in: context.host)
  }

  static func closeWindows(of process: ModuleProcess, in host: Host) {
    for other in host.windows where (other.anyModel as? ProxyScreen)?.process === process {
      host.closeWindow(other.id)
    }
  }

  /// Stops a module that broke the protocol, closes its windows, and says what it did.
  static func protocolViolation(_ what: String, process: ModuleProcess, context: CommandContext) -> CommandError {
    protocolViolation(what, process: process, host: context.host)
  }

  static func protocolViolation(_ what: String, process: ModuleProcess, host: Host) -> CommandError {
    process.stop("it sent a malformed reply: \(what)")
    closeWindows(of: process, in: host)
    return process.stoppedError(process.stopReason ?? what)
  }
}

/// A window of a module process holds unsaved work when the module says so (`unsaved` in its
/// results, protocol 2, §20): `quit`, `close` and `relaunch` ask about it as about a built-in
/// editor's draft, and the choice goes to the module as `leave`.
extension ProxyScreen: UnsavedWork {
  public var unsavedSummary: String? { unsaved.map(TerminalText.visible) }

  func takeUnsaved(_ summary: String?) { unsaved = summary }

  public func saveUnsavedWork(_ context: CommandContext) throws(CommandError) {
    guard let process else { throw CommandError("no module process for this window") }
    let reply = try leave("save", process: process, context: context)
    if let commit = reply.commit {
      process[sent: sentKey] = nil
      if let body = try process.admittedBody(
        commit, toDocument: documentName, in: session, host: context.host, what: "its `commit`")
      {
        try context.commit(body, summary: "save")
      }
    }
  }

  public func discardUnsavedWork() {
    guard let process else { return }
    var request = LeaveRequest(key: key, choice: "discard")
    request.session = session
    if let reply = try? process.result(of: .leave(request)) { take(reply) }
  }

  private func leave(_ choice: String, process: ModuleProcess, context: CommandContext) throws(CommandError)
    -> WireResult
  {
    var request = LeaveRequest(key: key, choice: choice)
    request.session = session
    let reply = try process.duringCommand { () throws(CommandError) -> WireResult in
      try process.result(of: .leave(request))
    }
    take(reply)
    return reply
  }
}
