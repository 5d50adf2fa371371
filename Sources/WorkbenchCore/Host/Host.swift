import FoundationEssentials

/// The workbench host: the modules it loaded, the documents it holds and the windows open on
/// them. Front ends (the shell, the scenario runner) send it command lines and show what it
/// returns. It does no I/O of its own.
@MainActor
public final class Host {
  /// The loaded modules' manifests, in load order.
  public let manifests: [ModuleManifest]
  let documentKinds: [String: DocumentKind]
  let screenKinds: [String: ScreenKind]
  /// How to start again the modules of this session that run as processes.
  let moduleRestarts: [String: @MainActor () throws -> Void]
  /// Commands every window has, by name.
  var hostCommands: [String: CommandSpec] = [:]
  /// The modules this host runs, registered once (hosts of one run share it).
  public let registry: ModuleRegistry
  /// Where a command name leads, for running, checking, help and completion.
  public var router: CommandRouter { registry.router }
  /// Each module's commands, by module name then command name.
  let moduleCommands: [String: [String: CommandSpec]]
  let environment: ScreenEnvironment

  var documents: [String: DocumentEntry] = [:]
  /// Open windows in the order they were opened.
  public internal(set) var windows: [Window] = []
  /// The window commands run in unless they name another.
  public internal(set) var focusedWindowID: WindowID?
  var nextWindowNumber = 1
  /// The session's clock: real in the shell, virtual in scenarios.
  public let clock: SessionClock
  /// Objects modules share across this session's windows.
  public let services: SessionServices
  /// What could not be restored when this host was built from a session record.
  public internal(set) var restorationWarnings: [RestorationWarning] = []
  /// Where committed documents are stored; `nil` keeps them in memory only.
  public var persistence: (any DocumentPersistence)?

  /// A host with the given modules, each registered once; sample documents are loaded.
  ///
  /// - Throws: `RegistrationError` when two modules claim one name, or a module's commands,
  ///   screens or document kinds clash.
  public convenience init(
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
    self.services = SessionServices(clock: self.clock)
    self.manifests = registry.manifests
    self.documentKinds = registry.documentKinds
    self.screenKinds = registry.screenKinds
    self.moduleCommands = registry.moduleCommands
    self.registry = registry
    self.moduleRestarts = registry.restarts
    let kinds = registry.documentKinds
    for spec in HostCommands.all { hostCommands[spec.name] = spec }
    guard loadSamples else { return }
    for kind in kinds.values.sorted(by: { $0.name < $1.name }) {
      for sample in kind.samples {
        let entry = DocumentEntry(name: sample.name, kind: kind.name, revision: 1, body: sample.body)
        if let json = sample.json { entry.encoded = (1, json) }
        documents[sample.name] = entry
      }
    }
  }

  // MARK: Documents

  /// Every document, by name.
  public var documentNames: [String] { documents.keys.sorted() }

  /// The document named `name`, if there is one.
  public func document(named name: String) -> DocumentSnapshot? {
    documents[name]?.snapshot
  }

  /// Adds a document, or replaces the body of an existing one as a committed change.
  ///
  /// - Throws: `CommandError` when the kind is unknown or does not match the body.
  public func putDocument(_ body: any DocumentBody, named name: String, kind: String) throws(CommandError) {
    guard let documentKind = documentKinds[kind] else {
      throw CommandError("unknown document kind '\(kind)'" + suggestion(kind, in: documentKinds.keys))
    }
    guard documentKind.matches(body) else {
      throw CommandError("the body given for '\(name)' is not a \(kind) document")
    }
    if let entry = documents[name] {
      guard entry.kind == kind else {
        throw CommandError("document '\(name)' is a \(entry.kind) document, not \(kind)")
      }
      try commit(body, to: entry, summary: "replace \(name)")
    } else {
      let entry = DocumentEntry(name: name, kind: kind, revision: 0, body: body)
      try store(body, in: entry)
      documents[name] = entry
    }
  }

  /// Sets a document's starting state: revision 1, no history, no windows told. For setting up
  /// a session (a scenario's documents), not for edits.
  ///
  /// - Throws: `CommandError` when the kind is unknown or the JSON does not decode as that kind;
  ///   the message names the problem.
  public func seedDocument(named name: String, kind: String, json: [UInt8]) throws(CommandError) {
    documents[name] = DocumentEntry(
      name: name, kind: kind, revision: 1, body: try decodeDocument(kind: kind, json: json))
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
    let body = try decodeDocument(kind: kind, json: json)
    try putDocument(body, named: name, kind: kind)
  }

