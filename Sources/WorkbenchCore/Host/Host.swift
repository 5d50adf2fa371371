import WorkbenchModuleAPI

/// The workbench host: the modules it loaded, the documents it holds and the windows open on
/// them. Front ends (the shell, the scenario runner) send it command lines and show what it
/// returns. It does no I/O of its own.
@MainActor
public final class Host {
  /// The loaded modules' manifests, in load order.
  public var manifests: [ModuleManifest] { registry.manifests }
  /// Each module's commands, by module name then command name (every module registered).
  var moduleCommands: [String: [String: CommandSpec]] { registry.moduleCommands }
  /// How to start again the modules of this session that run as processes.
  var moduleRestarts: [String: @MainActor () throws -> Void] { registry.restarts }
  /// The modules this host runs, registered once (hosts of one run share it).
  public let registry: ModuleRegistry
  /// Where a command name leads, for running, checking, help and completion.
  public var router: CommandRouter { registry.router }
  /// Resolves lines against this session's windows (and the loader's planned ones).
  public let resolver: CommandResolver
  let environment: ScreenEnvironment

  /// The session's documents, with their revisions, histories and persistence.
  let documents: SessionDocuments
  /// The session's windows: order, numbers, names, focus.
  let windowList = SessionWindows()
  /// The session's work as modules reach it: `SessionWork` and no more of the host.
  package private(set) lazy var work: any SessionWork = HostWork(host: self)
  /// Open windows in the order they were opened.
  public var windows: [Window] { windowList.all }
  /// The window commands run in unless they name another.
  public var focusedWindowID: WindowID? { windowList.focusedID }
  /// Told about each command that ran, as it finishes (see `RanCommand`): the session's
  /// recorder listens here.
  public var commandObserver: ((RanCommand) -> Void)?
  /// Called with a document as it was, just before its body changes or it is removed (see
  /// `DocumentAsItWas`); `nil` costs nothing.
  public var documentWillChange: ((DocumentAsItWas) -> Void)? {
    didSet { documents.willChange = documentWillChange.map { listener in { listener(DocumentAsItWas($0)) } } }
  }
  /// Windows of the restored session whose screen no loaded module has (an external module
  /// not loaded this time): saved with the session as they were, shown again once it is.
  public internal(set) var dormantWindows: [SessionRecord.Window] = []
  /// Documents of the workspace whose kind no loaded module has: kept as they are, listed by
  /// `documents`, and removable; their module's windows come back when it is loaded.
  public internal(set) var dormantDocuments: [SessionRecord.Document] = []
  /// The modules the workspace has seen loaded, for saying which one a dormant document or an
  /// unknown screen belongs to.
  public var knownModules: [KnownModule] = []
  /// The number the next window gets.
  public var nextWindowNumber: Int { windowList.nextNumber }
  /// The session's clock: real in the shell, virtual in scenarios.
  public let clock: SessionClock
  /// Objects modules share across this session's windows.
  public let services: SessionServices
  /// The session's facts: what its modules took from outside, recorded or replayed.
  public let facts: SessionFacts
  /// What could not be restored when this host was built from a session record.
  public package(set) var restorationWarnings: [RestorationWarning] = []
  /// Where committed documents are stored; `nil` keeps them in memory only.
  public var persistence: (any DocumentPersistence)? {
    get { documents.persistence }
    set { documents.persistence = newValue }
  }

  /// A host with the given modules, each registered once; sample documents are loaded.
  ///
  /// - Throws: `RegistrationError` when two modules claim one name, or a module's commands,
  ///   screens or document kinds clash.
  package convenience init(
    modules: [any FeatureModule], environment: ScreenEnvironment = ScreenEnvironment(), clock: SessionClock.Mode = .real
  ) throws(RegistrationError) {
    try self.init(modules: modules, environment: environment, clock: clock, loadSamples: true)
  }

  convenience init(
    modules: [any FeatureModule], environment: ScreenEnvironment, clock: SessionClock.Mode, loadSamples: Bool
  )
    throws(RegistrationError)
  {
    try self.init(
      registry: ModuleRegistry(modules: modules), environment: environment, clock: clock, loadSamples: loadSamples)
  }

