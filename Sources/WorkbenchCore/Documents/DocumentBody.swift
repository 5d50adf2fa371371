import Synchronization

/// The facts a document holds. A module's document type conforms; decoding from untrusted
/// input must throw a validation error, never trap.
public protocol DocumentBody: Codable, Equatable, Sendable {
  /// Reads the document from JSON faster than a decoder would, for kinds whose documents get
  /// big: `nil` when the text is not in the plain shape this reads (the host then decodes it
  /// the usual way, which also says what is wrong). Throws the document's own validation
  /// errors. By default, `nil`.
  static func decodeQuickly(_ json: [UInt8]) throws -> Self?
  /// The document as JSON, written faster than an encoder would; `nil` by default.
  func encodeQuickly() -> [UInt8]?
  /// How this document differs from `previous`, as a small JSON edit the workspace can store
  /// instead of the whole document (a renamed book: its id and new title); `nil` when it was
  /// not made from `previous` by one edit this kind can describe, and then the whole document
  /// is stored. By default, `nil`.
  func edit(from previous: Self) -> String?
  /// This document with a stored edit applied (one `edit(from:)` gave).
  func applying(edit: String) throws -> Self
}

extension DocumentBody {
  public static func decodeQuickly(_ json: [UInt8]) throws -> Self? { nil }
  public func encodeQuickly() -> [UInt8]? { nil }
  public func edit(from previous: Self) -> String? { nil }
  public func applying(edit: String) throws -> Self {
    throw DocumentEditError("documents of this kind have no stored edits")
  }
}

/// A stored edit that cannot be applied.
public struct DocumentEditError: Error, CustomStringConvertible {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// A registered kind of document.
public struct DocumentKind: Sendable {
  /// The kind's name (`catalog`).
  public let name: String
  /// The module that registered it.
  public let module: String
  /// One line that says what the kind holds.
  public let summary: String
  /// The sample documents a new workspace starts with.
  let samples: [SampleDocument]
  let matches: @Sendable (any DocumentBody) -> Bool
  let decode: @Sendable ([UInt8]) throws -> any DocumentBody
  /// The edit from one body to the next (`DocumentBody.edit(from:)`), when there is one.
  let edit: @Sendable (_ previous: any DocumentBody, _ next: any DocumentBody) -> String?
  /// A body with a stored edit applied.
  let apply: @Sendable (any DocumentBody, String) throws -> any DocumentBody

  /// A snapshot with the edits stored since applied, as JSON: what a reader of the whole
  /// document (another process, an export) gets.
  func materialize(snapshot: String, edits: [String]) throws -> String {
    var body = try decode(Array(snapshot.utf8))
    for edit in edits { body = try apply(body, edit) }
    return try DocumentEntry.encode(body)
  }
}

/// A sample document of a kind. Its JSON is encoded the first time any host on the registry
/// needs it (a new workspace stores it) and then shared: a start on a workspace that already
/// holds the samples encodes none of them, and the runner's many hosts encode each one once.
final class SampleDocument: Sendable {
  let name: String
  let body: any DocumentBody
  private let encoded = Mutex<String??>(nil)

  init(name: String, body: any DocumentBody) {
    self.name = name
    self.body = body
  }

  /// The body as JSON; `nil` when it does not encode.
  var json: String? {
    encoded.withLock { encoded in
      if let encoded { return encoded }
      let json = try? DocumentEntry.encode(body)
      encoded = .some(json)
      return json
    }
  }

  /// The JSON if some host has encoded it already.
  var jsonIfEncoded: String? { encoded.withLock { $0 ?? nil } }
}

/// Turns a `DecodingError` into a sentence that names the field: `books[2].title: missing`.
public enum DecodingErrorText {
  /// A readable description of a decoding error.
  public static func describe(_ error: DecodingError) -> String {
    func path(_ keys: [any CodingKey]) -> String {
      var text = ""
      for key in keys {
        if let index = key.intValue {
          text += "[\(index)]"
        } else {
          text += (text.isEmpty ? "" : ".") + key.stringValue
        }
      }
      return text.isEmpty ? "the document" : text
    }
    switch error {
    case .keyNotFound(let key, let context):
      return "\(path(context.codingPath + [key])) is missing"
    case .typeMismatch(let type, let context):
      return "\(path(context.codingPath)) should be \(describe(type))"
    case .valueNotFound(let type, let context):
      return "\(path(context.codingPath)) should be \(describe(type)), not null"
    case .dataCorrupted(let context):
      if let underlying = context.underlyingError { return "\(path(context.codingPath)): \(underlying)" }
      return "\(path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
      return String(describing: error)
    }
  }

  private static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: return "text"
    case is Int.Type, is Int64.Type: return "a whole number"
    case is Double.Type: return "a number"
    case is Bool.Type: return "true or false"
    default:
      let name = String(describing: type)
      if name.hasPrefix("Array") { return "a list" }
      if name.hasPrefix("Dictionary") { return "a mapping" }
      return "a \(name)"
    }
  }
}

/// A document in the host: named, of a kind, with a revision that increases on every
/// committed change.
public struct DocumentSnapshot: Sendable {
  /// The document's name (`library`).
  public let name: String
  /// Its kind's name.
  public let kind: String
  /// Increases by one on every committed change, undo and redo included.
  public let revision: Int
  /// The facts.
  public let body: any DocumentBody
}