  /// The registered document kinds' names.
  public var documentKindNames: [String] { registry.documentKindNames }

  /// The registered screens' names, and the document kind each shows.
  public var screens: [(name: String, documentKind: String)] { registry.screens }

  func commit(_ body: any DocumentBody, to entry: DocumentEntry, summary: String) throws(CommandError) {
    let previous = entry.body
    try store(body, in: entry)
    entry.undoStack.append(DocumentEdit(body: previous, summary: summary))
    entry.redoStack.removeAll()
  }

  /// Stores `body` as the document's next revision (through `persistence`, when there is one),
  /// then makes it the current facts and tells every window. A failed or conflicting save
  /// changes nothing but, on a conflict, brings in the version that won.
  func store(_ body: any DocumentBody, in entry: DocumentEntry) throws(CommandError) {
    guard let persistence else {
      apply(body, to: entry, revision: entry.revision + 1)
      return
    }
    let json: String
    do {
      json = try DocumentEntry.encode(body)
    } catch {
      throw CommandError("document '\(entry.name)' cannot be saved: \(error)")
    }
    switch try persistence.save(document: entry.name, kind: entry.kind, body: json, baseRevision: entry.revision) {
    case .saved(let revision):
      apply(body, to: entry, revision: revision)
      entry.encoded = (revision, json)
    case .conflicted(let current):
      adoptExternalChange(current)
      throw CommandError(
        "document '\(entry.name)' was changed elsewhere (it is now at revision \(current.revision)), so this edit "
          + "was not saved; the windows show the latest version: make the edit again if you still want it")
    }
  }

  /// Makes `body` the document's current facts at `revision` and tells every window.
  func apply(_ body: any DocumentBody, to entry: DocumentEntry, revision: Int) {
    entry.body = body
    entry.revision = revision
    for window in windows where window.documentName == entry.name {
      window.content.documentRevisionChanged(revision)
      window.content.documentReplaced(body)
    }
  }

  /// Takes in a version of a document stored by someone else. Its undo history ends here:
  /// undoing past another process's change would silently revert it.
  func adoptExternalChange(_ stored: SessionRecord.Document) {
    guard let kind = documentKinds[stored.kind], let body = try? kind.decode(Array(stored.body.utf8)) else {
      restorationWarnings.append(
        RestorationWarning(message: "document '\(stored.name)' changed elsewhere and could not be read; kept as it was")
      )
      return
    }
    adopt(body, named: stored.name, kind: stored.kind, revision: stored.revision)
  }

  private func adopt(_ body: any DocumentBody, named name: String, kind: String, revision: Int) {
    if let entry = documents[name] {
      guard entry.kind == kind else { return }
      entry.undoStack.removeAll()
      entry.redoStack.removeAll()
      apply(body, to: entry, revision: revision)
    } else {
      documents[name] = DocumentEntry(name: name, kind: kind, revision: revision, body: body)
    }
  }

  /// Replaces a document's body with one decoded from `json`, at `revision`, as another
  /// process's change: every window on it is told; its undo history ends. Adds it if missing.
  public func replaceDocument(named name: String, kind: String, json: String, revision: Int) throws(CommandError) {
    adopt(try decodeDocument(kind: kind, json: Array(json.utf8)), named: name, kind: kind, revision: revision)
  }

  /// A document's body as JSON.
  public func documentJSON(named name: String) -> String? {
    try? documents[name]?.json()
  }

  /// Brings in documents other processes changed since this host last looked.
  public func synchronize() throws(CommandError) {
    guard let persistence else { return }
    var known: [String: Int] = [:]
    for (name, entry) in documents { known[name] = entry.revision }
    for change in try persistence.changes(since: known) { adoptExternalChange(change) }
  }

  // MARK: Windows

  /// The window with the given number.
  public func window(_ id: WindowID) -> Window? {
    windows.first { $0.id == id }
  }

  /// The focused window.
  public var focusedWindow: Window? { focusedWindowID.flatMap(window) }

  /// The window a user named, by name or number (`left`, `2`, with or without `@`).
  public func window(named reference: String) -> Window? {
    let reference = reference.hasPrefix("@") ? String(reference.dropFirst()) : reference
    if let byName = windows.first(where: { $0.name == reference }) { return byName }
    if let number = Int(reference) { return windows.first { $0.id.number == number } }
    return nil
  }

