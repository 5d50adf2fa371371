import CSQLite

#if canImport(Glibc)
  import Glibc
#endif

/// A failure of the workspace database, with a message that says what to do.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What kind of failure, for callers that react differently.
  public enum Kind: Equatable, Sendable {
    case notADatabase, foreign, readOnly, locked, full, corrupt, secret, invalid, ioError, other
  }

  public let kind: Kind
  public let message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { message }
}

/// A thin, typed layer over one SQLite connection. Every statement is prepared, bound and
/// finalized here; nothing else in the project touches the C API.
final class SQLiteConnection {
  private var handle: OpaquePointer?
  let path: String
  /// Prepared statements by SQL text, reused: the host asks for changes before every command.
  private var statements: [String: OpaquePointer] = [:]

  init(path: String, readOnly: Bool = false) throws(StoreError) {
    self.path = path
    var flags = SQLITE_OPEN_NOMUTEX | (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
    if path.hasPrefix("file:") { flags |= SQLITE_OPEN_URI }
    let result = sqlite3_open_v2(path, &handle, flags, nil)
    guard result == SQLITE_OK else {
      let error = SQLiteConnection.error(code: result, handle: handle, path: path)
      sqlite3_close_v2(handle)
      handle = nil
      throw error
    }
    sqlite3_extended_result_codes(handle, 1)
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_close_v2(handle)
  }

  /// Runs SQL that returns no rows (several statements allowed).
  func execute(_ sql: String) throws(StoreError) {
    var message: UnsafeMutablePointer<CChar>? = nil
    let result = sqlite3_exec(handle, sql, nil, nil, &message)
    defer { sqlite3_free(message) }
    guard result == SQLITE_OK else { throw SQLiteConnection.error(code: result, handle: handle, path: path) }
  }

  /// A value to bind to a statement parameter.
  enum Value: Equatable {
    case integer(Int)
    case text(String)
    case null
  }

  /// Runs one statement with parameters and returns its rows.
  @discardableResult
  func query(_ sql: String, _ parameters: [Value] = []) throws(StoreError) -> [[Value]] {
    var result = SQLITE_OK
    let statement: OpaquePointer?
    if let cached = statements[sql] {
      statement = cached
    } else {
      var prepared: OpaquePointer?
      result = sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
      guard result == SQLITE_OK, let prepared else {
        throw SQLiteConnection.error(code: result, handle: handle, path: path)
      }
      statements[sql] = prepared
      statement = prepared
    }
    defer {
      sqlite3_reset(statement)
      sqlite3_clear_bindings(statement)
    }
    for (index, parameter) in parameters.enumerated() {
      let position = Int32(index + 1)
      switch parameter {
      case .integer(let value): result = sqlite3_bind_int64(statement, position, Int64(value))
      case .text(let value): result = sqlite3_bind_text(statement, position, value, -1, wb_sqlite_transient())
      case .null: result = sqlite3_bind_null(statement, position)
      }
      guard result == SQLITE_OK else { throw SQLiteConnection.error(code: result, handle: handle, path: path) }
    }
    var rows: [[Value]] = []
    while true {
      result = sqlite3_step(statement)
      if result == SQLITE_DONE { return rows }
      guard result == SQLITE_ROW else { throw SQLiteConnection.error(code: result, handle: handle, path: path) }
      var row: [Value] = []
      for column in 0..<sqlite3_column_count(statement) {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: row.append(.integer(Int(sqlite3_column_int64(statement, column))))
        case SQLITE_NULL: row.append(.null)
        default:
          if let text = sqlite3_column_text(statement, column) {
            row.append(.text(String(cString: text)))
          } else {
            row.append(.null)
          }
        }
      }
      rows.append(row)
    }
  }

  /// The row id the last `INSERT` gave.
  var lastInsertedRow: Int { Int(sqlite3_last_insert_rowid(handle)) }

  /// Rows changed by the last statement.
  var changes: Int { Int(sqlite3_changes(handle)) }

  /// Runs `body` in a transaction that takes the write lock at once (`BEGIN IMMEDIATE`), so two
  /// processes never both read and then write; rolled back if `body` throws.
  func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
    try execute("BEGIN IMMEDIATE")
    do {
      let value = try body()
      try execute("COMMIT")
      return value
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }

  static func error(code: Int32, handle: OpaquePointer?, path: String) -> StoreError {
    let detail =
      handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
    // An I/O error says more through the operating system's error number, where SQLite kept
    // it (it does for failures it meets while opening; not for those at COMMIT).
    if code & 0xFF == SQLITE_IOERR || code & 0xFF == SQLITE_CANTOPEN, let handle {
      switch sqlite3_system_errno(handle) {
      case ENOSPC, EDQUOT:
        return StoreError(.full, "the disk holding \(path) is full; nothing was saved: free some space and try again")
      case EROFS, EACCES, EPERM:
        return StoreError(
          .readOnly,
          "the workspace \(path) cannot be written (\(String(cString: strerror(sqlite3_system_errno(handle))))), "
            + "so nothing was saved: check its permissions and the disk it is on")
      case EIO:
        return StoreError(
          .ioError,
          "the disk holding \(path) reported an input/output error, so nothing was saved: check the disk, then try "
            + "again")
      default: break
      }
    }
    switch code & 0xFF {
    case SQLITE_IOERR:
      if code == 266 || code == 522 {  // SQLITE_IOERR_READ, SQLITE_IOERR_SHORT_READ (macros Swift cannot import)
        return StoreError(.ioError, "the workspace \(path) could not be read (\(detail)): check the disk it is on")
      }
      return StoreError(
        .ioError,
        "the workspace \(path) could not be written (\(detail)), so nothing was saved: check that its disk has room "
          + "and can be written, then try again")
    case SQLITE_NOTADB:
      return StoreError(
        .notADatabase,
        "\(path) is not a workbench workspace (it is not an SQLite database): move it away, or pick another "
          + "file with --workspace")
    case SQLITE_READONLY:
      return StoreError(
        .readOnly, "the workspace \(path) is read-only, so nothing was saved: check its permissions (\(detail))")
    case SQLITE_BUSY, SQLITE_LOCKED:
      return StoreError(
        .locked, "the workspace \(path) is locked by another process; nothing was saved: try again in a moment")
    case SQLITE_FULL:
      return StoreError(.full, "the disk holding \(path) is full; nothing was saved: free some space and try again")
    case SQLITE_CORRUPT:
      return StoreError(.corrupt, "the workspace \(path) is damaged (\(detail)): restore it from a backup")
    case SQLITE_CANTOPEN:
      return StoreError(.other, "cannot open the workspace \(path): \(detail)")
    default:
      return StoreError(.other, "the workspace \(path) failed: \(detail)")
    }
  }
}