/// The host's record of one document and its edit history.
@MainActor
final class DocumentEntry {
  let name: String
  let kind: String
  var revision: Int
  var undoStack: [DocumentEdit] = []
  var redoStack: [DocumentEdit] = []
  /// The body as JSON, for the revision it was encoded at: saves and session records reuse it.
  var encoded: (revision: Int, json: String)?

  /// The decoded body, or how to get it: a document restored from the workspace is decoded
  /// when something first needs it (a window opens on it, a command names it), not at start.
  private var loaded: (any DocumentBody)?
  private var source: (@MainActor () throws(CommandError) -> StoredDocument)?
  /// The kind that decodes the stored text and applies its edits.
  private let reader: DocumentKind?
  /// Edits stored since the workspace's snapshot of this document: past a limit the next save
  /// writes a snapshot again, so a start never replays a long log.
  var editsSinceSnapshot = 0

  init(name: String, kind: String, revision: Int, body: any DocumentBody) {
    self.name = name
    self.kind = kind
    self.revision = revision
    self.loaded = body
    self.reader = nil
  }

  /// A document whose body is decoded from `source` when first needed.
  init(
    name: String, kind: String, revision: Int, source: @escaping @MainActor () throws(CommandError) -> StoredDocument,
    reader: DocumentKind
  ) {
    self.name = name
    self.kind = kind
    self.revision = revision
    self.source = source
    self.reader = reader
  }

  /// A document whose body is made when first needed (a sample of a module registered late).
  init(
    name: String, kind: String, revision: Int, making: @escaping @MainActor () throws(CommandError) -> any DocumentBody
  ) {
    self.name = name
    self.kind = kind
    self.revision = revision
    self.making = making
    self.reader = nil
  }

  /// How to make the body, for a document made rather than decoded.
  private var making: (@MainActor () throws(CommandError) -> any DocumentBody)?

  /// Whether the body has been decoded.
  var isLoaded: Bool { loaded != nil }

  /// Where the body is read from while it is not decoded (`nil` once it is, or for a body
  /// made rather than stored).
  var storedSource: (read: @MainActor () throws(CommandError) -> StoredDocument, reader: DocumentKind)? {
    guard loaded == nil, let source, let reader else { return nil }
    return (source, reader)
  }

  /// The body, decoded now if it was not yet.
  ///
  /// - Throws: `CommandError` naming the document and what is wrong with it; the stored
  ///   document is left as it is.
  @MainActor func load() throws(CommandError) -> any DocumentBody {
    if let loaded { return loaded }
    if let making {
      let body = try making()
      loaded = body
      self.making = nil
      return body
    }
    guard let source, let reader else { throw CommandError("document '\(name)' has no body") }
    var stored = try source()
    let small = stored.json.utf8.count <= 4 << 20
    let text = small ? stored.json : ""
    let bytes = Array(stored.json.utf8)
    // A big text is let go before decoding, so it and its bytes are not held at once.
    if !small { stored.json = "" }
    do {
      var body = try reader.decode(bytes)
      for edit in stored.edits { body = try reader.apply(body, edit) }
      loaded = body
      revision = stored.revision
      editsSinceSnapshot = stored.edits.count
      // The text is kept for records and saves of an unchanged body, unless it is big: then
      // memory matters more than encoding it again if it is ever asked for.
      if stored.edits.isEmpty, small { encoded = (stored.revision, text) }
      self.source = nil
      return body
    } catch let error as CommandError {
      throw CommandError(
        "document '\(name)' could not be read (\(error.message)); it is kept in the workspace, untouched")
    } catch {
      throw CommandError("document '\(name)' could not be read (\(error)); it is kept in the workspace, untouched")
    }
  }

  /// The body. A body not decoded yet is decoded here; one that cannot be decoded reads as
  /// `UnreadableDocument`, which no screen shows (callers that can report the reason call
  /// `load()` first).
  @MainActor var body: any DocumentBody {
    get { (try? load()) ?? UnreadableDocument() }
    set {
      loaded = newValue
      source = nil
      making = nil
    }
  }

  @MainActor var snapshot: DocumentSnapshot {
    DocumentSnapshot(name: name, kind: kind, revision: revision, body: body)
  }

  /// The body as JSON with sorted keys, encoded once per revision; a body not decoded yet is
  /// given as it was stored, without decoding it.
  @MainActor func json() throws -> String {
    if let encoded, encoded.revision == revision { return encoded.json }
    if loaded == nil, let source {
      let stored = try source()
      if stored.revision == revision, stored.edits.isEmpty { return stored.json }
    }
    let json = try DocumentEntry.encode(body)
    encoded = (revision, json)
    return json
  }

  nonisolated static func encode(_ body: any DocumentBody) throws -> String {
    if let quick = body.encodeQuickly() { return String(decoding: quick, as: UTF8.self) }
    return try FrameValueEncoder(sortsKeys: true).json(body)
  }
}

/// What a document that could not be decoded reads as: no screen shows it, nothing edits it.
struct UnreadableDocument: DocumentBody {}

/// One committed document change, kept for undo: the body before it and what it was.
struct DocumentEdit {
  let body: any DocumentBody
  let summary: String
}