  /// A host on modules already registered: hosts made one after another (a scenario run) share
  /// one registration instead of registering every module again.
  public convenience init(
    registry: ModuleRegistry, environment: ScreenEnvironment = ScreenEnvironment(), clock: SessionClock.Mode = .real
  ) {
    self.init(registry: registry, environment: environment, clock: clock, loadSamples: true)
  }

  init(registry: ModuleRegistry, environment: ScreenEnvironment, clock: SessionClock.Mode, loadSamples: Bool) {
    self.environment = environment
    self.clock = SessionClock(mode: clock)
    if let origin = environment.calendarOrigin { self.clock.calendarOrigin = origin }
    // The session's facts are the environment's (a replay's, shared by the hosts of a session).
    self.facts = (environment.services.facts as? SessionFacts) ?? SessionFacts()
    self.services = self.clock.services(facts: facts)
    // The clock reports to the facts' timeline while the session records.
    self.clock.facts = facts
    // A host made while recording (a relaunch): the replay's clock starts again here too.
    facts.timeline?.restart()
    self.registry = registry
    self.resolver = CommandResolver(registry: registry)
    documents = SessionDocuments(registry: registry)
    documents.changed = { [weak self] entry in self?.documentChanged(entry) }
    documents.warned = { [weak self] warning in self?.restorationWarnings.append(warning) }
    documents.removed = { [weak self] name in self?.documentRemoved(name) }
    if loadSamples { documents.loadSamples() }
    services.work = work
  }

  // MARK: Documents

  /// Every document, by name.
  public var documentNames: [String] { documents.names }

  /// The document named `name`, if there is one.
  public func document(named name: String) -> DocumentSnapshot? {
    documents[name]?.snapshot
  }

  /// The revision of the document named `name`, if there is one, without its body (which a
  /// document restored from the workspace decodes when first asked for).
  public func revision(ofDocument name: String) -> Int? {
    documents[name]?.revision
  }

  /// Sets a document's starting state: revision 1, no history, no windows told. For setting up
  /// a session (a scenario's documents), not for edits.
  ///
  /// - Throws: `CommandError` when the kind is unknown or the JSON does not decode as that kind;
  ///   the message names the problem.
  public func seedDocument(named name: String, kind: String, json: [UInt8], revision: Int = 1) throws(CommandError) {
    documents[name] = DocumentEntry(
      name: name, kind: kind, revision: revision, body: try decodeDocument(kind: kind, json: json))
  }

  /// Makes `number` the number the next window opened gets (a replay keeps a recording's
  /// window numbers).
  ///
  /// - Throws: `CommandError` when a window already opened took that number or a later one.
  public func numberNextWindow(_ number: Int) throws(CommandError) {
    guard number >= windowList.nextNumber else {
      throw CommandError("window number \(number) is taken: the next window is number \(windowList.nextNumber)")
    }
    windowList.nextNumber = number
  }

  /// Decodes `json` as a document of `kind`, without adding it anywhere (see `ModuleRegistry`).
  public func decodeDocument(kind: String, json: [UInt8]) throws(CommandError) -> any DocumentBody {
    try registry.decodeDocument(kind: kind, json: json)
  }

  /// Decodes `json` as a document of `kind` and adds it, or replaces the body of the document
  /// with that name as a committed change (saved through `persistence`).
  ///
  /// - Throws: `CommandError` naming the field that is wrong, or why the save failed.
  public func importDocument(named name: String, kind: String, json: [UInt8]) throws(CommandError) {
    try documents.put(try decodeDocument(kind: kind, json: json), named: name, kind: kind)
  }

  /// The registered document kinds' names.
  public var documentKindNames: [String] { registry.documentKindNames }

  /// The kind of the document named `name`, if it exists.
  public func documentKind(of name: String) -> String? { documents[name]?.kind }

  /// The top-level fields the frames of `screen` have, when the screen declares them.
  public func frameFields(ofScreen screen: String) -> [String]? { registry.frameFields(ofScreen: screen) }

  /// The registered screens' names, and the document kind each shows.
  public var screens: [(name: String, documentKind: String)] { registry.screens }

