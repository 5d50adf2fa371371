import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The saved session (windows and their view states), the settings, and the checks of a file
/// that may not be a workspace.
extension WorkspaceStore {
  // MARK: Session

  /// Saves the session's windows, their order, names, view states and focus, replacing the
  /// stored ones in one transaction. Documents are saved as they change, not here.
  ///
  /// A window whose view state holds a secret keeps the state it was last saved with (or is left
  /// out, when it has none), and the others are saved as they are: one window's state cannot
  /// cost the rest theirs, nor its own earlier one.
  ///
  /// - Throws: `StoreError` (`.secret`) after saving the others, naming the windows whose state
  ///   was not written; another `StoreError` when nothing could be saved.
  public func saveSession(_ record: SessionRecord) throws(StoreError) {
    let refused = record.windows.filter { Secrets.containsSecret($0.viewState.state) }
    var windows = record.windows
    if !refused.isEmpty {
      let stored = try loadSession(includingWindows: true, includingBodies: false).windows
      windows = record.windows.compactMap { window in
        guard Secrets.containsSecret(window.viewState.state) else { return window }
        return stored.first {
          $0.number == window.number && $0.screen == window.screen && $0.document == window.document
        }
      }
    }
    try connection.transaction { () throws(StoreError) in
      try connection.execute("DELETE FROM windows")
      for (position, window) in windows.enumerated() {
        try connection.query(
          "INSERT INTO windows (number, position, name, screen, document, state_version, state) VALUES (?, ?, ?, ?, ?, ?, ?)",
          [
            .integer(window.number), .integer(position), window.name.map { .text($0) } ?? .null, .text(window.screen),
            .text(window.document), .integer(window.viewState.version), .text(window.viewState.state),
          ])
      }
      try connection.query(
        "INSERT OR REPLACE INTO session (key, value) VALUES ('focused', ?)",
        [record.focusedWindow.map { .integer($0) } ?? .null])
      try connection.query(
        "INSERT OR REPLACE INTO session (key, value) VALUES ('nextWindowNumber', ?)",
        [.integer(record.nextWindowNumber)])
    }
    guard !refused.isEmpty else { return }
    let names = refused.map { "window \($0.name ?? String($0.number))" }.joined(separator: ", ")
    throw StoreError(
      .secret,
      "\(names) holds a secret in its view state, and secrets are never stored: its state as last saved was "
        + "kept (the other windows were saved as they are); keep credentials and tokens out of view state")
  }

  /// The stored session: every document, and the windows (none when `includingWindows` is
  /// false, as batch runs start without windows).
  public func loadSession(includingWindows: Bool = true, includingBodies: Bool = true) throws(StoreError)
    -> SessionRecord
  {
    let documents = includingBodies ? try documents() : try documentSummaries()
    var windows: [SessionRecord.Window] = []
    var focused: Int?
    var next = 1
    if includingWindows {
      let rows = try connection.query(
        "SELECT number, name, screen, document, state_version, state FROM windows ORDER BY position")
      for row in rows {
        guard row.count == 6, case .integer(let number) = row[0], case .text(let screen) = row[2],
          case .text(let document) = row[3], case .integer(let version) = row[4], case .text(let state) = row[5]
        else { continue }
        var name: String? = nil
        if case .text(let text) = row[1] { name = text }
        windows.append(
          SessionRecord.Window(
            number: number, name: name, screen: screen, document: document,
            viewState: ViewStateRecord(version: version, state: state)))
      }
      for row in try connection.query("SELECT key, value FROM session") {
        guard case .text(let key) = row[0], case .integer(let value) = row[1] else { continue }
        if key == "focused" { focused = value }
        if key == "nextWindowNumber" { next = value }
      }
    }
    return SessionRecord(documents: documents, windows: windows, focusedWindow: focused, nextWindowNumber: next)
  }

  // MARK: Settings

  /// The modules every start loads, as executable paths.
  public func modulePaths() throws(StoreError) -> [String] {
    try connection.query("SELECT value FROM meta WHERE key LIKE 'module:%' ORDER BY key").compactMap { row in
      if case .text(let path)? = row.first { return path }
      return nil
    }
  }

