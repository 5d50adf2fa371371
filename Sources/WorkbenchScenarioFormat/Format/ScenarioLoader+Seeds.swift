import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioModel
import WorkbenchSystem

/// The documents and windows a scenario sets up before its first step (`documents:`,
/// `windows:`), each checked against the modules that read it.
extension ScenarioLoader {
  func documentSeeds(_ node: YAMLNode?, parameters: Substitution.Parameters) throws(ScenarioFileError)
    -> [DocumentSeed]
  {
    guard let node else { return [] }
    guard let pairs = node.pairs else {
      throw ScenarioFileError("documents is a mapping of names to documents", at: node.location)
    }
    var seeds: [DocumentSeed] = []
    for pair in pairs {
      let definition = try Substitution.apply(parameters, to: pair.value)
      guard let fields = definition.pairs else {
        throw ScenarioFileError(
          "document '\(pair.key)' is a mapping with `kind:` and its data (or `file:`)", at: definition.location)
      }
      guard let kindNode = definition["kind"] else {
        throw ScenarioFileError(
          "document '\(pair.key)' needs `kind:` (one of \(registry.documentKindNames.joined(separator: ", ")))",
          at: definition.location)
      }
      let kind = try text(kindNode, what: "kind")
      guard registry.documentKindNames.contains(kind) else {
        throw ScenarioFileError(
          "unknown document kind '\(kind)'"
            + (Suggestions.didYouMean(kind, in: registry.documentKindNames)),
          at: kindNode.location)
      }
      var body: YAMLNode
      if let fileNode = definition["file"] {
        let relative = try text(fileNode, what: "file")
        let path = FileSystem.resolve(relative, from: FileSystem.folder(of: pair.value.location.file))
        let loaded: [YAMLNode]
        do {
          loaded = try parseFile(path, at: fileNode.location)
        } catch {
          throw Self.inDataFile(error, document: pair.key, loadedAt: fileNode.location)
        }
        guard loaded.count == 1, loaded[0].pairs != nil else {
          throw ScenarioFileError("\(relative) must hold one mapping (the document's data)", at: fileNode.location)
        }
        body = loaded[0]
      } else {
        body = YAMLNode(
          content: .mapping(fields.filter { $0.key != "kind" && $0.key != "revision" }), location: definition.location)
      }
      var revision = 1
      if let node = definition["revision"] {
        guard case .integer(let value) = node.frameValue, value >= 1 else {
          throw ScenarioFileError("revision is the document's revision number, 1 or more", at: node.location)
        }
        revision = value
      }
      let json = Array(body.frameValue.jsonText.utf8)
      do {
        _ = try registry.decodeDocument(kind: kind, json: json)
      } catch {
        throw Self.inDataFile(
          ScenarioFileError(
            "document '\(pair.key)' is not a valid \(kind) document: \(error.message)",
            at: DocumentLocator.location(of: error.message, in: body)),
          document: pair.key, loadedAt: definition["file"]?.location)
      }
      seeds.append(
        DocumentSeed(name: pair.key, kind: kind, json: json, revision: revision, location: definition.location))
    }
    return seeds
  }

  /// An error found in a document's data file says which scenario loaded it, as an error in
  /// an included flow does.
  static func inDataFile(_ error: ScenarioFileError, document: String, loadedAt reference: SourceLocation?)
    -> ScenarioFileError
  {
    guard let reference, error.location.file != reference.file else { return error }
    var located = error
    located.message += " (the data of document '\(document)', loaded at \(reference))"
    return located
  }

