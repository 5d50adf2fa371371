import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchStore

/// One session of the workbench: a host on a workspace store, with its clock, its relaunch
/// and its end. The shell and the scenario runner are thin clients of it: they hand it lines
/// and show what it returns; what a line means, what a relaunch does and how unsaved work is
/// left are decided here, once.
@MainActor
public final class WorkbenchSession {
  /// The host of the running session (a relaunch replaces it).
  public private(set) var host: Host
  /// Where documents and the session are kept; `nil` until a scenario's first relaunch, which
  /// opens an in-memory workspace with the documents it has by then.
  public private(set) var store: WorkspaceStore?
  public private(set) var registry: ModuleRegistry
  /// The session's services and view settings (a move in time replaces them with the replay's).
  private(set) var environment: ScreenEnvironment
  /// The external facts of the session, across its relaunches: recorded or replayed.
  public var facts: SessionFacts {
    // (Every environment a session keeps has them: see `keepingFacts`.)
    guard let facts = environment.services.sessionFacts else { preconditionFailure("a session without its facts") }
    return facts
  }
  private(set) var clockMode: SessionClock.Mode
  /// The session as last saved, so a line that changed no window writes nothing.
  private var savedSession: SessionRecord?
  /// The recording running (`record start`), which the host tells about each command it runs.
  private var recorder: SessionRecorder?
  /// Whether `record start` may record this session: a shell's may; a scenario is a recording
  /// already.
  public var canRecord = true
  /// Whether the first `quit` after steps made since a move off the workspace is refused with
  /// a reminder (the interactive shell; a script says what it wants).
  public var remindsOfUnwrittenSteps = false
  /// The workspace the session moved off (a move in time) and the journal's count of steps then:
  /// the steps kept after it are in memory only.
  private var unwritten: (workspace: String, stepsKept: Int)?
  /// The count of steps when `quit` last reminded of them: quitting again leaves.
  private var remindedAtStep: Int?
  /// The session's steps, when it keeps them for time travel (the shell's sessions do).
  public var journal: SessionJournal? {
    didSet { follow(host) }
  }

  /// A session on a workspace: documents come from `store`, with the sample documents the
  /// modules ship added where the workspace lacks them; the windows are restored when
  /// `restoringWindows` (the interactive shell) and left alone otherwise (scripts).
  ///
  /// - Throws: `StoreError` when the workspace cannot be read, `CommandError` when the stored
  ///   session cannot be turned into a host.
  public init(
    registry: ModuleRegistry, environment: ScreenEnvironment, clock: SessionClock.Mode = .real,
    store: WorkspaceStore, restoringWindows: Bool
  ) throws {
    self.registry = registry
    let environment = environment.keepingFacts
    self.environment = environment
    self.clockMode = clock
    self.store = store
    self.host = try Self.restore(
      from: store, registry: registry, environment: environment, clock: clock, includingWindows: restoringWindows)
    follow(host)
  }

  /// A session with no workspace yet (a scenario): the modules' sample documents, no windows,
  /// a virtual clock unless told otherwise.
  public init(registry: ModuleRegistry, environment: ScreenEnvironment, clock: SessionClock.Mode = .virtual) {
    self.registry = registry
    let environment = environment.keepingFacts
    self.environment = environment
    self.clockMode = clock
    self.store = nil
    self.host = Host(registry: registry, environment: environment, clock: clock)
    follow(host)
  }

  /// Has `host` tell the recording about each command it runs, while one runs (a session that
  /// does not record pays nothing for it).
  private func follow(_ host: Host) {
    journal?.follow(host)
    host.commandObserver =
      recorder == nil && journal == nil
      ? nil
      : { [weak self] command in
        self?.recorder?.commandRan(command)
        self?.journal?.commandRan(command)
      }
  }

  // MARK: Lines

