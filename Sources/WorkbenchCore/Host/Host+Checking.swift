/// What a set of registered modules can say without a host: whether a command works in a
/// screen, which window a command opens, what a document kind decodes. The scenario loader
/// checks files with these before anything runs.
extension ModuleRegistry {
  /// Checks, without running anything, that `name` is a command a window showing `screen` can
  /// run (any host command, the screen's module's commands, or a qualified `module.command`);
  /// with no screen, that it is a host command or a qualified one.
  ///
  /// - Returns: `nil` when it is, otherwise the message to report (with a suggestion).
  public func problemWithCommand(named name: String, inScreen screen: String?) -> String? {
    switch router.route(name, screen: screen) {
    case .success:
      return nil
    case .failure(.otherModules(let name, let owners)):
      let owner = owners[0]
      let place = screen.map { "a \($0) window" } ?? "a host step (`do:`)"
      return "'\(name)' is a command of \(owner), not of \(place): run it in a \(owner) window or as \(owner).\(name)"
    case .failure(let refusal):
      return refusal.message(place: "")
    }
  }

  /// The top-level fields the frames of `screen` have, when the screen declares them.
  public func frameFields(ofScreen screen: String) -> [String]? {
    screenKinds[screen]?.frameFields
  }

  /// Turns a stored snapshot and the edits stored since into the whole document's JSON (what
  /// the workspace gives a reader of the whole document).
  public func materializeDocument(kind: String, snapshot: String, edits: [String]) throws -> String {
    guard let documentKind = documentKinds[kind] else {
      throw CommandError("no module here knows '\(kind)' documents")
    }
    return try documentKind.materialize(snapshot: snapshot, edits: edits)
  }

  /// The command `name` leads to from a window showing `screen`, with the subcommand its first
  /// word picks, if it has subcommands: the spec whose arguments the remaining words fill.
  public func commandSpec(named name: String, inScreen screen: String?, words: [String]) -> (
    spec: CommandSpec, words: [String]
  )? {
    guard case .success(let route) = router.route(name, screen: screen) else { return nil }
    if !route.spec.subcommands.isEmpty, let first = words.first, let sub = route.spec.chosenSubcommand(first) {
      return (sub, Array(words.dropFirst()))
    }
    return (route.spec, words)
  }

  /// The screen with this name, and the document kind it shows.
  public func screen(named name: String) -> (name: String, documentKind: String)? {
    screenKinds[name].map { ($0.name, $0.documentKind) }
  }

  /// The registered screens' names, and the document kind each shows.
  public var screens: [(name: String, documentKind: String)] {
    screenKinds.values.map { ($0.name, $0.documentKind) }.sorted { $0.name < $1.name }
  }

  /// The registered document kinds' names.
  public var documentKindNames: [String] { documentKinds.keys.sorted() }

  /// The sample documents a new session starts with: each one's name and kind.
  public var sampleDocuments: [(name: String, kind: String)] {
    documentKinds.values.flatMap { kind in kind.samples.map { (name: $0.name, kind: kind.name) } }
      .sorted { $0.name < $1.name }
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

extension Host {
  /// Whether `name` is a command a window showing `screen` can run (see `ModuleRegistry`).
  public func problemWithCommand(named name: String, inScreen screen: String?) -> String? {
    registry.problemWithCommand(named: name, inScreen: screen)
  }

  /// The top-level fields the frames of `screen` have, when the screen declares them.
  public func frameFields(ofScreen screen: String) -> [String]? { registry.frameFields(ofScreen: screen) }

  /// The kind of the document named `name`, if it exists.
  public func documentKind(of name: String) -> String? { documents[name]?.kind }
}
