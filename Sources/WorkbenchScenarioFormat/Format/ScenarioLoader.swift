import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioModel
import WorkbenchSystem

/// A scenario file after loading: its scenarios, or a reusable flow (run only when included).
public struct ScenarioFile: Sendable {
  /// The path as given.
  public var path: String
  /// The scenarios, one per YAML document and example row.
  public var scenarios: [Scenario]
  /// Whether the file is a flow (`flow:`), which only runs when a scenario includes it.
  public var isFlow: Bool
}

/// Loads scenario files and checks everything that can be checked before a step runs:
/// the YAML itself, keys and types, documents (decoded by their module), windows, step kinds,
/// command names, window references, includes and expected-failure patterns.
@MainActor
public final class ScenarioLoader {
  let registry: ModuleRegistry
  let sampleDocuments: [String: String]
  var flowCache: [String: YAMLNode] = [:]
  /// Steps produced for the scenario being loaded, to stop repeats inside repeats early.
  var expandedSteps = 0
  /// The windows the scenario being loaded has declared or opened so far.
  var declaredWindows: [DeclaredWindow] = []
  /// Where the modules a workspace has seen come from, for saying whose a screen no loaded
  /// module has is. Asked once, and only when a file names such a screen: a run whose files
  /// are fine never reads the workspace.
  public var knownModulesSource: (() -> [KnownModule])?
  private var knownModulesRead: [KnownModule]?

  /// The modules a workspace has seen (see `knownModulesSource`).
  func knownModules() -> [KnownModule] {
    if let knownModulesRead { return knownModulesRead }
    let read = knownModulesSource?() ?? []
    knownModulesRead = read
    return read
  }
  /// The problems found so far in the file loading (see `note`).
  var problems: [ScenarioFileError] = []
  /// The most steps a scenario may expand to.
  static let maximumSteps = 100_000
  let parser = YAMLParser()

  public static let scenarioKeys = [
    "scenario", "description", "tags", "skip", "exhaustive", "holds", "rows", "documents", "windows", "steps",
    "examples", "nextWindow", "date", "startsAt", "facts",
  ]
  /// The relations `holds:` names.
  public static let relations = ["rebuilt", "replayed"]
  public static let flowKeys = ["flow", "description", "params", "steps"]

  /// A loader that checks commands, screens and documents against these modules.
  package convenience init(modules: [any FeatureModule]) throws(RegistrationError) {
    self.init(registry: try ModuleRegistry(modules: modules))
  }

  /// A loader that checks commands, screens and documents against modules already registered
  /// (the runner shares one registration between its loader and its scenarios' sessions).
  public init(registry: ModuleRegistry) {
    self.registry = registry
    var samples: [String: String] = [:]
    for sample in registry.sampleDocuments { samples[sample.name] = sample.kind }
    sampleDocuments = samples
  }

  /// Loads and checks one file.
  ///
  /// - Throws: `ScenarioFileError` with the place of the first problem.
  public func load(_ path: String) throws(ScenarioFileError) -> ScenarioFile {
    let loaded = load(documents: try parseFile(path, at: SourceLocation(file: path, line: 1, column: 1)), path: path)
    if let problem = loaded.problem { throw problem }
    return loaded.file ?? ScenarioFile(path: path, scenarios: [], isFlow: false)
  }

  /// Loads and checks a file's bytes as if read from `path` (which names it in messages and
  /// anchors its relative includes and data files).
  ///
  /// - Throws: `ScenarioFileError` with the place of the first problem.
  public func load(bytes: [UInt8], path: String) throws(ScenarioFileError) -> ScenarioFile {
    let loaded = loadKeepingShape(bytes: bytes, path: path)
    if let problem = loaded.problem { throw problem }
    return loaded.file ?? ScenarioFile(path: path, scenarios: [], isFlow: false)
  }