  /// Runs one line (in `window`, for a scenario's `WINDOW: command` step) and hands what each
  /// command produced to `frontEnd`, in order, as it happens. What a command asks of the
  /// session is carried out here, in one place: relaunch and recording are done and reported;
  /// quitting, unsaved work and the shell's own requests go to the front end, which is the only
  /// one that can act on them.
  ///
  /// - Throws: `CommandError` for the first command that fails (with its column), or what the
  ///   front end throws.
  ///
  /// - Parameter commands: the line's commands, when they were bound already (a scenario's
  ///   step, a replayed one, explore's): run as they are, each finding its window as it names
  ///   it, and `line` only names the line.
  /// - Parameter takingLiveChanges: whether live sources' changes come in as the line begins (the
  ///   host's `live` in front); `false` when the caller takes them in itself between lines.
  package func run(
    _ line: String, commands: [BoundCommand]? = nil, in window: String? = nil, takingLiveChanges: Bool = true,
    continuingAfter failed: ((CommandError) -> Void)? = nil, frontEnd: some SessionFrontEnd
  ) throws(CommandError) {
    try run(line, continuingAfter: failed, frontEnd: frontEnd) { host, handle throws(CommandError) in
      if let commands {
        return try host.run(
          commands: commands, takingLiveChanges: takingLiveChanges, continuingAfter: failed, handle: handle)
      }
      return try host.run(
        line: line, in: window, takingLiveChanges: takingLiveChanges, continuingAfter: failed, handle: handle)
    }
  }

  /// Runs a command given as values (explore's), bound against the session's windows as it
  /// runs, as a line of that one command: what it asks of the session is carried out as for a
  /// line.
  package func run(
    _ call: CommandCall, takingLiveChanges: Bool = true, frontEnd: some SessionFrontEnd
  ) throws(CommandError) {
    try run(call.textNamingWindow, continuingAfter: nil, frontEnd: frontEnd) { host, handle throws(CommandError) in
      try host.run(calls: [call], takingLiveChanges: takingLiveChanges, continuingAfter: nil, handle: handle)
    }
  }

  /// A line's run: `start` runs its commands on the host (with `handle` for each result), and
  /// what follows a relaunch runs on the host that replaced it.
  private func run(
    _ line: @autoclosure () -> String, continuingAfter failed: ((CommandError) -> Void)?,
    frontEnd: some SessionFrontEnd,
    start: (Host, (CommandResult) throws(CommandError) -> Void) throws(CommandError) -> [LineCommand]
  ) throws(CommandError) {
    // The line's text is made only for a journal that keeps it (a call's is written from it).
    if let journal { journal.lineStarts(line(), host: host) }
    defer {
      // The journal keeps the frames first: the time that takes is the line's, not time a
      // recording must replay as passing between lines.
      journal?.lineFinished(host: host)
      recorder?.lineFinished(host: host)
    }
    func ask(_ question: UnsavedWorkQuestion) throws(CommandError) {
      do throws(CommandError) {
        try frontEnd.unsavedWork(question)
      } catch {
        // A front end that cannot ask refused: the step a recording took fails with that.
        recorder?.lastCommandRefused(error)
        throw error
      }
    }
    func handle(_ result: CommandResult) throws(CommandError) {
      switch result.request {
      case .relaunch?:
        try frontEnd.relaunched(warnings: try relaunch())
      case .quit(let unsaved)?:
        try remindOfUnwrittenSteps(unless: unsaved)
        let dirty = host.windows.map(\.id).filter { host.unsavedSummary(of: $0) != nil }
        if !dirty.isEmpty {
          guard let unsaved else {
            try ask(UnsavedWorkQuestion(host: host, windows: dirty, quitting: true))
            return
          }
          do throws(CommandError) {
            for id in dirty where unsaved != .keep { try host.leave(id, choice: unsaved) }
          } catch {
            recorder?.lastCommandRefused(error)
            throw error
          }
        }
        if let ending = finishRecording(because: "the session ends") { ending.tell(frontEnd) }
        try frontEnd.quit()
      case .recordStart(let path, let replacing)?:
        try frontEnd.show(.text(try startRecording(to: path, replacing: replacing)), reports: true)
      case .recordStop?:
        guard let active = recorder else { throw CommandError("not recording; `record start FILE` first") }
        recorder = nil
        follow(host)
        let written = try active.finish(session: self)
        try frontEnd.show(.text("wrote \(active.path) (\(written.sentence))"), reports: true)
      case .frontEnd(let request)?:
        try frontEnd.carryOut(request)
      case .travel(let request)?:
        let said = try travel(request)
        // After a move, the focused window as it is now, then what the next step changes.
        if request.moves, let focused = host.focusedWindowID { try frontEnd.show(.frame(focused), reports: true) }
        try frontEnd.show(.text(said), reports: true)
      case .unsavedWork(let windows, let quitting)?:
        try ask(UnsavedWorkQuestion(host: host, windows: windows, quitting: quitting))
      case nil:
        try frontEnd.show(result.output, reports: result.reports)
      }
    }
    // The commands after a `relaunch` on the line run on the host it made.
    var rest = try start(host, handle)
    while !rest.isEmpty { rest = try host.run(rest: rest, continuingAfter: failed, handle: handle) }
  }

