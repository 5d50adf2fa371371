import WorkbenchScenarioModel

/// What `loadKeepingShape` reads of a file that may be mid-edit.
public struct ShapedFile: Sendable {
  /// The scenarios as far as they load; `nil` when the text does not read as YAML even with the
  /// lines it stops at skipped.
  public var file: ScenarioFile?
  /// The file's first problem as `load` says it (a YAML problem when the text is not YAML), with
  /// the others in its `more`; `nil` when it has none.
  public var problem: ScenarioFileError?
  /// The YAML documents read (without the skipped lines).
  public var documents: [YAMLNode] = []
  /// The lines left out to read the rest, where the text is not YAML, with their indentation.
  var skipped: [(line: Int, indent: Int)] = []

  /// The lines (1-based) left out to read the rest, where the text is not YAML.
  public var skippedLines: [Int] { skipped.map(\.line) }

  /// The file's outline: a view of the YAML read, each answer read from it when asked (an
  /// editor checking a file at each keystroke does not pay for it).
  public var outline: ScenarioOutline { ScenarioOutline(documents: documents, skipped: skipped) }
}

/// Where a file declares what its text may name, and where each of its steps is written: what an
/// editor asks of a file beside its scenarios (which parameter `${` may take, which document an
/// argument may name, which step the cursor is in). Read from the file's shape, so a document
/// that does not load still has its outline.
public struct ScenarioOutline: Sendable {
  /// A name a document declares, where it declares it.
  public struct Declared: Sendable {
    public var name: String
    public var location: SourceLocation
  }

  /// A step as written: an item of a `steps:` list.
  public struct StepPlace: Sendable {
    /// What the step does: its action's key (`expect`, `do`, `repeat`, `include`, a window).
    public var key: String
    /// Where that key is.
    public var keyLocation: SourceLocation
    /// Where the item starts.
    public var location: SourceLocation
    /// The line the step ends before: the next step's, whatever follows the list, or a line
    /// the loader skipped at the list's indentation (`nil`: the end of the file).
    public var endLine: Int?
    /// The action's value where it is a single one: a command line, an include's path.
    public var text: String?
    /// A repeat's own steps.
    public var steps: [StepPlace]
    /// The windows an expectation is on (its keys) or a snapshot takes.
    var named: [Declared] = []
    /// An expectation's windows with what is expected of each.
    var expected: [YAMLPair] = []

    /// The key of an expectation written at `line` and `column` (1-based), as YAML read it: the
    /// window it is expected of, the fields it is inside (a list's records are inside the
    /// list's field), and the key itself. `nil` where no key of a field starts there (a value,
    /// a window's own name, a step that is not an expectation).
    public func expectedField(line: Int, column: Int) -> (window: String, path: [String], key: String)? {
      func find(_ node: YAMLNode, _ path: [String]) -> (path: [String], key: String)? {
        switch node.content {
        case .mapping(let pairs):
          for pair in pairs {
            if pair.keyLocation.line == line && pair.keyLocation.column == column { return (path, pair.key) }
            if let found = find(pair.value, path + [pair.key]) { return found }
          }
        case .sequence(let items):
          for item in items {
            if let found = find(item, path) { return found }
          }
        case .scalar: break
        }
        return nil
      }
      for window in expected {
        if let found = find(window.value, []) { return (window.key, found.path, found.key) }
      }
      return nil
    }

    /// The windows the step names as it is written: the one it runs in (`left: ...`), those
    /// an expectation is on, those a snapshot takes.
    public var windows: [Declared] {
      switch key {
      case "do", "expect", "snapshot", "include", "repeat", "": return named
      default: return [Declared(name: key, location: keyLocation)]
      }
    }

    /// Whether the 1-based `line` is inside the step (on its first line or under it).
    public func holds(line: Int) -> Bool {
      line >= location.line && endLine.map { line < $0 } ?? true
    }
  }

  /// One YAML document of the file (a scenario, with its example rows, or a flow).
  public struct Document: Sendable {
    let node: YAMLNode
    /// The line after its last: the next document's first, or `nil`.
    let next: Int?
    let skipped: [(line: Int, indent: Int)]