  /// Reads parsed documents: the scenarios as far as they load (`nil` when there were too many
  /// problems to go on), and the problems found, the first with the others in its `more`.
  func load(documents: [YAMLNode], path: String) -> (file: ScenarioFile?, problem: ScenarioFileError?) {
    var scenarios: [Scenario] = []
    var isFlow = false
    problems = []
    for document in documents {
      do throws(ScenarioFileError) {
        do throws(ScenarioFileError) {
          guard document.pairs != nil else {
            throw ScenarioFileError(
              "a scenario is a mapping with `scenario:` and `steps:`, not \(document.kindDescription)",
              at: document.location)
          }
          if document["flow"] != nil {
            try checkKeys(document, allowed: Self.flowKeys, what: "a flow")
            isFlow = true
            continue
          }
          scenarios += try self.scenarios(from: document)
        } catch {
          try note(error)
        }
      } catch {
        // Too many problems to go on: they are the answer.
        problems = []
        return (nil, error)
      }
    }
    // Every problem found, each once (a repeat or an example row finds a step's again).
    var seen: Set<String> = []
    let found = problems.filter { seen.insert($0.description).inserted }
    problems = []
    var first = found.first
    first?.more = found.count > 1 ? Array(found.dropFirst()) : nil
    return (ScenarioFile(path: path, scenarios: scenarios, isFlow: isFlow), first)
  }

  /// How many problems a file reports before the loader stops looking.
  public static let maximumProblems = 50

  /// Keeps a problem and goes on looking for more, up to `maximumProblems`.
  func note(_ problem: ScenarioFileError) throws(ScenarioFileError) {
    // The file's problems, already gathered (the limit was reached): they go on up as they are.
    if problem.more != nil { throw problem }
    problems.append(problem)
    if problems.count >= Self.maximumProblems {
      var seen: Set<String> = []
      let found = problems.filter { seen.insert($0.description).inserted }
      problems = []
      var first = found[0]
      first.more = Array(found.dropFirst())
      throw first
    }
  }

  /// Reads and parses a file; empty files and files that are too large are errors.
  func parseFile(_ path: String, at reference: SourceLocation) throws(ScenarioFileError) -> [YAMLNode] {
    let bytes: [UInt8]
    do {
      bytes = try FileSystem.read(path)
    } catch {
      switch error {
      case .missing: throw ScenarioFileError("no such file: \(path)", at: reference)
      case .tooLarge(let size):
        throw ScenarioFileError(
          "\(path) is \(size / 1024 / 1024) MB; scenario files are limited to "
            + "\(FileSystem.maximumFileSize / 1024 / 1024) MB: split it with include",
          at: reference)
      case .unreadable(let reason): throw ScenarioFileError("cannot read \(path): \(reason)", at: reference)
      }
    }
    return try parse(bytes, path: path)
  }

  /// Parses a file's bytes; an empty file is an error.
  func parse(_ bytes: [UInt8], path: String) throws(ScenarioFileError) -> [YAMLNode] {
    let documents = try parser.parse(bytes, file: path)
    if documents.isEmpty || documents.allSatisfy({ $0.scalarText == "" }) {
      throw ScenarioFileError(
        "the file is empty: a scenario needs at least `scenario: NAME` and `steps:`",
        at: SourceLocation(file: path, line: 1, column: 1))
    }
    return documents
  }

  // MARK: Scenarios

  private func scenarios(from document: YAMLNode) throws(ScenarioFileError) -> [Scenario] {
    try checkKeys(document, allowed: Self.scenarioKeys, what: "a scenario")
    guard let examples = document["examples"] else {
      return [try scenario(from: document, parameters: [:], exampleIndex: nil)]
    }
    guard let rows = examples.items, !rows.isEmpty else {
      throw ScenarioFileError("examples is a list of rows such as `- {id: 2, title: Swift}`", at: examples.location)
    }
    var result: [Scenario] = []
    for (index, row) in rows.enumerated() {
      guard let pairs = row.pairs else {
        throw ScenarioFileError(
          "an example row is a mapping such as `{id: 2}`, not \(row.kindDescription)", at: row.location)
      }
      var parameters: Substitution.Parameters = [:]
      for pair in pairs { parameters[pair.key] = pair.value }
      var scenario = try self.scenario(from: document, parameters: parameters, exampleIndex: index)
      scenario.row = row.location
      // A name without parameters gets the row's values, so each row's name is distinct.
      if !(document["scenario"]?.scalarText?.contains("${") ?? false) {
        let values = pairs.map { "\($0.key)=\($0.value.scalarText ?? $0.value.frameValue.jsonText)" }
        scenario.name += " [\(values.joined(separator: ", "))]"
      }
      result.append(scenario)
    }
    return result
  }