  /// Carries out the answer to a question about unsaved work: each window's work is saved,
  /// discarded or kept, then the window closes (the front end is shown the focused window) or
  /// the session quits. Cancel does nothing.
  ///
  /// - Throws: `CommandError` when saving fails (the window then stays open).
  package func leave(_ question: UnsavedWorkQuestion, choice: LeaveChoice, frontEnd: some SessionFrontEnd)
    throws(CommandError)
  {
    recorder?.answered(choice)
    defer { journal?.answered(choice, host: host) }
    guard choice != .cancel else { return }
    if question.quitting {
      for id in question.windows where choice != .keep { try host.leave(id, choice: choice) }
      try frontEnd.quit()
      return
    }
    guard choice != .keep else { return }
    for id in question.windows {
      try host.leave(id, choice: choice)
      host.closeWindow(id)
    }
    try frontEnd.show(host.focusedWindowID.map(CommandOutput.frame) ?? .text("no windows are open"), reports: false)
  }

  // MARK: Time travel

  /// Lists the steps, or moves the session to one: a new session replayed from the start
  /// takes this one's place (its host, clock, services and in-memory workspace). Returns what
  /// to tell the user.
  private func travel(_ request: TravelRequest) throws(CommandError) -> String {
    guard let journal else {
      throw CommandError(
        "time travel works in the shell and in scenarios, which keep the session's steps: `workbench`, "
          + "`workbench run FILE:LINE --shell` to open a scenario at a step, or a `travel` step in a scenario")
    }
    journal.keepLineSoFar(host)
    let target: Int
    switch request {
    case .steps(nil): return journal.listing()
    case .steps(let number?): return try journal.describe(step: number)
    case .back(let count):
      guard count <= journal.position else {
        throw CommandError(
          "the session is at step \(journal.position): `travel to 0` goes to where it started")
      }
      target = journal.position - count
    case .forward(let count):
      let ahead = journal.entries.count - journal.position
      guard count <= ahead else {
        throw CommandError(
          ahead == 0 ? "the session is at its last step" : "only \(ahead) step\(ahead == 1 ? "" : "s") ahead")
      }
      target = journal.position + count
    case .goto(let number):
      guard number <= journal.entries.count else {
        throw CommandError("no step \(number): the steps are 0 to \(journal.entries.count) (`travel steps` lists them)")
      }
      target = number
    }
    guard recorder == nil else {
      throw CommandError("`record stop` first: a recording follows the session forward, not through a move in time")
    }
    var note = ""
    if let store, store.path != ":memory:" {
      unwritten = (workspace: store.path, stepsKept: journal.stepsKept)
      note =
        "\nthe session is a replay in memory from here: the workspace \(store.path) keeps what was saved to it, "
        + "and nothing is written to it until the shell starts again"
    }
    journal.leaving(host)
    let moved = try journal.session(at: target, current: self)
    if moved !== self { adopt(moved) }
    journal.lineMoved(to: host)
    return journal.arrival(host: host) + note
  }