  /// The modules the workspace at `path` (the default workspace when `nil`) loads at every
  /// start (`workbench modules add`). Nothing is created: no default workspace yet loads
  /// nothing; a named path with no file there is an error, as is a file that is not a workspace.
  ///
  /// - Throws: `StoreError` naming the path and what is wrong.
  public static func modulePaths(ofWorkspaceAt path: String?) throws(StoreError) -> [String] {
    guard let path = path ?? defaultPath() else { return [] }
    guard FileSystem.exists(path) else {
      if path == defaultPath() { return [] }
      throw StoreError(.other, "there is no workspace at \(path)")
    }
    return try WorkspaceStore(path: path).modulePaths()
  }

  /// The modules the default workspace has seen, when there is one (nothing is created): for
  /// a runner's message about a screen no loaded module has.
  public static func knownModulesOfDefaultWorkspace() -> [KnownModule] {
    guard let path = defaultPath(), FileSystem.exists(path), let store = try? WorkspaceStore(path: path) else {
      return []
    }
    return (try? store.knownModules()) ?? []
  }

  /// The modules this workspace has seen loaded (`rememberModule`), by name.
  public func knownModules() throws(StoreError) -> [KnownModule] {
    try connection.query("SELECT value FROM meta WHERE key LIKE 'seen:%' ORDER BY key").compactMap { row in
      guard case .text(let json)? = row.first,
        let value = try? FrameValue.parse(json: Array(json.utf8)), let name = value["name"]?.stringValue,
        let path = value["path"]?.stringValue
      else { return nil }
      return KnownModule(
        name: name, path: path, documentKinds: value["documentKinds"]?.elements?.compactMap(\.stringValue) ?? [],
        screens: value["screens"]?.elements?.compactMap(\.stringValue) ?? [])
    }
  }

  /// Remembers a module that was loaded, so a document or window of it says whose it is when
  /// the module is not loaded later. Writes only when something changed.
  public func rememberModule(_ module: KnownModule) throws(StoreError) {
    let value: FrameValue = [
      "name": .string(module.name), "path": .string(module.path),
      "documentKinds": .list(module.documentKinds.map(FrameValue.string)),
      "screens": .list(module.screens.map(FrameValue.string)),
    ]
    let key = "seen:" + module.name
    let existing = try connection.query("SELECT value FROM meta WHERE key = ?", [.text(key)]).first?.first
    if case .text(value.jsonText)? = existing { return }
    try connection.transaction { () throws(StoreError) -> Void in
      try connection.query(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [.text(key), .text(value.jsonText)])
    }
  }

  /// Whether `note` was already given for this workspace; records it as given. (A note about
  /// documents of a module not loaded is said once, not at every start.)
  public func noteOnce(_ note: String) throws(StoreError) -> Bool {
    let existing = try connection.query("SELECT value FROM meta WHERE key = 'noted'").first?.first
    if case .text(note)? = existing { return false }
    try connection.transaction { () throws(StoreError) -> Void in
      try connection.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('noted', ?)", [.text(note)])
    }
    return true
  }

  /// Adds or removes a module in the list every start loads.
  public func setModule(_ path: String, loaded: Bool) throws(StoreError) {
    try connection.transaction { () throws(StoreError) -> Void in
      if loaded {
        try connection.query(
          "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [.text("module:" + path), .text(path)])
      } else {
        try connection.query("DELETE FROM meta WHERE key = ?", [.text("module:" + path)])
      }
    }
  }

  // MARK: Checks

  /// `PRAGMA integrity_check`: "ok" for a sound database.
  public func integrityCheck() throws(StoreError) -> String {
    let rows = try connection.query("PRAGMA integrity_check")
    return rows.compactMap { row -> String? in
      if case .text(let text)? = row.first { return text }
      return nil
    }.joined(separator: "\n")
  }

  /// Refuses text that holds an encoded `Secret`.
  static func refuseSecrets(_ text: String, what: String) throws(StoreError) {
    if Secrets.containsSecret(text) {
      throw StoreError(
        .secret,
        "\(what) holds a secret, and secrets are never stored: keep credentials and tokens out of documents "
          + "and view state (nothing was saved)")
    }
  }
}
