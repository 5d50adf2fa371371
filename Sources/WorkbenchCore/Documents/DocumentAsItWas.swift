/// What a time-travel journal needs of the documents: their revisions without reading
/// bodies, and each body as it was before it changed (`Host.documentWillChange`).
extension Host {
  /// The documents now, by name: kind and revision, no bodies read.
  public var documentRevisions: [String: (kind: String, revision: Int)] {
    var result: [String: (kind: String, revision: Int)] = [:]
    for name in documents.names {
      if let entry = documents[name] { result[name] = (entry.kind, entry.revision) }
    }
    return result
  }

  /// Takes in a document as a workspace stores it, decoded when first needed (a broken one
  /// says so then, as it would in the workspace): how a replay starts from a workspace session.
  public func adoptStoredDocument(_ record: SessionRecord.Document) {
    documents.adoptExternalChange(record)
  }
}

/// A document as it was before a change: its kind, revision and body (decoded, or the JSON it
/// was stored as), encoded when asked.
public struct DocumentAsItWas: Sendable {
  public let name: String
  public let kind: String
  public let revision: Int
  private let body: (any DocumentBody)?
  private let stored: String?

  @MainActor init(_ entry: DocumentEntry) {
    name = entry.name
    kind = entry.kind
    revision = entry.revision
    if entry.isLoaded {
      body = entry.body
      stored = nil
    } else {
      body = nil
      stored = try? entry.json()
    }
  }

  /// The body as JSON, or `nil` when it could not be read.
  public func json() -> String? {
    if let stored { return stored }
    return body.flatMap { try? DocumentEntry.encode($0) }
  }
}
