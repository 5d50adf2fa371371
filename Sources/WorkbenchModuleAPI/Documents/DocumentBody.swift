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
package struct DocumentKind: Sendable {
  /// The kind's name (`catalog`).
  package let name: String
  /// The module that registered it.
  package let module: String
  /// One line that says what the kind holds.
  package let summary: String
  /// The sample documents a new workspace starts with.
  package let samples: [SampleDocument]
  package let matches: @Sendable (any DocumentBody) -> Bool
  package let decode: @Sendable ([UInt8]) throws -> any DocumentBody
  /// The edit from one body to the next (`DocumentBody.edit(from:)`), when there is one.
  package let edit: @Sendable (_ previous: any DocumentBody, _ next: any DocumentBody) -> String?
  /// A body with a stored edit applied.
  package let apply: @Sendable (any DocumentBody, String) throws -> any DocumentBody

  /// A snapshot with the edits stored since applied, as JSON: what a reader of the whole
  /// document (another process, an export) gets.
  package func materialize(snapshot: String, edits: [String]) throws -> String {
    var body = try decode(Array(snapshot.utf8))
    for edit in edits { body = try apply(body, edit) }
    return try Self.encode(body)
  }

  /// A body as JSON with sorted keys: its own quick encoding when it has one.
  package nonisolated static func encode(_ body: any DocumentBody) throws -> String {
    if let quick = body.encodeQuickly() { return String(decoding: quick, as: UTF8.self) }
    return try FrameValueEncoder(sortsKeys: true).json(body)
  }
}

/// A sample document of a kind. Its JSON is encoded the first time any host on the registry
/// needs it (a new workspace stores it) and then shared: a start on a workspace that already
/// holds the samples encodes none of them, and the runner's many hosts encode each one once.
package final class SampleDocument: Sendable {
  package let name: String
  package let body: any DocumentBody
  private let encoded = Mutex<String??>(nil)

  package init(name: String, body: any DocumentBody) {
    self.name = name
    self.body = body
  }

  /// The body as JSON; `nil` when it does not encode.
  package var json: String? {
    encoded.withLock { encoded in
      if let encoded { return encoded }
      let json = try? DocumentKind.encode(body)
      encoded = .some(json)
      return json
    }
  }

  /// The JSON if some host has encoded it already.
  package var jsonIfEncoded: String? { encoded.withLock { $0 ?? nil } }
}

/// Turns a `DecodingError` into a sentence that names the field: `books[2].title: missing`.
package enum DecodingErrorText {
  /// A readable description of a decoding error.
  package static func describe(_ error: DecodingError) -> String {
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

  package init(name: String, kind: String, revision: Int, body: any DocumentBody) {
    self.name = name
    self.kind = kind
    self.revision = revision
    self.body = body
  }
}