  func windowSeeds(_ node: YAMLNode?, documents: [String: String], parameters: Substitution.Parameters)
    throws(ScenarioFileError) -> [WindowSeed]
  {
    guard let node else { return [] }
    guard let pairs = node.pairs else {
      throw ScenarioFileError("windows is a mapping such as `left: catalog library`", at: node.location)
    }
    var seeds: [WindowSeed] = []
    for pair in pairs {
      let value = try Substitution.apply(parameters, to: pair.value)
      // A window without a name of its own is keyed by its number (a recording writes these).
      let unnamedNumber = pair.key.allSatisfy(\.isASCII) ? Int(pair.key) : nil
      guard let first = pair.key.first, first.isLetter || unnamedNumber != nil,
        pair.key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
      else {
        throw ScenarioFileError(
          "window name '\(pair.key)' must start with a letter and hold only letters, digits, - and _ "
            + "(or be the number of a window without a name)",
          at: pair.keyLocation)
      }
      var number = unnamedNumber
      var screen: String
      var document: String
      var state: String? = nil
      var stateVersion: Int? = nil
      var expectedWarning: String? = nil
      if let line = value.scalarText {
        let words = line.split(separator: " ").map(String.init)
        guard words.count == 2 else {
          throw ScenarioFileError("a window is `SCREEN DOCUMENT`, such as `catalog library`", at: value.location)
        }
        (screen, document) = (words[0], words[1])
      } else if value.pairs != nil {
        try checkKeys(
          value, allowed: ["screen", "document", "number", "state", "stateVersion", "warning"], what: "a window")
        if let node = value["number"] {
          guard case .integer(let given) = node.frameValue, given >= 1, given < 1_000_000_000,
            unnamedNumber == nil || unnamedNumber == given
          else {
            throw ScenarioFileError(
              "number is the window's number, 1 or more (its key, for a window without a name)", at: node.location)
          }
          number = given
        }
        guard let screenNode = value["screen"], let documentNode = value["document"] else {
          throw ScenarioFileError("a window needs `screen:` and `document:`", at: value.location)
        }
        screen = try text(screenNode, what: "screen")
        document = try text(documentNode, what: "document")
        state = value["state"].map { node in node.scalarText ?? node.frameValue.jsonText }
        if let node = value["stateVersion"] {
          guard case .integer(let version) = node.frameValue, version >= 1 else {
            throw ScenarioFileError("stateVersion is a version number, 1 or more", at: node.location)
          }
          stateVersion = version
        }
        if let node = value["warning"] { expectedWarning = try text(node, what: "warning") }
        if state == nil && (stateVersion != nil || expectedWarning != nil) {
          throw ScenarioFileError("stateVersion and warning go with a `state:`", at: value.location)
        }
      } else {
        throw ScenarioFileError("a window is `SCREEN DOCUMENT`, such as `catalog library`", at: value.location)
      }
      guard let screenKind = registry.screen(named: screen) else {
        let names = registry.screens.map(\.name)
        throw ScenarioFileError(
          "unknown screen '\(screen)'" + Suggestions.didYouMean(screen, in: names)
            + knownModules().hint(forScreen: screen),
          at: value.location)
      }
      guard let kind = documents[document] else {
        throw ScenarioFileError(
          "no document named '\(document)'" + Suggestions.didYouMean(document, in: documents.keys)
            + " (a scenario's own documents are declared under documents:)",
          at: value.location)
      }
      guard kind == screenKind.documentKind else {
        throw ScenarioFileError(
          "\(screen) shows \(screenKind.documentKind) documents, and '\(document)' is a \(kind) document",
          at: value.location)
      }
      if let number, let last = seeds.last?.number ?? (seeds.isEmpty ? 0 : nil), number <= last {
        throw ScenarioFileError(
          "window numbers go up in the order windows open: \(number) comes after \(last)", at: pair.keyLocation)
      }
      if let number, number < 1 {
        throw ScenarioFileError("a window's number is 1 or more", at: pair.keyLocation)
      }
      seeds.append(
        WindowSeed(
          name: pair.key, number: number, screen: screen, document: document, state: state, stateVersion: stateVersion,
          expectedWarning: expectedWarning, location: value.location, nameLocation: pair.keyLocation))
    }
    return seeds
  }
}