    /// Where the document's mapping starts.
    public var location: SourceLocation { node.location }
    /// Whether it is a flow (it has `flow:`), whatever else it holds.
    public var isFlow: Bool { node["flow"] != nil }
    /// Its name as written under `scenario:` or `flow:`, where that key is.
    public var name: Declared? {
      node.pairs?.first { $0.key == "scenario" || $0.key == "flow" }.map { pair in
        Declared(name: pair.value.scalarText ?? "", location: pair.keyLocation)
      }
    }
    /// The parameters its text may use, each where first given: a flow's `params:`, the keys of
    /// the `examples:` rows.
    public var parameters: [Declared] {
      var found: [Declared] = []
      func declare(_ name: String, at location: SourceLocation) {
        guard !name.isEmpty, !found.contains(where: { $0.name == name }) else { return }
        found.append(Declared(name: name, location: location))
      }
      for item in node["params"]?.items ?? [] {
        if let name = item.scalarText { declare(name, at: item.location) }
      }
      for row in node["examples"]?.items ?? [] {
        for pair in row.pairs ?? [] { declare(pair.key, at: pair.keyLocation) }
      }
      return found
    }
    /// The documents its `documents:` declares.
    public var documents: [Declared] {
      (node["documents"]?.pairs ?? []).map { Declared(name: $0.key, location: $0.keyLocation) }
    }
    /// The data files its documents name (`file:`), each where it is named.
    public var dataFiles: [Declared] {
      (node["documents"]?.pairs ?? []).compactMap { pair in
        pair.value["file"].flatMap { file in file.scalarText.map { Declared(name: $0, location: file.location) } }
      }
    }
    /// Its steps, in the order written.
    public var steps: [StepPlace] {
      guard let list = stepList else { return [] }
      let end = listEnd
      return (list.items ?? []).indices.map { StepPlace(list, index: $0, endingAt: end, skipped: skipped) }
    }

    /// The `steps:` list, and the line after it (the next key's, or the next document's).
    var stepList: YAMLNode? { node["steps"] }
    var listEnd: Int? {
      let pairs = node.pairs ?? []
      guard let index = pairs.firstIndex(where: { $0.key == "steps" }) else { return next }
      return pairs.dropFirst(index + 1).first?.keyLocation.line ?? next
    }
  }

  let yaml: [YAMLNode]
  let skipped: [(line: Int, indent: Int)]

  /// An outline of nothing (a file not read yet).
  public init() {
    yaml = []
    skipped = []
  }

  /// The outline of a file's text, read as YAML only (nothing loaded, nothing checked); empty
  /// when it is not YAML.
  public init(bytes: [UInt8], path: String) {
    self.init(documents: (try? YAMLParser().parse(bytes, file: path)) ?? [], skipped: [])
  }

  /// Every step of every document, a repeat's own steps after it.
  public var allSteps: [StepPlace] {
    var found: [StepPlace] = []
    func visit(_ steps: [StepPlace]) {
      for step in steps {
        found.append(step)
        visit(step.steps)
      }
    }
    for document in documents { visit(document.steps) }
    return found
  }

  /// The outline of parsed documents, less the lines skipped to read them.
  init(documents: [YAMLNode], skipped: [(line: Int, indent: Int)]) {
    yaml = documents
    self.skipped = skipped
  }

  /// The file's documents, in order.
  public var documents: [Document] {
    yaml.indices.compactMap { document(at: $0) }
  }

  private func document(at index: Int) -> Document? {
    guard yaml[index].pairs != nil else { return nil }
    return Document(node: yaml[index], next: yaml.dropFirst(index + 1).first?.location.line, skipped: skipped)
  }

  /// The document holding the 1-based `line`: the last starting at or above it.
  public func document(holding line: Int) -> Document? {
    let index = yaml.lastIndex { $0.location.line <= line && $0.pairs != nil } ?? yaml.indices.first
    return index.flatMap { document(at: $0) }
  }

  /// The steps holding the 1-based `line`, outermost first (a repeat, then its step): each found
  /// by halving its list, so asking costs the same for a long scenario as a short one.
  public func steps(holding line: Int) -> [StepPlace] {
    guard let document = document(holding: line) else { return [] }
    var found: [StepPlace] = []
    var list = document.stepList
    var end = document.listEnd
    while let node = list, let items = node.items, !items.isEmpty {
      // The last item starting at or above the line.
      var low = 0
      var high = items.count
      while low < high {
        let middle = (low + high) / 2
        if items[middle].location.line <= line { low = middle + 1 } else { high = middle }
      }
      guard low > 0 else { break }
      let step = StepPlace(node, index: low - 1, endingAt: end, skipped: skipped)
      guard step.holds(line: line) else { break }
      found.append(step)
      list = step.key == "repeat" ? items[low - 1]["steps"] : nil
      end = step.endLine
    }
    return found
  }

  /// The parameters the 1-based `line` may use, each where it is given: its document's, and
  /// `iteration` inside a repeat (given by the repeat).
  public func parameters(at line: Int) -> [Declared] {
    var found = document(holding: line)?.parameters ?? []
    if let repeated = steps(holding: line).last(where: { $0.key == "repeat" }),
      !found.contains(where: { $0.name == "iteration" })
    {
      found.append(Declared(name: "iteration", location: repeated.location))
    }
    return found
  }
}