  /// Replaces a document's body with one decoded from `json`, at `revision`, as another
  /// process's change: every window on it is told; its undo history ends. Adds it if missing.
  public func replaceDocument(named name: String, kind: String, json: String, revision: Int) throws(CommandError) {
    documents.adopt(try decodeDocument(kind: kind, json: Array(json.utf8)), named: name, kind: kind, revision: revision)
    // The text it came as is its JSON at that revision: a module process comparing what it holds
    // with what the host sends (`documentJSON`) compares text, and encodes nothing.
    if let entry = documents[name], entry.kind == kind, entry.revision == revision { entry.encoded = (revision, json) }
  }

  /// A document's body as JSON.
  public func documentJSON(named name: String) -> String? {
    try? documents[name]?.json()
  }

  /// Brings in documents other processes changed since this host last looked.
  public func synchronize() throws(CommandError) {
    try documents.synchronize()
  }

  /// Removes a document from the session and the workspace. Windows on it must be closed
  /// first, unless `closingWindows`, which closes them (their unsaved drafts are lost).
  ///
  /// - Throws: `CommandError` when there is no such document, windows show it, or another
  ///   process changed it since this session last looked.
  public func removeDocument(named name: String, closingWindows: Bool) throws(CommandError) {
    if let dormant = dormantDocuments.firstIndex(where: { $0.name == name }) {
      try removeDormantDocument(at: dormant)
      return
    }
    guard let entry = documents[name] else {
      throw CommandError(
        "no document named '\(name)'"
          + Suggestions.didYouMean(name, in: documentNames))
    }
    let showing = windows.filter { $0.documentName == name }
    if !showing.isEmpty, !closingWindows {
      let labels = showing.map { "@" + $0.label }.joined(separator: ", ")
      let unsaved = showing.filter { $0.content.unsavedWork?.unsavedSummary != nil }.map { "@" + $0.label }
      throw CommandError(
        "document '\(name)' is shown in \(labels)"
          + (unsaved.isEmpty ? "" : " (\(unsaved.joined(separator: ", ")) with unsaved changes)")
          + ": close \(showing.count == 1 ? "it" : "them") first, or `documents remove \(name) force` closes "
          + "\(showing.count == 1 ? "it" : "them") and removes the document")
    }
    try documents.remove(entry)
  }

  /// Removes a document of a module that is not loaded from the workspace, on the revision the
  /// session knows (a change made elsewhere since is not overwritten).
  private func removeDormantDocument(at index: Int) throws(CommandError) {
    let document = dormantDocuments[index]
    if let persistence,
      case .conflicted(let current) = try persistence.remove(document: document.name, baseRevision: document.revision)
    {
      dormantDocuments[index].revision = current.revision
      throw CommandError(
        "document '\(document.name)' was changed elsewhere (it is now at revision \(current.revision)), so it was "
          + "not removed: remove it again if you still want it gone")
    }
    dormantDocuments.remove(at: index)
  }

  /// The documents this session removed (see `removeDocument`).
  public var removedDocumentNames: Set<String> { documents.removedNames }

  /// Closes the windows on a document that is gone.
  private func documentRemoved(_ name: String) {
    for window in windows where window.documentName == name {
      restorationWarnings.append(
        RestorationWarning(message: "window \(window.label) closed: its document '\(name)' was removed"))
      windowList.close(window.id)
    }
  }

  /// Tells every window on a document that its body changed.
  private func documentChanged(_ entry: DocumentEntry) {
    for window in windows where window.documentName == entry.name {
      // The screen's code runs as its module (a timer it sets is the module's).
      acting(as: window.screen.module) {
        window.content.documentRevisionChanged(entry.revision)
        window.content.documentReplaced(entry.body)
      }
    }
  }

  // MARK: Windows

  /// The window with the given number.
  public func window(_ id: WindowID) -> Window? { windowList.window(id) }

  /// The focused window.
  public var focusedWindow: Window? { focusedWindowID.flatMap(window) }

  /// The window a user named, by name or number (`left`, `2`, with or without `@`).
  public func window(named reference: String) -> Window? { windowList.window(named: reference) }

