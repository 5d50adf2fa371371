import Testing
import WorkbenchTestSupport

/// docs/architecture.md draws the targets and their dependencies; the drawing is generated
/// from Package.swift, and this test fails when the two differ. The failure prints the block
/// to paste between the `targets` markers.
@Suite struct ArchitectureDocTests {
  /// A target of Package.swift and the targets it depends on.
  struct Target: Equatable {
    var name: String
    var kind: String
    var dependencies: [String]
  }

  /// The targets declared in Package.swift, test targets left out. It reads the manifest as
  /// text: every `.target(`, `.executableTarget(` and `.systemLibrary(` with its `name:` and
  /// the string literals of its `dependencies:` list.
  static func targets(inManifest text: String) -> [Target] {
    var targets: [Target] = []
    let kinds = ["systemLibrary", "executableTarget", "target"]
    var rest = Substring(text)
    while let start = kinds.compactMap({ (kind: String) -> Range<Substring.Index>? in rest.firstRange(of: ".\(kind)(") }
    )
    .min(by: { $0.lowerBound < $1.lowerBound }) {
      let kind = String(rest[start].dropFirst().dropLast())
      // The declaration runs to its matching closing parenthesis.
      var depth = 1
      var index = start.upperBound
      while index < rest.endIndex, depth > 0 {
        if rest[index] == "(" { depth += 1 }
        if rest[index] == ")" { depth -= 1 }
        index = rest.index(after: index)
      }
      let declaration = rest[start.upperBound..<index]
      rest = rest[index...]
      guard let name = firstString(after: "name:", in: declaration) else { continue }
      var dependencies: [String] = []
      if let list = declaration.firstRange(of: "dependencies:"),
        let open = declaration[list.upperBound...].firstIndex(of: "["),
        let close = declaration[open...].firstIndex(of: "]")
      {
        dependencies = strings(in: declaration[open..<close])
      }
      targets.append(Target(name: name, kind: kind, dependencies: dependencies))
    }
    return targets
  }

  static func firstString(after label: String, in text: Substring) -> String? {
    guard let range = text.firstRange(of: label) else { return nil }
    return strings(in: text[range.upperBound...]).first
  }