  private func scenario(from document: YAMLNode, parameters: Substitution.Parameters, exampleIndex: Int?)
    throws(ScenarioFileError) -> Scenario
  {
    guard let nameNode = document["scenario"] else {
      throw ScenarioFileError("missing `scenario:`: give the scenario a name", at: document.location)
    }
    let name = try Substitution.replace(
      in: try text(nameNode, what: "scenario"), parameters, at: nameNode.location)
    var tags: [String] = []
    if let node = document["tags"] {
      if let single = node.scalarText {
        tags = [single]
      } else {
        guard let items = node.items else {
          throw ScenarioFileError("tags is a list such as [catalog, undo]", at: node.location)
        }
        for item in items { tags.append(try text(item, what: "a tag")) }
      }
    }
    var skip: String?
    if let node = document["skip"] {
      if case .bool(let on) = node.frameValue {
        skip = on ? "no reason given" : nil
      } else {
        guard let reason = node.scalarText, !reason.allSatisfy(\.isWhitespace) else {
          throw ScenarioFileError(
            "skip is the reason the scenario is not run (skip: the bridge has no dimmer yet), or true or false",
            at: node.location)
        }
        skip = try Substitution.replace(in: reason, parameters, at: node.location)
      }
    }
    var isExhaustive = false
    if let node = document["exhaustive"] {
      guard case .bool(let value) = node.frameValue else {
        throw ScenarioFileError("exhaustive is true or false", at: node.location)
      }
      isExhaustive = value
    }
    var holdsRebuilt = false
    var holdsReplayed = false
    if let node = document["holds"] {
      let items = node.items ?? [node]
      for item in items {
        guard let word = item.scalarText, Self.relations.contains(word) else {
          let given = item.scalarText ?? ""
          let shown =
            item.scalarText.map { "'\(TerminalText.visible($0))'" }
            ?? (item.items != nil ? "a list in a list" : "a mapping")
          throw ScenarioFileError(
            "holds names relations the run checks: rebuilt (every window the same frame with its `reopen` steps "
              + "left out) or replayed (the same frames in a second run), not \(shown)"
              + Suggestions.didYouMean(given, in: Self.relations),
            at: item.location)
        }
        if word == "rebuilt" { holdsRebuilt = true } else { holdsReplayed = true }
      }
    }
    var viewportRows = ScreenEnvironment.defaultViewportRows
    if let node = document["rows"] {
      guard case .integer(let rows) = node.frameValue, (1...1000).contains(rows) else {
        throw ScenarioFileError("rows is how many rows a list shows, from 1 to 1000", at: node.location)
      }
      viewportRows = rows
    }
    let documents = try documentSeeds(document["documents"], parameters: parameters)
    var available = sampleDocuments
    for seed in documents { available[seed.name] = seed.kind }
    let windows = try windowSeeds(document["windows"], documents: available, parameters: parameters)
    // A scenario without steps is a problem, and its windows are still read (a file mid-edit
    // may have none yet).
    let stepsNode: YAMLNode
    let hasSteps = document["steps"] != nil
    if let node = document["steps"] {
      stepsNode = node
    } else {
      try note(ScenarioFileError("missing `steps:`: list what the scenario does", at: document.location))
      stepsNode = YAMLNode(content: .sequence([]), location: document.location)
    }
    expandedSteps = 0
    declaredWindows = windows.map {
      DeclaredWindow(name: $0.name, screen: $0.screen, location: $0.nameLocation ?? $0.location)
    }
    var context = StepContext(parameters: parameters, origin: [])
    context.windows.knownModules = { [unowned self] in self.knownModules() }
    for window in windows {
      context.windows.open(window.isUnnamed ? nil : window.name, screen: window.screen, number: window.number)
    }
    var nextWindowNumber: Int? = nil
    if let node = document["nextWindow"] {
      guard case .integer(let number) = node.frameValue, number > context.windows.highestNumber, number < 1_000_000_000
      else {
        throw ScenarioFileError(
          "nextWindow is the number the next window opened gets, more than every window's number",
          at: node.location)
      }
      nextWindowNumber = number
      context.windows.numberNext(number)
    }
    var startsAt: Duration?
    if let node = document["startsAt"] {
      guard let text = node.scalarText, let time = SessionClock.parseDuration(text), time < .seconds(86_400 * 365)
      else {
        throw ScenarioFileError(
          "startsAt is the session's time when the scenario starts, such as 1500ms or 2s (less than a year)",
          at: node.location)
      }
      startsAt = time
    }
    var date: CalendarDate?
    if let node = document["date"] {
      guard let text = node.scalarText, let parsed = CalendarDate(parsing: text) else {
        throw ScenarioFileError(
          "date is where the session's clock starts on the calendar, in ISO 8601: 2026-12-07, 2026-12-07T09:00, "
            + "2026-12-07T09:00:00Z or with an offset (+01:00); years 1 to 9999", at: node.location)
      }
      date = parsed
    }
    let problemsBefore = problems.count
    let steps = try buildSteps(stepsNode, context: &context, includes: [document.location.file])
    // After the steps: a recording's live changes name windows the steps open.
    let highestWindow = context.windows.highestNumber
    let facts = try document["facts"].map { node throws(ScenarioFileError) in
      try self.facts(node, highestWindow: highestWindow)
    }
    // Steps left out for their own problems are not also "no steps".
    guard !steps.isEmpty || problems.count > problemsBefore || !hasSteps else {
      throw ScenarioFileError("the scenario has no steps", at: stepsNode.location)
    }
    var scenario = Scenario(
      name: name, tags: tags, location: document.location, isExhaustive: isExhaustive, viewportRows: viewportRows,
      documents: documents,
      windows: windows, steps: steps, exampleIndex: exampleIndex, nextWindowNumber: nextWindowNumber, facts: facts)
    scenario.declaredWindows = declaredWindows
    scenario.skip = skip
    scenario.date = date
    scenario.startsAt = startsAt
    scenario.holdsRebuilt = holdsRebuilt
    scenario.holdsReplayed = holdsReplayed
    return scenario
  }