extension ScenarioOutline.StepPlace {
  /// Item `index` of the `steps:` list `list`, the last ending at `end`; it ends sooner at a
  /// line the loader skipped (not YAML) indented less than its keys: a step being typed there is
  /// a step of its own, not part of this one.
  init(_ list: YAMLNode, index: Int, endingAt end: Int?, skipped: [(line: Int, indent: Int)]) {
    let items = list.items ?? []
    let item = items[index]
    var itemEnd = index + 1 < items.count ? items[index + 1].location.line : end
    let cut = skipped.lazy.filter { skip in
      skip.line > item.location.line && itemEnd.map { skip.line < $0 } ?? true && skip.indent < item.location.column - 1
    }.map(\.line).min()
    if let cut { itemEnd = cut }
    let main = item.pairs?.first { $0.key != "fails" && $0.key != "with" && $0.key != "steps" }
    var inner: [ScenarioOutline.StepPlace] = []
    var named: [ScenarioOutline.Declared] = []
    var expected: [YAMLPair] = []
    switch main?.key {
    case "repeat":
      if let steps = item["steps"] {
        inner = (steps.items ?? []).indices.map { .init(steps, index: $0, endingAt: itemEnd, skipped: skipped) }
      }
    case "expect":
      expected = main?.value.pairs ?? []
      named = expected.map { .init(name: $0.key, location: $0.keyLocation) }
    case "snapshot":
      named =
        main.map { $0.value.items ?? [$0.value] }?.compactMap { node in
          node.scalarText.map { .init(name: $0, location: node.location) }
        } ?? []
    default: break
    }
    self.init(
      key: main?.key ?? "", keyLocation: main?.keyLocation ?? item.location, location: item.location,
      endLine: itemEnd, text: main?.value.scalarText, steps: inner, named: named, expected: expected)
  }
}

extension ScenarioLoader {
  /// A file's problems, as `load` says them, and in the same reading what of it loads: the
  /// scenarios whose set-up reads, each with the steps that check (a step with a problem is left
  /// out, and the steps after it are read against the windows as they would be without it), and
  /// the file's outline. Where the text is not YAML (an unclosed brace, a key without its colon:
  /// a file mid-edit), the lines the YAML parser stops at are left out, a few at most, and the
  /// rest is read; the problem is still the YAML one. `file` is `nil` when even that does not
  /// read (or there are too many problems to go on). For an editor, which needs a file's shape
  /// while it is mid-edit, and its problems, on every change.
  public func loadKeepingShape(bytes: [UInt8], path: String) -> ShapedFile {
    // Split into lines only when the text is not YAML.
    var lines: [ArraySlice<UInt8>] = []
    var text = bytes
    var skipped: [(line: Int, indent: Int)] = []
    var yamlProblem: ScenarioFileError?
    for _ in 0...Self.maximumSkippedLines {
      let documents: [YAMLNode]
      do {
        documents = try parse(text, path: path)
      } catch {
        yamlProblem = yamlProblem ?? error
        if lines.isEmpty { lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false) }
        // The line the parser stops at; or where the construct it stops in began (`(line N)`),
        // when that is an unclosed `{` or `[` (which runs on into the lines after it, not the
        // broken ones) or the parser stops on a blank line. (A block mapping's beginning is not
        // the broken line: it is where the mapping the broken line is in starts.)
        let isBlank = { (line: Int) in line < 1 || line > lines.count || lines[line - 1].allSatisfy { $0 == 0x20 } }
        var broken = error.location.line
        if let begun = error.message.firstMatch(of: /\(line (\d+)\)/).flatMap({ Int($0.1) }), !isBlank(begun),
          isBlank(broken) || error.message.contains("parsing a flow")
        {
          broken = begun
        }
        // Past the text (an open `{` at its end): the last line written above where it stops.
        broken = min(broken, lines.count)
        while isBlank(broken), broken > 1 { broken -= 1 }
        guard error.location.file == path, !isBlank(broken) else { break }
        skipped.append((broken, lines[broken - 1].prefix { $0 == 0x20 }.count))
        lines[broken - 1] = []
        text = Array(lines.joined(separator: [0x0A]))
        continue
      }
      let loaded = load(documents: documents, path: path)
      return ShapedFile(
        file: loaded.file, problem: yamlProblem ?? loaded.problem, documents: documents, skipped: skipped)
    }
    return ShapedFile(file: nil, problem: yamlProblem)
  }

  /// How many lines `loadKeepingShape` leaves out to read a file that is not YAML.
  static let maximumSkippedLines = 8
}
