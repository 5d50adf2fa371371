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

  /// Saves the session's windows, their order, names, view states and focus in one
  /// transaction. Documents are saved as they change, not here.
  ///
  /// Only this session's rows are replaced: those it loaded or wrote before (updated, or
  /// removed when their window was closed here) and its new windows. A window another shell
  /// saved meanwhile is kept, after this session's; a row this session loaded that another
  /// shell removed is written again while its window is open here. Two shells on one workspace
  /// so never lose each other's windows; a window both show is saved as the last to save left it.
  ///
  /// A window whose view state holds a secret keeps the state it was last saved with (or is left
  /// out, when it has none), and the others are saved as they are: one window's state cannot
  /// cost the rest theirs, nor its own earlier one.
  ///
  /// - Throws: `StoreError` (`.secret`) after saving the others, naming the windows whose state
  ///   was not written; another `StoreError` when nothing could be saved.
  public func saveSession(_ record: SessionRecord) throws(StoreError) {
    var refused: [SessionRecord.Window] = []
    var owned: [Int: Int] = [:]
    var writes: [Int: Int] = [:]
    try connection.transaction { () throws(StoreError) in
      let stored = try storedWindowRows()
      let present = Set(stored.map(\.id))
      // This save's stamp on the rows it writes.
      let stamp = OutsideNumbers.saturatingSuccessor(of: try sessionValue("windowWrites") ?? 0)
      var position = 0
      for window in record.windows {
        defer { position += 1 }
        let row = ownRows[window.number].flatMap { present.contains($0) ? $0 : nil }
        if Secrets.containsSecret(window.viewState.state) {
          refused.append(window)
          // Its row (if this session has one) keeps the state it was last saved with.
          guard let row else { continue }
          try connection.query("UPDATE windows SET position = ? WHERE id = ?", [.integer(position), .integer(row)])
          owned[window.number] = row
          writes[row] = ownWrites[row]
          continue
        }
        let values: [SQLiteConnection.Value] = [
          .integer(window.number), .integer(position), window.name.map { .text($0) } ?? .null, .text(window.screen),
          .text(window.document), .integer(window.viewState.version), .text(window.viewState.state), .integer(stamp),
        ]
        if let row {
          try connection.query(
            "UPDATE windows SET number = ?, position = ?, name = ?, screen = ?, document = ?, state_version = ?, "
              + "state = ?, written = ? WHERE id = ?", values + [.integer(row)])
          owned[window.number] = row
        } else {
          try connection.query(
            "INSERT INTO windows (number, position, name, screen, document, state_version, state, written) "
              + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values)
          owned[window.number] = connection.lastInsertedRow
        }
        writes[owned[window.number] ?? 0] = stamp
      }
      // The rows this session had whose windows are closed now go, unless another shell saved
      // one since (its window is open there: it is that shell's now); another shell's rows stay,
      // after this session's, in their order.
      let kept = Set(owned.values)
      let written = Dictionary(stored.map { ($0.id, $0.written) }, uniquingKeysWith: { $1 })
      var closedHere = Set<Int>()
      for row in Set(ownRows.values).subtracting(kept) where present.contains(row) {
        guard written[row] == ownWrites[row] else { continue }
        try connection.query("DELETE FROM windows WHERE id = ?", [.integer(row)])
        closedHere.insert(row)
      }
      var highest = record.windows.map(\.number).max() ?? 0
      for row in stored where !kept.contains(row.id) && !closedHere.contains(row.id) {
        try connection.query("UPDATE windows SET position = ? WHERE id = ?", [.integer(position), .integer(row.id)])
        position += 1
        highest = max(highest, row.number)
      }
      let storedNext = try sessionValue("nextWindowNumber") ?? 1
      let next = max(record.nextWindowNumber, storedNext, OutsideNumbers.saturatingSuccessor(of: highest))
      try connection.query(
        "INSERT OR REPLACE INTO session (key, value) VALUES ('focused', ?)",
        [record.focusedWindow.map { .integer($0) } ?? .null])
      try connection.query(
        "INSERT OR REPLACE INTO session (key, value) VALUES ('nextWindowNumber', ?)", [.integer(next)])
      try connection.query(
        "INSERT OR REPLACE INTO session (key, value) VALUES ('windowWrites', ?)", [.integer(stamp)])
    }
    ownRows = owned
    ownWrites = writes
    guard !refused.isEmpty else { return }
    let names = refused.map { "window \($0.name ?? String($0.number))" }.joined(separator: ", ")
    throw StoreError(
      .secret,
      "\(names) holds a secret in its view state, and secrets are never stored: its state as last saved was "
        + "kept (the other windows were saved as they are); keep credentials and tokens out of view state")
  }

  /// The stored session: every document, and the windows (none when `includingWindows` is
  /// false, as batch runs start without windows).
  ///
  /// Loading the windows makes their rows this session's: its next `saveSession` replaces them.
  /// Two windows by one number (two shells each opened a window 3) are told apart here: the
  /// first in order keeps it, the other gets the next free number (`renumberedWindows`).
  public func loadSession(includingWindows: Bool = true, includingBodies: Bool = true) throws(StoreError)
    -> SessionRecord
  {
    let documents = includingBodies ? try documents() : try documentSummaries()
    var windows: [SessionRecord.Window] = []
    var focused: Int?
    var next = 1
    if includingWindows {
      let rows = try storedWindowRows()
      focused = try sessionValue("focused")
      next = max(try sessionValue("nextWindowNumber") ?? 1, 1)
      for row in rows { next = max(next, OutsideNumbers.saturatingSuccessor(of: row.number)) }
      var owned: [Int: Int] = [:]
      var writes: [Int: Int] = [:]
      var renumbered: [(from: Int, to: Int)] = []
      for row in rows {
        var window = row.window
        if owned[window.number] != nil {
          renumbered.append((from: window.number, to: next))
          window.number = next
          next = OutsideNumbers.saturatingSuccessor(of: next)
        }
        owned[window.number] = row.id
        writes[row.id] = row.written
        windows.append(window)
      }
      ownRows = owned
      ownWrites = writes
      renumberedWindows = renumbered
    }
    return SessionRecord(documents: documents, windows: windows, focusedWindow: focused, nextWindowNumber: next)
  }

  /// A saved window and its row.
  private struct WindowRow {
    var id: Int
    var number: Int { window.number }
    var window: SessionRecord.Window
    /// The save that wrote it last (`windowWrites` then).
    var written: Int
  }

  /// The saved windows in order. A row that does not read as a window is left out (and kept).
  private func storedWindowRows() throws(StoreError) -> [WindowRow] {
    try connection.query(
      "SELECT id, number, name, screen, document, state_version, state, written FROM windows ORDER BY position, id"
    ).compactMap { row in
      guard row.count == 8, case .integer(let id) = row[0], case .integer(let number) = row[1],
        case .text(let screen) = row[3], case .text(let document) = row[4], case .integer(let version) = row[5],
        case .text(let state) = row[6]
      else { return nil }
      var name: String? = nil
      if case .text(let text) = row[2] { name = text }
      return WindowRow(
        id: id,
        window: SessionRecord.Window(
          number: number, name: name, screen: screen, document: document,
          viewState: ViewStateRecord(version: version, state: state)),
        written: { if case .integer(let written) = row[7] { return written } else { return 0 } }())
    }
  }

  /// An integer of the `session` table.
  private func sessionValue(_ key: String) throws(StoreError) -> Int? {
    let rows = try connection.query("SELECT value FROM session WHERE key = ?", [.text(key)])
    if case .integer(let value)? = rows.first?.first { return value }
    return nil
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