  /// A recording's live changes (`NAME live: {changed: [...]}`): one group a `live` step, each
  /// change `{updates: [...], event: ...}`, each update naming a window of the session by its
  /// number (`window: 2`), one the scenario opens. What else a file says cannot belong to the
  /// session, and is refused at its place (never served to a module, which would be blamed).
  static func checkLiveChanges(_ groups: [YAMLNode], of scope: String, highestWindow: Int) throws(ScenarioFileError) {
    let shape = "a change is {updates: [{window: N, frame: {...}, text: ..., state: ...}], event: ...}"
    for group in groups {
      guard let changes = group.items else {
        throw ScenarioFileError(
          "the live changes of '\(scope)' are a list of groups, one a `live` step, each a list of changes",
          at: group.location)
      }
      for change in changes {
        guard let pairs = change.pairs else { throw ScenarioFileError(shape, at: change.location) }
        if let stray = pairs.first(where: { $0.key != "updates" && $0.key != "event" }) {
          throw ScenarioFileError("'\(stray.key)' is not part of a live change: \(shape)", at: stray.keyLocation)
        }
        guard let updates = change["updates"] else { continue }
        guard let items = updates.items else { throw ScenarioFileError(shape, at: updates.location) }
        for update in items {
          guard update.pairs != nil else { throw ScenarioFileError(shape, at: update.location) }
          if let key = update.pairs?.first(where: { $0.key == "key" }) {
            throw ScenarioFileError(
              "a recorded update names its window by number in the session (`window: N`), not by a module's key",
              at: key.keyLocation)
          }
          guard let window = update["window"], case .integer(let number) = window.frameValue else {
            throw ScenarioFileError(
              "a recorded update names its window by number in the session (`window: N`)", at: update.location)
          }
          guard (1...max(1, highestWindow)).contains(number) else {
            throw ScenarioFileError(
              "window \(number) is never open in this scenario (its windows are numbered 1 to \(highestWindow)): "
                + "a live change of it cannot belong to this session", at: window.location)
          }
        }
      }
    }
  }