  /// Opens a window showing `screen` on `document` and focuses it.
  ///
  /// - Throws: `CommandError` when the screen or document is unknown, the kinds do not match,
  ///   or the name is taken.
  @discardableResult
  public func openWindow(screen screenName: String, document documentName: String, name: String? = nil)
    throws(CommandError) -> Window
  {
    guard let screen = registry.screenKind(named: screenName) else {
      throw CommandError(
        "unknown screen '\(screenName)'" + Suggestions.didYouMean(screenName, in: registry.screenKinds.keys)
          + knownModules.hint(forScreen: screenName))
    }
    guard let entry = documents[documentName] else {
      throw CommandError(
        "no document named '\(documentName)'" + Suggestions.didYouMean(documentName, in: documents.names))
    }
    guard entry.kind == screen.documentKind else {
      throw CommandError(
        "\(screenName) shows \(screen.documentKind) documents, and '\(documentName)' is a \(entry.kind) document")
    }
    if let name { try windowList.validateName(name) }
    guard let content = makeContent(screen, showing: entry, body: try entry.load(), window: nil) else {
      throw CommandError("the \(screenName) screen cannot show '\(documentName)'")
    }
    return windowList.open(screen: screen, document: documentName, name: name, content: content)
  }

  /// A window's content: `screen`'s model made on `body` (the document `entry` holds) for the
  /// window numbered `window` (the next one when `nil`), told the document's revision. Opening,
  /// restoring and reopening a window all make it here.
  func makeContent(_ screen: ScreenKind, showing entry: DocumentEntry, body: any DocumentBody, window: Int?)
    -> (any WindowContent)?
  {
    // The screen's code runs as its module: what it starts as it opens (a load on the
    // session's clock) is the module's.
    // So are the timers it sets: the window's, as its commands' are.
    return clock.inWindow(window ?? windowList.nextNumber) {
      acting(as: screen.module) {
        var environment = environment(for: entry.name, screen: screen.name, window: window)
        environment.documentRevision = entry.revision
        let content = screen.make(body, environment)
        content?.documentRevisionChanged(entry.revision)
        return content
      }
    }
  }

  /// The environment a window on `documentName` is made with.
  func environment(for documentName: String, screen: String? = nil, window: Int? = nil) -> ScreenEnvironment {
    var environment = self.environment
    environment.documentName = documentName
    environment.screenName = screen
    environment.services = services
    environment.windowNumber = window ?? windowList.nextNumber
    return environment
  }

  /// Opens a window with a screen model made by the caller (a module's command that opens a
  /// window from another one, such as entering a room), and focuses it.
  ///
  /// - Throws: `CommandError` when the screen or document is unknown, the model's document is
  ///   not of the screen's kind, or the name is taken.
  @discardableResult
  public func openWindow<Model: ScreenModel>(
    _ model: Model, screen screenName: String, document documentName: String, name: String? = nil
  ) throws(CommandError) -> Window {
    guard let screen = registry.screenKind(named: screenName) else {
      throw CommandError("unknown screen '\(screenName)'")
    }
    guard let entry = documents[documentName] else { throw CommandError("no document named '\(documentName)'") }
    guard entry.kind == screen.documentKind else {
      throw CommandError(
        "\(screenName) shows \(screen.documentKind) documents, and '\(documentName)' is a \(entry.kind) document")
    }
    if let name { try windowList.validateName(name) }
    let content = ScreenBox(model: model)
    content.documentRevisionChanged(entry.revision)
    return windowList.open(screen: screen, document: documentName, name: name, content: content)
  }

  /// The environment for screens a module makes itself (see `openWindow(_:screen:document:name:)`).
  public func screenEnvironment(for documentName: String) -> ScreenEnvironment {
    environment(for: documentName)
  }

  /// Closes a window; focus moves to the window opened before it, or the last one.
  public func closeWindow(_ id: WindowID) { windowList.close(id) }

  /// Focuses a window.
  public func focus(_ id: WindowID) { windowList.focus(id) }

  /// The terminal text of a window: a header line and the screen's rendering of its frame.
  public func renderText(of window: Window) -> String {
    let entry = documents[window.documentName]
    let name = window.name.map { " \($0)" } ?? ""
    let header =
      "[\(window.id.number)\(name)] \(window.screen.name) \(window.documentName)"
      + (entry.map { " · revision \($0.revision)" } ?? "")
    return header + "\n" + window.text
  }

}