  /// Refuses the first `quit` (or Ctrl-D) after steps were made in a session that moved off
  /// its workspace (they are in memory only), saying how to keep them, as bash refuses the first
  /// `exit` with stopped jobs: quitting again leaves, as do `quit discard` and `quit force`.
  private func remindOfUnwrittenSteps(unless choice: LeaveChoice?) throws(CommandError) {
    guard remindsOfUnwrittenSteps, choice != .discard, let unwritten, let journal else { return }
    let made = journal.stepsKept - unwritten.stepsKept
    guard made > 0, remindedAtStep != journal.stepsKept else { return }
    remindedAtStep = journal.stepsKept
    throw CommandError(
      "\(made) step\(made == 1 ? "" : "s") made since the session moved in time \(made == 1 ? "is" : "are") not in "
        + "the workspace \(unwritten.workspace) (a moved session is a replay in memory): `record start FILE` then "
        + "`record stop` keeps the session as a scenario; quit again (or `quit force`) to leave without "
        + (made == 1 ? "it" : "them"))
  }

  /// Takes the place of this session's host, services and workspace with `other`'s: the old
  /// windows end properly first.
  private func adopt(_ other: WorkbenchSession) {
    end()
    let carried = endServices(of: host)
    host = other.host
    for incident in carried { host.services.report(incident: incident) }
    store = other.store
    environment = other.environment
    clockMode = other.clockMode
    savedSession = nil
    follow(host)
  }

  // MARK: Recording

  /// Starts recording to `path`; returns what to tell the user.
  private func startRecording(to path: String, replacing: Bool) throws(CommandError) -> String {
    guard canRecord else { throw CommandError("`record` works in the shell; a scenario is already a recording") }
    guard recorder == nil else { throw CommandError("already recording; `record stop` first") }
    let started = try SessionRecorder(path: path, replacing: replacing, session: self)
    recorder = started
    follow(host)
    return "recording to \(path); `record stop` writes it" + (started.note.map { "\nnote: " + $0 } ?? "")
  }

  /// Writes a recording still running when the session ends, so nothing recorded is lost;
  /// returns what to tell the user (`nil` when not recording).
  public func finishRecording(because reason: String) -> RecordingEnd? {
    guard let active = recorder else { return nil }
    recorder = nil
    follow(host)
    do {
      let written = try active.finish(session: self)
      return .wrote("recording stopped as \(reason): wrote \(active.path) (\(written.sentence))")
    } catch {
      return .failed("recording stopped as \(reason), and \(error.message)")
    }
  }

  // MARK: Relaunch and saving

  /// Saves the session, ends the host (its windows are closed, so their work and module
  /// processes are told) and restores a new one from the workspace, as quitting and starting
  /// again would. A session without a workspace opens an in-memory one first, with its documents.
  ///
  /// - Returns: what could not be restored, and what was done instead.
  @discardableResult
  public func relaunch() throws(CommandError) -> [RestorationWarning] {
    do {
      let store = try workspace()
      let record = try host.sessionRecord(includingDocuments: false)
      try store.saveSession(record)
      savedSession = record
      // The new clock starts at zero where the old one had got to on the calendar, before the
      // windows open again on it.
      var continuing = environment
      continuing.calendarOrigin = host.clock.date
      // A clock turned virtual (`clock advance` in the shell) stays virtual.
      clockMode = host.clock.mode
      end()
      let carried = endServices(of: host)
      host = try Self.restore(
        from: store, registry: registry, environment: continuing, clock: clockMode, includingWindows: true)
      for incident in carried { host.services.report(incident: incident) }
      follow(host)
    } catch let error as StoreError {
      throw CommandError(error.message)
    } catch let error as CommandError {
      throw error
    } catch {
      throw CommandError("the session could not be saved and restored: \(error)")
    }
    return host.restorationWarnings
  }

