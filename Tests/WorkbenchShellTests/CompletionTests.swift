import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchShell

/// What Tab offers comes from the specs, narrowed as a person would expect.
@MainActor struct CompletionTests {
  @Test func documentsAfterAScreenAreThoseItShows() throws {
    let host = try Host(modules: builtInModules, clock: .virtual)
    #expect(host.completions(for: "open feed ") == ["account"])
    #expect(host.completions(for: "open catalog ") == ["library"])
    #expect(host.completions(for: "open room h") == ["home"])
  }

  /// `help` completes command names; an id completes by a word of what it names, ignoring
  /// case, when no id starts with what was typed.
  @Test func helpCompletesCommandsAndIdsCompleteByTitle() throws {
    let host = try Host(modules: builtInModules, clock: .virtual)
    _ = try host.run(line: "open catalog library main")
    #expect(host.completions(for: "help sel") == ["select"])
    #expect(host.completions(for: "help ").contains("open"))
    #expect(host.completions(for: "help led") == ["ledger"])
    #expect(host.completions(for: "select pragm") == ["6"])
    #expect(host.completions(for: "select PROGRAMM") == ["1", "3", "6", "13"])
    #expect(host.completions(for: "select 1").first == "1")  // an id prefix wins over titles
    #expect(host.completions(for: "select zzz").isEmpty)
  }

  /// `set`'s values follow the option: `set output <Tab>` offers the modes, `set json <Tab>`
  /// `on off` (every option offered both).
  @Test func setOffersTheValuesOfItsOption() throws {
    let registry = try ModuleRegistry(modules: builtInModules).bringing(frontEnd: Shell.commands)
    let host = Host(registry: registry, clock: .virtual)
    #expect(host.completions(for: "set output ") == ["text", "json", "csv", "table"])
    #expect(host.completions(for: "set json ") == ["on", "off"])
    #expect(host.completions(for: "set ke") == ["keep-going"])
  }

  /// Every id of a big catalog completes: on 12,000 books `select 1100` offers 1100 and 11000 to
  /// 11009 (it stopped at the first 10,000, and completed `1100 ` as if it were the only one).
  @Test func idsOfABigCatalogAllComplete() throws {
    let host = try Host(modules: builtInModules, clock: .virtual)
    let books = (1...12_000).map { #"{"id": \#($0), "title": "Book \#($0)"}"# }.joined(separator: ",")
    try host.seedDocument(named: "shelf", kind: "catalog", json: Array(#"{"books": [\#(books)]}"#.utf8))
    _ = try host.run(line: "open catalog shelf main")
    #expect(host.completions(for: "select 1100") == ["1100"] + (11_000...11_009).map(String.init))
    #expect(host.completions(for: "select 1199") == ["1199"] + (11_990...11_999).map(String.init))
  }

  /// The word Tab completes is the one the tokenizer is reading: inside an open quote it is
  /// text (`rename 4 "a; sel` is a title being typed, not a command after a `;`), in a comment
  /// it is nothing, and after the quote closes, the next command's name completes.
  @Test func insideAnOpenQuoteNothingPastTheQuoteIsCompleted() throws {
    let host = try Host(modules: builtInModules, clock: .virtual)
    _ = try host.run(line: "open catalog library left")
    #expect(host.completions(for: "sel") == ["select"])
    #expect(host.completions(for: "rename 4 \"a; sel") == [])
    #expect(host.completions(for: "rename 4 'a; sel") == [])
    #expect(host.completions(for: "rename 4 \"a\"; sel") == ["select"])
    #expect(host.completions(for: "rename 4 a\\; sel") == [])
    #expect(host.completions(for: "select 2 # sel") == [])
    #expect(host.completions(for: "select 2; ").contains("select"))
    #expect(host.completions(for: "select \"2") == [])
  }

  @Test func numericIdentifiersComeInNumericOrder() throws {
    let host = try Host(modules: builtInModules, clock: .virtual)
    _ = try host.run(line: "open catalog library left")
    let ids = host.completions(for: "select ")
    #expect(ids.prefix(12) == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"], "\(ids)")
    #expect(host.completions(for: "select 2") == ["2", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29"])
    // Ids out of order in the document still come 1, 2, 10 (not 1, 10, 2, nor as stored).
    try host.importDocument(
      named: "mixed", kind: "catalog",
      json: Array(#"{"books": [{"id": 10, "title": "A"}, {"id": 2, "title": "B"}, {"id": 1, "title": "C"}]}"#.utf8))
    _ = try host.run(line: "open catalog mixed m")
    #expect(host.completions(for: "select ") == ["1", "2", "10"])
  }

  /// An argument's candidates asked for directly (as explore draws them) are completion's, for
  /// the window named, not the focused one; a document after a screen is one that screen shows.
  @Test func candidatesOfAnArgumentAreCompletions() throws {
    let host = try Host(modules: builtInModules, clock: .virtual)
    _ = try host.run(line: "open catalog library left")
    _ = try host.run(line: "open room home right")
    let resolver = host.resolver
    func candidates(_ call: CommandCall, at position: Int) -> [String] {
      resolver.completions(of: resolver.partial(call, at: position, in: host.directory), in: host.directory)
    }
    let select = try host.router.route("select", screen: "catalog").get().spec
    let direct = candidates(CommandCall(path: ["select"], spec: select, target: .label("left")), at: 0)
    #expect(direct.count == 30)
    #expect(direct == host.completions(for: "@left select "))
    #expect(direct == host.completions(for: "select ", in: "left"))
    let open = try host.router.route("open", screen: nil).get().spec
    let rooms = candidates(
      CommandCall(path: ["open"], spec: open, target: .label("left"), arguments: ["screen": .text("room")]), at: 1)
    #expect(rooms.contains("home") && !rooms.contains("library"))
    #expect(rooms == host.completions(for: "open room "))
    #expect(candidates(CommandCall(path: ["open"], spec: open, target: .label("left")), at: 5).isEmpty)
  }

  /// `help` keeps its summaries in one column: a usage too long for it (`network`, `bridge`) has
  /// its own line and the summary goes under it, in the column.
  @Test func helpSummariesStayInTheirColumn() throws {
    let host = try Host(modules: builtInModules, clock: .virtual)
    guard case .text(let overview)? = try host.run(line: "help").first else {
      Issue.record("help printed no text")
      return
    }
    var checked = 0
    for (name, spec) in host.allCommands {
      guard let line = overview.split(separator: "\n").first(where: { $0.hasSuffix(spec.summary) }) else { continue }
      #expect(line.count - spec.summary.count == 36, "\(name): \(line)")
      checked += 1
    }
    #expect(checked >= 40, "only \(checked) commands were found in the overview")
    #expect(overview.contains("\n  network online | offline | fail [REQUESTS] | latency MILLISECONDS\n"))
  }
}