  static func strings(in text: Substring) -> [String] {
    text.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
      String($0.element)
    }
  }

  /// The Mermaid drawing of the targets: C libraries as stadiums, executables as double boxes,
  /// and an arrow for every dependency no longer path already implies (a target that
  /// imports both `WorkbenchCore` and `WorkbenchModuleAPI` reaches the API through the core,
  /// so only the core's arrow is drawn; the table below lists every dependency).
  static func mermaid(_ targets: [Target]) -> String {
    var lines = ["```mermaid", "graph TD"]
    for target in targets {
      let shape =
        switch target.kind {
        case "systemLibrary": "([\(target.name)])"
        case "executableTarget": "[[\(target.name)]]"
        default: "[\(target.name)]"
        }
      lines.append("  \(identifier(target.name))\(shape)")
    }
    let drawn = Set(targets.map(\.name))
    let dependencies = Dictionary(targets.map { ($0.name, $0.dependencies.filter(drawn.contains)) }) { first, _ in first
    }
    /// Whether `to` is reachable from `from` by a path of at least one arrow.
    func reaches(_ from: String, _ to: String) -> Bool {
      var seen: Set<String> = []
      var stack = dependencies[from] ?? []
      while let next = stack.popLast() {
        if next == to { return true }
        if seen.insert(next).inserted { stack += dependencies[next] ?? [] }
      }
      return false
    }
    for target in targets {
      let direct = dependencies[target.name] ?? []
      for dependency in direct where !direct.contains(where: { $0 != dependency && reaches($0, dependency) }) {
        lines.append("  \(identifier(target.name)) --> \(identifier(dependency))")
      }
    }
    lines.append("```")
    return lines.joined(separator: "\n")
  }

  static func identifier(_ name: String) -> String { name.replacing("-", with: "_") }

  /// Tools beside the product (benchmarks, fuzzing, test helpers): listed in the doc's table,
  /// left out of the drawing.
  static let tools: Set<String> = [
    "workbench-bench", "hello-baseline", "workbench-fuzz", "workbench-fixture-module", "WorkbenchSQLiteFaults",
    "WorkbenchTestSupport",
  ]

  @Test func theTargetDrawingMatchesPackageSwift() throws {
    let root = repositoryRoot()
    let manifest = try #require(readTextFile(root + "/Package.swift"))
    let targets = Self.targets(inManifest: manifest).filter { !Self.tools.contains($0.name) }
    #expect(targets.count >= 17, "the manifest reader found too few targets: \(targets.map(\.name))")
    #expect(
      targets.contains(
        Target(
          name: "WorkbenchSession", kind: "target",
          dependencies: ["WorkbenchCore", "WorkbenchModuleAPI", "WorkbenchScenarioModel", "WorkbenchStore"])))
    let drawing = Self.mermaid(targets)
    let doc = try #require(readTextFile(root + "/docs/architecture.md"))
    let begin = "<!-- targets: generated from Package.swift by ArchitectureDocTests -->\n"
    let end = "\n<!-- end of targets -->"
    guard let start = doc.firstRange(of: begin), let stop = doc[start.upperBound...].firstRange(of: end) else {
      Issue.record("docs/architecture.md has no targets block; add:\n\(begin)\(drawing)\(end)")
      return
    }
    let checkedIn = String(doc[start.upperBound..<stop.lowerBound])
    #expect(checkedIn == drawing, "docs/architecture.md's targets drawing is stale; replace it with:\n\(drawing)")
  }

  /// The layers table lists every target of Package.swift (test targets aside) once, with the
  /// targets it depends on as the manifest declares them; the failure prints the column to use.
  @Test func theLayersTableMatchesPackageSwift() throws {
    let root = repositoryRoot()
    let manifest = try #require(readTextFile(root + "/Package.swift"))
    let targets = Self.targets(inManifest: manifest)
    let doc = try #require(readTextFile(root + "/docs/architecture.md"))
    let header = "| target | what it holds | depends on (checked against Package.swift) |"
    guard let start = doc.firstRange(of: header) else {
      Issue.record("docs/architecture.md has no layers table starting with \(header)")
      return
    }
    var rows: [(name: String, dependencies: [String])] = []
    for line in doc[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2) {
      guard line.hasPrefix("| `") else { break }
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingPrefix(" ") }
      guard cells.count >= 4 else { continue }
      let name = cells[1].split(separator: "`").first.map(String.init) ?? ""
      let last = cells[cells.count - 2]
      let dependencies =
        last.hasPrefix("nothing")
        ? []
        : last.split(separator: "`", omittingEmptySubsequences: false).enumerated()
          .filter { $0.offset % 2 == 1 }.map { String($0.element) }
      rows.append((name, dependencies))
    }
    #expect(rows.count >= 20, "the table reader found too few rows: \(rows.map(\.name))")
    #expect(Set(rows.map(\.name)) == Set(targets.map(\.name)), "targets missing from the table or not in the manifest")
    #expect(rows.count == Set(rows.map(\.name)).count, "a target has two rows")
    for target in targets {
      let listed = rows.first { $0.name == target.name }?.dependencies
      let wanted =
        target.dependencies.isEmpty ? "nothing" : target.dependencies.map { "`\($0)`" }.joined(separator: ", ")
      #expect(listed == target.dependencies, "the row of \(target.name) should depend on: \(wanted)")
    }
  }

  /// Every path the "where to change what" table names exists: a new engineer following it to
  /// add a command or a fact source lands on real files, and a move or rename that leaves the
  /// table behind fails here.
  @Test func theWhereToChangeWhatTableNamesFilesThatExist() throws {
    let root = repositoryRoot()
    let doc = try #require(readTextFile(root + "/docs/architecture.md"))
    let start = try #require(doc.firstRange(of: "## Where to change what"))
    let section = doc[start.upperBound...].prefix { _ in true }
    let end = section.firstRange(of: "\n## ")?.lowerBound ?? section.endIndex
    var named: [String] = []
    for piece in section[..<end].split(separator: "`")
    where piece.hasPrefix("Sources/") || piece.hasPrefix("Plugins/")
      || piece.hasPrefix("Tests/") || piece.hasPrefix("docs/") || piece.hasPrefix("Fuzz/")
    {
      named.append(String(piece.split(separator: " ").first ?? piece))
    }
    #expect(named.count >= 30, "the table names only \(named.count) paths; is the reader still finding them?")
    for path in named {
      // `Commands/CommandResolver*.swift` names a family of files: one must start with the part
      // before the `*`.
      let exists: Bool
      if let star = path.firstIndex(of: "*") {
        let prefix = String(path[..<star])
        let folder = prefix.split(separator: "/").dropLast().joined(separator: "/")
        let stem = prefix.split(separator: "/").last.map(String.init) ?? ""
        exists = folderEntries(root + "/" + folder).contains { $0.hasPrefix(stem) }
      } else {
        exists = readTextFile(root + "/" + path) != nil || !folderEntries(root + "/" + path).isEmpty
      }
      #expect(exists, "docs/architecture.md names \(path), which does not exist")
    }
  }

  /// Rules about how the source is written, which no behaviour shows until one is broken in
  /// the field, so they are read from the text, here and nowhere else: nothing process-wide
  /// holds session state (several hosts live in one process, the runner's; `TwoSessionsTests`
  /// and the runner's jobs test the behaviour), the host's own files stay small (what grows goes
  /// to the resolver, the documents, the windows or a module), the `@WINDOW` prefix is read in
  /// one file, and a command is a value past the edges: the runner, the session, explore and the
  /// language server build no `@WINDOW` text (a bound command writes itself), explore reads no
  /// text into commands, and no layer hands on a step's tokens.
  @Test func theSourceKeepsTheRulesNoBehaviourShowsInTime() throws {
    let root = repositoryRoot()
    func swiftFiles(under folder: String) -> [String] {
      folderEntries(folder).flatMap { name -> [String] in
        let path = folder + "/" + name
        if name.hasSuffix(".swift") { return [path] }
        return name.contains(".") ? [] : swiftFiles(under: path)
      }
    }
    let product = (swiftFiles(under: root + "/Sources") + swiftFiles(under: root + "/Plugins"))
      .filter { !$0.contains("/workbench-bench/") }
    #expect(product.count > 100, "read only \(product.count) files")
    // Stored statics and globals: the one allowed is the session readline's C callbacks reach.
    let allowed = "Sources/WorkbenchShell/Interactive/InteractiveSession.swift: static var current: InteractiveSession?"
    var stored: [String] = []
    var prefixReaders: [String] = []
    var commandsAsText: [String] = []
    let valueLayers = [
      "Sources/WorkbenchScenarios/", "Sources/WorkbenchSession/", "Sources/WorkbenchLanguageServer/",
    ]
    for file in product {
      let relative = String(file.dropFirst(root.count + 1))
      let text = readTextFile(file) ?? ""
      if text.contains(#"hasPrefix("@")"#) { prefixReaders.append(relative) }
      if valueLayers.contains(where: relative.hasPrefix), text.contains(#""@\("#) || text.contains(#""@" +"#) {
        commandsAsText.append("\(relative) writes `@WINDOW` text")
      }
      if relative.hasPrefix("Sources/WorkbenchScenarios/Explore/"),
        text.contains("CommandTokenizer.commands(") || text.contains("CommandTokenizer.typing(")
      {
        commandsAsText.append("\(relative) reads text into commands")
      }
      if text.contains("tokenizedCommands") { commandsAsText.append("\(relative) hands on tokens") }
      for line in text.split(separator: "\n") {
        let trimmed = line.trimmingPrefix(while: { $0 == " " })
        let storedStatic = trimmed.contains("static var ") && !trimmed.contains("{")
        let shared = trimmed.contains("static let shared")
        let global =
          (line.hasPrefix("var ") || line.hasPrefix("nonisolated(unsafe)"))
          || (line.hasPrefix("let ") && line.contains("Mutex"))
        if storedStatic || shared || global { stored.append("\(relative): \(trimmed)") }
      }
    }
    #expect(stored.filter { $0 != allowed } == [])
    #expect(stored.contains(allowed), "the check no longer sees the one allowed case; is it still reading?")
    #expect(prefixReaders == ["Sources/WorkbenchCore/Commands/CommandToken.swift"], "\(prefixReaders)")
    #expect(commandsAsText == [])
    let folder = root + "/Sources/WorkbenchCore/Host"
    let hostFiles = folderEntries(folder).filter { $0 == "Host.swift" || $0.hasPrefix("Host+") }
    #expect(hostFiles.count >= 3, "found \(hostFiles)")
    let lines = hostFiles.map {
      (readTextFile(folder + "/" + $0) ?? "").split(separator: "\n", omittingEmptySubsequences: false).count
    }
    .reduce(0, +)
    #expect(lines < 800, "Host's files hold \(lines) lines: move what is not the host's into its own type")
  }

  /// The binary loads no Foundation, not even `FoundationEssentials`: linked in, its metadata
  /// cost every start of `workbench` some 33 page faults and 0.1 M instructions in the loader,
  /// before `main`, whether or not it was used (docs/performance.md). JSON goes through
  /// `FrameValueEncoder`/`FrameValueDecoder`. Asked of the built binary, as the loader sees it.
  @Test func theBinaryLoadsNoFoundation() throws {
    let listed = ChildProcess.run(
      "/usr/bin/ldd", [ChildProcess.workbenchPath], input: [],
      environment: ChildProcess.environment(ChildProcess.isolated([:])))
    #expect(listed.status == 0, "\(listed.stderr)")
    let libraries = listed.stdout.split(separator: "\n")
    #expect(libraries.contains { $0.contains("libswiftCore") }, "ldd listed \(libraries)")
    #expect(!libraries.contains { $0.contains("Foundation") }, "\(libraries.filter { $0.contains("Foundation") })")
  }
}