  /// Takes a registry made again (a rebuilt module registers other commands, screens or
  /// document kinds: `--watch`) and relaunches onto it, as SwiftUI previews take a new view: the
  /// new commands, screens and kinds are there, and a window whose screen went away is closed.
  ///
  /// - Returns: what could not be restored (a window on a screen no module registers now).
  @discardableResult
  public func reregister(_ registry: ModuleRegistry) throws(CommandError) -> [String] {
    let previous = self.registry
    let gone = Set(previous.screens.map(\.name)).subtracting(registry.screens.map(\.name))
    self.registry = registry
    let warnings: [RestorationWarning]
    do {
      warnings = try relaunch()
    } catch {
      self.registry = previous
      throw error
    }
    // A window on a screen that went away is closed (not kept for a module that comes back:
    // this one came back without it), with a line.
    let closed = host.dropDormantWindows(onScreens: gone).map {
      "window \($0) closed: its screen is gone from the module's new build"
    }
    try? saveSession()
    return closed + warnings.map(\.message)
  }

  /// Saves the windows, their view state and focus when they changed since the last save.
  ///
  /// - Throws: `StoreError` when the workspace refuses; nothing was saved then.
  public func saveSessionIfChanged() throws { try save(onlyIfChanged: true) }

  /// Saves the windows, their view state and focus.
  public func saveSession() throws { try save(onlyIfChanged: false) }

  private func save(onlyIfChanged: Bool) throws {
    guard let store else { return }
    let record = try host.sessionRecord(includingDocuments: false)
    if onlyIfChanged, record == savedSession { return }
    do throws(StoreError) {
      try store.saveSession(record)
    } catch {
      // With a secret in one window the other windows were saved: said once for this state of
      // the session, not at every line.
      if error.kind == .secret { savedSession = record }
      throw error
    }
    savedSession = record
  }

  /// Ends the session's windows properly: each is closed, so what it started (loads, timers,
  /// subscriptions, a module's window) is cancelled or told. The workspace keeps the session as
  /// last saved.
  public func end() {
    for window in host.windows { host.closeWindow(window.id) }
  }

  /// The session is over (a scenario ran, the shell quits): what kept state for it is told
  /// now (a module process gets `end`), so what goes wrong then is this session's.
  ///
  /// - Returns: what went wrong meanwhile (a module that stopped as it was told).
  @discardableResult
  public func finish() -> [String] {
    host.services.end()
    return host.services.takeIncidents()
  }

  /// What went wrong outside a command since the last time (a module process that stopped
  /// while the prompt waited), once.
  public func takeIncidents() -> [String] { host.services.takeIncidents() }

  /// Ends the services of a host being replaced (a relaunch, a move in time): what kept state
  /// for them is told now, and what went wrong then is said on the host that replaces it.
  private func endServices(of old: Host) -> [String] {
    old.services.end()
    return old.services.takeIncidents()
  }

  // MARK: Building hosts

  /// The workspace, opened in memory with the session's documents if there is none yet.
  private func workspace() throws -> WorkspaceStore {
    if let store { return store }
    let opened = try WorkspaceStore.inMemory()
    opened.materializeEdits(with: host.registry)
    // Documents this session removed go in as removal markers, so their samples stay away.
    let removed = host.removedDocumentNames.sorted().map {
      SessionRecord.Document(name: $0, kind: "", revision: 1, body: "")
    }
    try opened.addMissing(try host.sessionRecord().documents + removed)
    host.persistence = opened
    store = opened
    return opened
  }

