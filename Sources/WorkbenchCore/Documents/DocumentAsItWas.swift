import WorkbenchModuleAPI

/// What a time-travel journal needs of the documents: their revisions without reading
/// bodies, and each body as it was before it changed (`Host.documentWillChange`).
extension Host {
  /// Every document's revision by its name: to tell whether a step changed one, at the cost
  /// of one pass over the documents.
  public var revisionsByDocument: [String: Int] { documents.revisions }

  /// The documents now, by name: kind and revision, no bodies read.
  public var documentRevisions: [String: (kind: String, revision: Int)] {
    var result: [String: (kind: String, revision: Int)] = [:]
    for name in documents.names {
      if let entry = documents[name] { result[name] = (entry.kind, entry.revision) }
    }
    return result
  }

  /// A document as it is now (its body, or where it is read from while not decoded), or `nil`
  /// when there is no such document.
  public func documentAsItIs(named name: String) -> DocumentAsItWas? {
    documents[name].map(DocumentAsItWas.init)
  }

  /// Takes in a document as another host had it, decoded only when first needed if it was
  /// not decoded there (a broken one says so then): how a replay starts from a workspace
  /// session.
  public func adopt(_ document: DocumentAsItWas) {
    documents.adopt(document)
  }
}

/// A document as it was before a change: its kind, revision and body, or, when it had not been
/// decoded, where it is read from (the workspace it was stored in).
public struct DocumentAsItWas {
  public let name: String
  public let kind: String
  public let revision: Int
  let content: Content

  enum Content {
    case body(any DocumentBody)
    case stored(read: @MainActor () throws(CommandError) -> StoredDocument, reader: DocumentKind)
  }

  @MainActor init(_ entry: DocumentEntry) {
    name = entry.name
    kind = entry.kind
    revision = entry.revision
    if let stored = entry.storedSource {
      content = .stored(read: stored.read, reader: stored.reader)
    } else {
      content = .body(entry.body)
    }
  }
}

extension SessionDocuments {
  /// Takes in a document as another host had it (see `Host.adopt(_:)`).
  func adopt(_ document: DocumentAsItWas) {
    switch document.content {
    case .body(let body):
      self[document.name] = DocumentEntry(
        name: document.name, kind: document.kind, revision: document.revision, body: body)
    case .stored(let read, let reader):
      self[document.name] = DocumentEntry(
        name: document.name, kind: document.kind, revision: document.revision, source: read, reader: reader)
    }
    forgetRemoval(of: document.name)
  }
}
