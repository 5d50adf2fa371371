import WorkbenchModuleAPI

/// What a set of registered modules can say without a host: a screen's frame fields, what a
/// document kind decodes. The scenario loader checks files with these before anything runs.
extension ModuleRegistry {
  /// The top-level fields the frames of `screen` have, when the screen declares them.
  public func frameFields(ofScreen screen: String) -> [String]? {
    screenKind(named: screen)?.frameFields
  }

  /// What a field of a screen's frames means, when the screen says.
  public func summary(ofField field: String, ofScreen screen: String) -> String? {
    screenKind(named: screen)?.fieldSummaries()[field]
  }

  /// The fields inside the field at `path` of `screen`'s frames (`["viewport"]`; `[]`: the
  /// frame's own), from its typed frame's table or what its module process declared; `nil` when
  /// the screen says nothing of them or the path leaves its fields.
  public func nestedFields(ofScreen screen: String, at path: [String]) -> [FrameFieldSchema]? {
    guard let schema = screenKind(named: screen)?.fieldSchema else { return nil }
    return FrameFieldSchema.fields(at: path, in: schema())
  }

  /// What every field of a screen's frames means, by name (empty when the screen does not say).
  public func fieldSummaries(ofScreen screen: String) -> [String: String] {
    screenKind(named: screen)?.fieldSummaries() ?? [:]
  }

  /// The fields of `screen`'s frames that count what happened in a window's life (loads since
  /// it opened), which a recording leaves out of its expectations.
  public func lifetimeFields(ofScreen screen: String) -> [String] {
    screenKind(named: screen)?.lifetimeFields ?? []
  }

  /// The fields of a screen's frames that show why a command was refused.
  public func refusalFields(ofScreen screen: String) -> [String] {
    screenKind(named: screen)?.refusalFields ?? []
  }

  /// The fields a screen's windows hold of their own (see `ScreenModel.ownFields`).
  public func ownFields(ofScreen screen: String) -> [String] {
    screenKind(named: screen)?.ownFields ?? []
  }

  /// Turns a stored snapshot and the edits stored since into the whole document's JSON (what
  /// the workspace gives a reader of the whole document).
  public func materializeDocument(kind: String, snapshot: String, edits: [String]) throws -> String {
    guard let documentKind = documentKinds[kind] else {
      throw CommandError("no module here knows '\(kind)' documents")
    }
    return try documentKind.materialize(snapshot: snapshot, edits: edits)
  }

  /// The screen with this name, and the document kind it shows.
  public func screen(named name: String) -> (name: String, documentKind: String)? {
    screenKind(named: name).map { ($0.name, $0.documentKind) }
  }

  /// The registered screens' names, and the document kind each shows.
  public var screens: [(name: String, documentKind: String)] {
    screenKinds.values.map { ($0.name, $0.documentKind) }.sorted { $0.name < $1.name }
  }

  /// The registered document kinds' names.
  public var documentKindNames: [String] { documentKinds.keys.sorted() }

  /// The modules' sample documents as records: what a new session holds before anything changes.
  public var sampleRecords: [SessionRecord.Document] { sampleRecords(excluding: []) }

  /// The sample documents but those named in `names`, as records. Only these are encoded (once
  /// per registry).
  public func sampleRecords(excluding names: Set<String>) -> [SessionRecord.Document] {
    documentKinds.values.sorted { $0.name < $1.name }.flatMap { kind in
      kind.samples.compactMap { sample in
        names.contains(sample.name)
          ? nil : sample.json.map { SessionRecord.Document(name: sample.name, kind: kind.name, revision: 1, body: $0) }
      }
    }
  }

  /// Each document kind, with the module that registers it (without registering any).
  public var documentKindOwners: [(kind: String, module: String)] {
    var owners = registrations.documentKinds.values.map { (kind: $0.name, module: $0.module) }
    for entry in registrations.waiting {
      owners += entry.index.documentKinds.map { (kind: $0.name, module: entry.name) }
    }
    return owners.sorted { $0.kind < $1.kind }
  }

  /// The sample documents a new session starts with: each one's name and kind.
  public var sampleDocuments: [(name: String, kind: String)] {
    // A module not registered yet says its samples' names in its index: listing them registers
    // nothing (a scenario's check reads them to know the documents a session starts with).
    sampleNames
  }

  /// Decodes `json` as a document of `kind`, without adding it anywhere: for checking a
  /// document before it is used.
  ///
  /// - Throws: `CommandError` when the kind is unknown or the JSON does not decode as that kind;
  ///   the message names the field that is wrong.
  public func decodeDocument(kind: String, json: [UInt8]) throws(CommandError) -> any DocumentBody {
    guard let documentKind = documentKinds[kind] else {
      throw CommandError(
        "unknown document kind '\(kind)'"
          + Suggestions.didYouMean(kind, in: documentKinds.keys))
    }
    do {
      return try documentKind.decode(json)
    } catch {
      // Only a document that fails is read again, our way, so what is wrong is said in our
      // words and with its place: JSON that does not parse (with the byte it stops at), a number
      // too big for a whole number. A good document is parsed once.
      let value: FrameValue
      do {
        value = try FrameValue.parse(json: json)
      } catch {
        throw CommandError("the document is not valid JSON: \(error.message) at byte \(error.offset)")
      }
      if let problem = Self.oversizedNumber(in: value, path: "") { throw CommandError(problem) }
      if let error = error as? DecodingError { throw CommandError(DecodingErrorText.describe(error)) }
      throw CommandError(String(describing: error))
    }
  }

  /// The first whole number too large for 64 bits (`books[1].id is too large for a whole
  /// number`), which a decoder would only call invalid data.
  static func oversizedNumber(in value: FrameValue, path: String) -> String? {
    switch value {
    case .number(let number) where number.rounded() == number && abs(number) >= 9.2e18:
      return "\(path.isEmpty ? "the document" : path) is too large for a whole number "
        + "(from -9223372036854775808 to 9223372036854775807)"
    case .list(let items):
      for (index, item) in items.enumerated() {
        if let problem = oversizedNumber(in: item, path: "\(path)[\(index)]") { return problem }
      }
    case .object(let object):
      for member in object.members {
        let child = path.isEmpty ? member.key : path + "." + member.key
        if let problem = oversizedNumber(in: member.value, path: child) { return problem }
      }
    default: break
    }
    return nil
  }
}