  /// A recording's facts: scopes (`window 3`), each a mapping of sources to the list of their
  /// values in order; or the name of a JSON or YAML file beside the scenario that holds them.
  private func facts(_ node: YAMLNode, highestWindow: Int) throws(ScenarioFileError) -> [SessionFacts.Key: [FrameValue]]
  {
    var mapping = node
    if let relative = node.scalarText {
      let path = FileSystem.resolve(relative, from: FileSystem.folder(of: node.location.file))
      let loaded = try parseFile(path, at: node.location)
      guard loaded.count == 1, loaded[0].pairs != nil else {
        throw ScenarioFileError("\(relative) must hold one mapping (the facts by scope)", at: node.location)
      }
      mapping = loaded[0]
    }
    guard let scopes = mapping.pairs else {
      throw ScenarioFileError(
        "facts is a mapping of scopes to sources, such as `window 2: {network.latency: [300ms]}`",
        at: mapping.location)
    }
    var facts: [SessionFacts.Key: [FrameValue]] = [:]
    for scope in scopes {
      guard let sources = scope.value.pairs else {
        throw ScenarioFileError(
          "the facts of '\(scope.key)' are a mapping of sources to lists of values", at: scope.value.location)
      }
      for source in sources {
        guard let values = source.value.items else {
          throw ScenarioFileError(
            "the facts '\(source.key)' of '\(scope.key)' are a list, in the order they were used",
            at: source.value.location)
        }
        if SessionFacts.Key(scope: scope.key, source: source.key).isLiveChanges {
          try Self.checkLiveChanges(values, of: scope.key, highestWindow: highestWindow)
        }
        let frameValues = values.map(\.frameValue)
        // Facts are typed by the module that uses them: one that does not fit is refused
        // here, where it is written, not served to a replay that passes with nonsense.
        if let type = registry.factType(of: source.key) {
          for (index, value) in frameValues.enumerated() {
            // A fact kept with its question (`{asked, answer}`): the answer has the type.
            let isAnswer = SessionFacts.question(of: value) != nil
            guard let problem = type.problem(with: SessionFacts.answer(of: value)) else { continue }
            let node = isAnswer ? (values[index]["answer"] ?? values[index]) : values[index]
            throw ScenarioFileError(
              "the fact \(source.key) #\(index + 1) of '\(scope.key)'\(problem.pathText.isEmpty ? "" : " at \(problem.pathText)") "
                + "is \(problem.found): \(source.key) wants \(problem.wanted) there",
              at: Self.node(at: problem.path, in: node).location)
          }
        }
        facts[SessionFacts.Key(scope: scope.key, source: source.key)] = frameValues
      }
    }
    return facts
  }

  /// The node a fact's problem path leads to (as far as the YAML goes), for its location.
  private static func node(at path: [FactType.PathElement], in node: YAMLNode) -> YAMLNode {
    var current = node
    for element in path {
      switch element {
      case .key(let key):
        guard let next = current[key] else { return current }
        current = next
      case .index(let index):
        guard let items = current.items, items.indices.contains(index) else { return current }
        current = items[index]
      }
    }
    return current
  }

  // MARK: Helpers

  func checkKeys(_ node: YAMLNode, allowed: [String], what: String) throws(ScenarioFileError) {
    for pair in node.pairs ?? [] where !allowed.contains(pair.key) {
      let hint = Suggestions.didYouMean(pair.key, in: allowed)
      throw ScenarioFileError(
        "unknown key '\(pair.key)' in \(what)\(hint) (known keys: \(allowed.joined(separator: ", ")))",
        at: pair.keyLocation)
    }
  }

  func text(_ node: YAMLNode, what: String) throws(ScenarioFileError) -> String {
    guard let text = node.scalarText else {
      throw ScenarioFileError("\(what) is a single value, not \(node.kindDescription)", at: node.location)
    }
    return text
  }
}

/// Finds where in a document's YAML a decoding or validation message points
/// (`books[2].title is missing`, `duplicate book id 2 at books[2]`).
enum DocumentLocator {
  static func location(of message: String, in body: YAMLNode) -> SourceLocation {
    guard let range = message.firstRange(of: #/[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])+(\.[A-Za-z_][A-Za-z0-9_]*)?/#) else {
      return body.location
    }
    var node = body
    var rest = Substring(message[range])
    while !rest.isEmpty {
      if rest.first == "[" {
        guard let close = rest.firstIndex(of: "]"), let index = Int(rest[rest.index(after: rest.startIndex)..<close]),
          let items = node.items, index < items.count
        else { break }
        node = items[index]
        rest = rest[rest.index(after: close)...]
      } else {
        if rest.first == "." { rest = rest.dropFirst() }
        let end = rest.firstIndex(where: { $0 == "[" || $0 == "." }) ?? rest.endIndex
        guard let child = node[String(rest[..<end])] else { break }
        node = child
        rest = rest[end...]
      }
    }
    return node.location
  }
}