  /// Opens a window showing `screen` on `document` and focuses it.
  ///
  /// - Throws: `CommandError` when the screen or document is unknown, the kinds do not match,
  ///   or the name is taken.
  @discardableResult
  public func openWindow(screen screenName: String, document documentName: String, name: String? = nil)
    throws(CommandError) -> Window
  {
    guard let screen = screenKinds[screenName] else {
      throw CommandError("unknown screen '\(screenName)'" + suggestion(screenName, in: screenKinds.keys))
    }
    guard let entry = documents[documentName] else {
      throw CommandError(
        "no document named '\(documentName)'" + suggestion(documentName, in: documents.keys))
    }
    guard entry.kind == screen.documentKind else {
      throw CommandError(
        "\(screenName) shows \(screen.documentKind) documents, and '\(documentName)' is a \(entry.kind) document")
    }
    if let name {
      try validateWindowName(name)
    }
    let screenEnvironment = environment(for: documentName, screen: screenName)
    guard let content = screen.make(entry.body, screenEnvironment) else {
      throw CommandError("the \(screenName) screen cannot show '\(documentName)'")
    }
    content.documentRevisionChanged(entry.revision)
    let window = Window(
      id: WindowID(nextWindowNumber), name: name, screen: screen, documentName: documentName,
      content: content)
    nextWindowNumber += 1
    windows.append(window)
    focusedWindowID = window.id
    return window
  }

  func validateWindowName(_ name: String) throws(CommandError) {
    guard let first = name.first, first.isLetter,
      name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    else {
      throw CommandError(
        "window name '\(name)' must start with a letter and hold only letters, digits, - and _")
    }
    guard window(named: name) == nil else {
      throw CommandError("a window named '\(name)' is already open; pick another name")
    }
  }

  /// The environment a window on `documentName` is made with.
  func environment(for documentName: String, screen: String? = nil) -> ScreenEnvironment {
    var environment = self.environment
    environment.documentName = documentName
    environment.screenName = screen
    environment.services = services
    return environment
  }

  /// Opens a window with a screen model made by the caller (a module's command that opens a
  /// window from another one, such as entering a room), and focuses it.
  @discardableResult
  public func openWindow<Model: ScreenModel>(
    _ model: Model, screen screenName: String, document documentName: String, name: String? = nil
  ) throws(CommandError) -> Window {
    guard let screen = screenKinds[screenName] else { throw CommandError("unknown screen '\(screenName)'") }
    guard let entry = documents[documentName] else { throw CommandError("no document named '\(documentName)'") }
    if let name { try validateWindowName(name) }
    let content = ScreenBox(model: model)
    content.documentRevisionChanged(entry.revision)
    let window = Window(
      id: WindowID(nextWindowNumber), name: name, screen: screen, documentName: documentName, content: content)
    nextWindowNumber += 1
    windows.append(window)
    focusedWindowID = window.id
    return window
  }

  /// The environment for screens a module makes itself (see `openWindow(_:screen:document:name:)`).
  public func screenEnvironment(for documentName: String) -> ScreenEnvironment {
    environment(for: documentName)
  }

  /// Closes a window; focus moves to the window opened before it, or the last one.
  public func closeWindow(_ id: WindowID) {
    guard let index = windows.firstIndex(where: { $0.id == id }) else { return }
    windows[index].content.windowClosed()
    windows.remove(at: index)
    if focusedWindowID == id {
      focusedWindowID = windows.isEmpty ? nil : windows[max(0, index - 1)].id
    }
  }

  /// Focuses a window.
  public func focus(_ id: WindowID) {
    if window(id) != nil { focusedWindowID = id }
  }

  /// The terminal text of a window: a header line and the screen's rendering of its frame.
  public func renderText(of window: Window) -> String {
    let entry = documents[window.documentName]
    let name = window.name.map { " \($0)" } ?? ""
    let header =
      "[\(window.id.number)\(name)] \(window.screen.name) \(window.documentName)"
      + (entry.map { " · revision \($0.revision)" } ?? "")
    return header + "\n" + window.screen.render(window.frame)
  }

  func suggestion(_ word: String, in candidates: some Sequence<String>) -> String {
    Suggestions.closest(to: word, in: candidates).map { ". Did you mean '\($0)'?" } ?? ""
  }
}
