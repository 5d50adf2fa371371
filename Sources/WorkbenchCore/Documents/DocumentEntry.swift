import WorkbenchModuleAPI

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

  nonisolated static func encode(_ body: any DocumentBody) throws -> String { try DocumentKind.encode(body) }
}

/// What a document that could not be decoded reads as: no screen shows it, nothing edits it.
struct UnreadableDocument: DocumentBody {}

/// One committed document change, kept for undo: the body before it and what it was.
struct DocumentEdit {
  let body: any DocumentBody
  let summary: String
}