  /// A host built from what `store` holds, with sample documents the workspace lacks added.
  static func restore(
    from store: WorkspaceStore, registry: ModuleRegistry, environment: ScreenEnvironment, clock: SessionClock.Mode,
    includingWindows: Bool
  ) throws -> Host {
    // Names, kinds and revisions only: a document's body is read and decoded when the session
    // first needs it, so a start costs what its windows show, not what the workspace holds.
    store.materializeEdits(with: registry)
    let record = try store.loadSession(includingWindows: includingWindows, includingBodies: false)
    let host = Host(
      registry: registry, environment: environment, clock: clock, restoring: record, addingMissingSamples: true,
      removedDocuments: try store.removedDocumentNames(),
      bodies: { name throws(CommandError) -> StoredDocument in
        do throws(StoreError) {
          return try store.documentBody(named: name)
        } catch {
          throw CommandError(error.message)
        }
      })
    if includingWindows {
      for (from, to) in store.renumberedWindows {
        host.restorationWarnings.append(
          RestorationWarning(
            message: "two windows were saved as window \(from) (two shells on this workspace each opened one): "
              + "the one saved first opens as window \(to)"))
      }
    }
    let stored = Set(record.documents.map(\.name))
    try store.addMissing(registry.sampleRecords(excluding: stored))
    host.persistence = store
    host.knownModules = try store.knownModules()
    return host
  }
}

/// A front end of a session (the shell, the scenario runner): it shows what commands produce
/// and does the few things only it can. `WorkbenchSession.run` calls it as each command
/// finishes.
@MainActor
package protocol SessionFrontEnd {
  /// Show what a command produced; `reports` is true for what the command was run for
  /// (`frame`, `windows`, `help`), which is shown even when quiet.
  func show(_ output: CommandOutput, reports: Bool) throws(CommandError)
  /// The host was rebuilt from the workspace (`relaunch`): show its focused window, and what
  /// could not be restored.
  func relaunched(warnings: [RestorationWarning]) throws(CommandError)
  /// Windows hold unsaved work: ask (then call `WorkbenchSession.leave`), or refuse by
  /// throwing the question's message, which names the words to add.
  func unsavedWork(_ question: UnsavedWorkQuestion) throws(CommandError)
  /// Something only this front end does, asked by a command it brought (the shell's `source`,
  /// `history`, `set`).
  func carryOut(_ request: FrontEndRequest) throws(CommandError)
  /// The session ends; nothing after it on the line runs.
  func quit() throws(CommandError)
  /// Something went wrong that ends nothing: show it as an error.
  func problem(_ message: String)
}

/// How a recording still running at the end of a session ended.
public enum RecordingEnd: Equatable, Sendable {
  /// It was written; the sentence says where.
  case wrote(String)
  /// It could not be written; the sentence says why.
  case failed(String)

  /// Tells a front end.
  @MainActor func tell(_ frontEnd: some SessionFrontEnd) {
    switch self {
    case .wrote(let sentence): try? frontEnd.show(.text(sentence), reports: true)
    case .failed(let sentence): frontEnd.problem(sentence)
    }
  }
}

/// A close or quit that waits for a choice about unsaved work.
public struct UnsavedWorkQuestion: Equatable, Sendable {
  /// The windows with unsaved work.
  public let windows: [WindowID]
  /// Whether the session is quitting (then `keep` is a choice too).
  public let quitting: Bool
  /// What each window holds (`window main has an unsaved draft`), for asking.
  public let summary: String
  /// The error for front ends that cannot ask, naming the words to add.
  public let message: String

  @MainActor init(host: Host, windows: [WindowID], quitting: Bool) {
    self.windows = windows
    self.quitting = quitting
    self.summary = windows.compactMap { id in
      host.window(id).map { "window \($0.label) has \(host.unsavedSummary(of: id) ?? "unsaved work")" }
    }.joined(separator: "; ")
    self.message = host.unsavedWorkMessage(windows: windows, quitting: quitting)
  }
}
