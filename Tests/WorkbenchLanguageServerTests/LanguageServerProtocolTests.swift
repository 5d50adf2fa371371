import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchLanguageServer
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench lsp` in process, message by message: what an editor's requests get back.
@MainActor
struct LanguageServerProtocolTests {
  /// A server with `text` open as a scenario file, and what it has sent.
  private func server(opening text: String) throws -> (LanguageServer, Sent) {
    try openServer(uri: "file:///shelf.yaml", text: text)
  }

  /// The result of a request about a position in the open file.
  private func request(_ server: LanguageServer, _ sent: Sent, _ method: String, line: Int, character: Int)
    -> FrameValue?
  {
    send(
      server,
      [
        "jsonrpc": "2.0", "id": 7, "method": .string(method),
        "params": [
          "textDocument": ["uri": "file:///shelf.yaml"],
          "position": ["line": .integer(line), "character": .integer(character)],
        ],
      ])
    return sent.messages.last?["result"]
  }

  private func complete(_ server: LanguageServer, _ sent: Sent, line: Int, character: Int) -> [String] {
    let result = request(server, sent, "textDocument/completion", line: line, character: character)
    return result?["items"]?.elements?.compactMap { $0["label"]?.stringValue } ?? []
  }

  /// After `- do: ` only what runs there is offered: the host's commands and `MODULE.` forms
  /// (`catalog.select` runs there); a window's own commands (`select`, `query`) are refused
  /// there by `check` ("run it with @WINDOW in front or as catalog.select"), so they are not
  /// offered (they were). After `- left: ` the window's commands are.
  @Test func afterDoOnlyWhatRunsThereIsOffered() throws {
    let (server, sent) = try server(
      opening: """
        scenario: Shelf
        windows:
          left: catalog library
        steps:
          - left: select 2
          - do: 
          - do: cat
          - do: catalog.se
          - left: sel
          - do: @le
          - do: '@
          - do: '@left sel
          - do: '
        """)
    let bare = complete(server, sent, line: 5, character: 8)
    #expect(bare.contains("undo") && bare.contains("open") && bare.contains("catalog."), "\(bare)")
    #expect(!bare.contains("select") && !bare.contains("query"), "\(bare)")
    #expect(complete(server, sent, line: 6, character: 11) == ["catalog."])
    #expect(complete(server, sent, line: 7, character: 18) == ["catalog.select"])
    #expect(complete(server, sent, line: 8, character: 13) == ["select"])
    // A window's commands run after `- do: ` as `@WINDOW COMMAND`: the windows are offered there
    // too. Unquoted (`@` cannot start a plain YAML value), one turns the step into the window's
    // own, `- left: `; inside quotes it writes `@left `, and the window's commands follow.
    #expect(bare.contains("@left"), "\(bare)")
    func edit(line: Int, character: Int) -> (text: String?, start: Int?, end: Int?) {
      let items = request(server, sent, "textDocument/completion", line: line, character: character)?["items"]
      let item = items?.elements?.first { $0["label"] == "@left" }
      let range = item?["textEdit"]?["range"]
      return (
        item?["textEdit"]?["newText"]?.stringValue, range?["start"]?["character"]?.integerValue,
        range?["end"]?["character"]?.integerValue
      )
    }
    #expect(complete(server, sent, line: 9, character: 11) == ["@left"])
    #expect(edit(line: 9, character: 11) == ("left: ", 4, 11))
    #expect(edit(line: 5, character: 8) == ("left: ", 4, 8))
    #expect(complete(server, sent, line: 10, character: 10) == ["@left"])
    #expect(edit(line: 10, character: 10) == ("@left ", 9, 10))
    #expect(complete(server, sent, line: 11, character: 18) == ["select"])
    // After an opening quote alone, the windows too, written after it.
    #expect(complete(server, sent, line: 12, character: 9).contains("@left"))
    #expect(edit(line: 12, character: 9) == ("@left ", 9, 9))
  }

  /// A module rebuilt with other screens (the server asks `reregistration` before each message,
  /// as `workbench lsp` does with its modules' executables): completion and the file's checks
  /// answer from the new registration at once, as the shell's `--watch` does.
  @Test func aNewRegistrationIsTakenInBeforeTheNextMessage() throws {
    let (server, sent) = try server(
      opening: """
        scenario: Shelf
        windows:
          left: catalog library
        steps:
          - do: open 
        """)
    #expect(complete(server, sent, line: 4, character: 14).contains("catalog"))
    var fresh: ModuleRegistry? = try ModuleRegistry(modules: builtInModules.filter { $0.manifest.name != "catalog" })
    server.reregistration = {
      defer { fresh = nil }
      return fresh
    }
    let offered = complete(server, sent, line: 4, character: 14)
    #expect(!offered.contains("catalog") && offered.contains("feed"), "\(offered)")
    let published = sent.messages.last { $0["method"] == "textDocument/publishDiagnostics" }
    let problems = published?["params"]?["diagnostics"]?.elements?.compactMap { $0["message"]?.stringValue } ?? []
    #expect(problems.contains { $0.contains("unknown screen 'catalog'") }, "\(problems)")
  }

  /// After a command, its next argument's values where they are known: choices, subcommands,
  /// the file's windows, screens, and the documents of the screen named before.
  @Test func argumentsAreCompletedFromTheCommandsSpec() throws {
    let (server, sent) = try server(
      opening: """
        scenario: Arguments
        windows:
          left: catalog library
        steps:
          - left: sort 
          - do: open 
          - do: open goal 
          - do: network la
          - do: focus 
        """)
    #expect(complete(server, sent, line: 4, character: 15) == ["title", "id", "reverse"])
    #expect(complete(server, sent, line: 5, character: 14).contains("feed"))
    #expect(complete(server, sent, line: 6, character: 19) == ["reading"])
    #expect(complete(server, sent, line: 7, character: 19) == ["latency"])
    // A window by its label or its number, as the shell offers them: the steps above have
    // problems (`sort` and `open` want more), and are left out, not the whole session.
    #expect(complete(server, sent, line: 8, character: 15) == ["left", "1"])
  }

  /// A step's command is completed by the resolver, on the windows as the steps before leave
  /// them: in a catalog window, the host's commands and the catalog's, and no other module's
  /// (they offered 81 names there, 32 of them commands `check` refuses in that window). A
  /// qualified name is offered once a dot is typed, and only where it would run.
  @Test func aWindowsCommandsAreTheOnesThatRunThere() throws {
    let (server, sent) = try server(
      opening: """
        scenario: Commands
        windows:
          left: catalog library
          feed: feed account
        steps:
          - left: 
          - left: ledger.
          - do: 
        """)
    let offered = complete(server, sent, line: 5, character: 12)
    #expect(offered.contains("select") && offered.contains("open") && offered.contains("sort"), "\(offered)")
    #expect(!offered.contains { $0.contains(".") }, "\(offered)")
    #expect(!offered.contains("search") && !offered.contains("append"), "\(offered)")
    // Each one offered is one `check` takes in that window: never the shell's own (`quit`,
    // `record`...), which it refuses in a scenario (they were offered after `- do: `). A
    // scenario may move in time: `travel` is offered.
    let shellOnly = ["quit", "exit", "record", "source", "history", "set", "watch"]
    let anywhere = complete(server, sent, line: 7, character: 10)
    #expect(anywhere.contains("open") && anywhere.contains("settle") && anywhere.contains("travel"), "\(anywhere)")
    #expect(Set(anywhere).isDisjoint(with: shellOnly) && Set(offered).isDisjoint(with: shellOnly), "\(anywhere)")
    let loader = try ScenarioLoader(modules: builtInModules)
    // After `- do: ` a module's name with its dot (`catalog.`) leads on to its commands, which
    // run there (`catalog.select`); every other offer is a command.
    #expect(anywhere.contains("catalog."), "\(anywhere)")
    for name in offered + anywhere where !name.hasSuffix(".") {
      let text = "scenario: One\nwindows:\n  left: catalog library\nsteps:\n  - left: \(name)\n"
      do {
        _ = try loader.load(bytes: Array(text.utf8), path: "one.yaml")
      } catch {
        // A command that needs arguments is refused for those, never for its name.
        #expect(!"\(error.all)".contains("is a command of"), "\(name): \(error.all)")
        #expect(!"\(error.all)".contains("no command"), "\(name): \(error.all)")
      }
    }
    // `ledger.` in the catalog window: the ledger's commands that run there (`network`), not
    // those a feed window needs (`search`: `check` asks for `@feed` in front).
    let qualified = complete(server, sent, line: 6, character: 19)
    #expect(qualified.contains("ledger.network") && !qualified.contains("ledger.search"), "\(qualified)")
    #expect(!qualified.contains { $0.hasPrefix("editor.") }, "\(qualified)")
    for name in qualified {
      let text = "scenario: One\nwindows:\n  left: catalog library\n  feed: feed account\nsteps:\n  - left: \(name)\n"
      do {
        _ = try loader.load(bytes: Array(text.utf8), path: "one.yaml")
      } catch {
        // Refused for its missing arguments, never for the window it is in.
        #expect(error.all.allSatisfy { $0.message.hasPrefix("missing ") }, "\(name): \(error.all)")
      }
    }
  }

  /// An id argument offers the ids of the window's document as the steps before the line left
  /// it, each with what it names: the book a step added is there, with its title.
  @Test func idsAreOfferedWithTheirTitlesAsTheStepsBeforeLeftThem() throws {
    let (server, sent) = try server(
      opening: """
        scenario: Ids
        windows:
          left: catalog library
        steps:
          - left: add Dune Messiah
          - left: select 
        """)
    send(
      server,
      [
        "jsonrpc": "2.0", "id": 8, "method": "textDocument/completion",
        "params": ["textDocument": ["uri": "file:///shelf.yaml"], "position": ["line": 5, "character": 17]],
      ])
    let items = sent.messages.last?["result"]?["items"]?.elements ?? []
    let offered = items.map { "\($0["label"]?.stringValue ?? "?") \($0["detail"]?.stringValue ?? "-")" }
    // The 30 sample books, in numeric order, and the one the step before added.
    #expect(offered.count == 31, "\(offered)")
    #expect(offered.first == "1 The Swift Programming Language", "\(offered)")
    #expect(offered.last == "31 Dune Messiah", "\(offered)")
    #expect(offered.firstIndex(of: "2 Structure and Interpretation of Computer Programs") == 1, "\(offered)")
    // What is typed narrows them.
    let (typing, typed) = try self.server(
      opening:
        "scenario: Ids\nwindows:\n  left: catalog library\nsteps:\n  - left: add Dune Messiah\n  - left: select 3\n")
    #expect(complete(typing, typed, line: 5, character: 18) == ["3", "30", "31"])
    // The step being typed does not run, even when it already reads as a whole step (`remove 3`
    // would take book 3 away); a step above with a problem (`sort` wants an order) is left out,
    // and the steps around it still run (the book the first step added is offered).
    let (removing, removed) = try self.server(
      opening:
        "scenario: Ids\nwindows:\n  left: catalog library\nsteps:\n  - left: add Dune Messiah\n  - left: sort\n"
        + "  - left: remove 3\n")
    #expect(complete(removing, removed, line: 6, character: 18) == ["3", "30", "31"])
    #expect(complete(removing, removed, line: 6, character: 17) == (1...31).map(String.init))
  }

  /// The keys of the scenario format at the start of a line (the loader's own list), and at
  /// the start of a step the kinds of step and the file's windows.
  @Test func keysOfTheFormatAreCompleted() throws {
    let (server, sent) = try server(
      opening: "scenario: Keys\nwindows:\n  left: catalog library\nste\n  - ex\n  - \nexa\n")
    #expect(complete(server, sent, line: 3, character: 3) == ["steps"])
    #expect(complete(server, sent, line: 4, character: 6) == ["expect"])
    #expect(complete(server, sent, line: 5, character: 4) == ["do", "expect", "snapshot", "include", "repeat", "left"])
    #expect(complete(server, sent, line: 6, character: 3) == ["examples"])
  }

  /// Inside a field's own `{...}` in an expectation, the fields of that value in the window's
  /// frame as the steps before leave it (`viewport`, a selected book's `detail`).
  @Test func nestedFieldsAreCompletedFromTheFrame() throws {
    let (server, sent) = try server(
      opening: """
        scenario: Nested
        windows:
          left: catalog library
        steps:
          - left: select 4
          - expect:
              left: {query: "", viewport: {anchor: null, offset: 0}}
          - expect:
              left: {detail: {fil
        """)
    #expect(complete(server, sent, line: 6, character: 52) == ["offset"])
    #expect(complete(server, sent, line: 6, character: 49) == ["anchor", "offset", "firstRow"])
    #expect(complete(server, sent, line: 8, character: 25) == ["filteredOut"])
    // From the screen's typed frame: a field that is null as the steps leave it (nothing
    // selected) and a list of records, in a file whose steps could not run that far.
    let (typed, typedSent) = try self.server(
      opening: """
        scenario: Typed
        windows:
          left: catalog library
          feed: feed account
        steps:
          - left: frobnicate
          - expect:
              left: {detail: {fil
          - expect:
              feed: {rows: {coun
        """)
    #expect(complete(typed, typedSent, line: 7, character: 25) == ["filteredOut"])
    #expect(complete(typed, typedSent, line: 9, character: 24) == ["counterparty"])
    // A data file of a document leads to the file.
    let (files, seen) = try self.server(
      opening:
        "scenario: Data\ndocuments:\n  big:\n    kind: catalog\n    file: data/big.json\nsteps:\n  - do: documents\n")
    send(
      files,
      [
        "jsonrpc": "2.0", "id": 13, "method": "textDocument/definition",
        "params": ["textDocument": ["uri": "file:///shelf.yaml"], "position": ["line": 4, "character": 12]],
      ])
    #expect(seen.messages.last?["result"]?["uri"]?.stringValue == "file:///data/big.json", "\(seen.messages.last!)")
  }

  /// A module whose fields are named as YAML would read otherwise (`a: b`, `#c`, `- d`, as a
  /// module process may declare them in `recordFields`): each is completed as the key that reads
  /// back as its name, quoted, and a plain name goes in as it is. (Before, they went in bare:
  /// `{a: b: ...}` and `{#c` read as something else.)
  @Test func fieldsAreInsertedAsTheKeysThatReadBackAsThem() throws {
    struct Odd: FeatureModule {
      struct Body: DocumentBody {}
      struct State: ViewStateValue {}
      final class Screen: ScreenModel {
        private(set) var document: Body
        private(set) var viewState = Odd.State()
        init(document: Body, viewState: Odd.State, environment: ScreenEnvironment) { self.document = document }
        func documentReplaced(_ document: Body) { self.document = document }
        func restore(_ viewState: Odd.State) {}
        var frame: FrameValue { ["rows": [["a: b": 1, "#c": 2, "- d": 3, "plain": 4]]] }
      }
      var manifest: ModuleManifest { ModuleManifest(name: "odd", version: "1", summary: "odd names") }
      func register(into registrar: Registrar) {
        registrar.documentKind(Body.self, name: "odd", summary: "odd", samples: ["odd": Body()])
        let records = ["a: b", "#c", "- d", "plain"].map { FrameFieldSchema(name: $0, summary: "", fields: []) }
        registrar.screen(
          name: "odd", documentKind: "odd", summary: "odd", render: { $0.jsonText }, frameFields: ["rows"],
          fieldSchema: [FrameFieldSchema(name: "rows", summary: "the rows", fields: records)],
          make: { document, viewState, environment in
            Screen(document: document, viewState: viewState, environment: environment)
          })
      }
    }
    let (server, sent) = try openServer(
      [Odd()], uri: "file:///odd.yaml",
      text: "scenario: Odd\nwindows:\n  o: odd odd\nsteps:\n  - expect:\n      o: {rows: [{\n")
    send(
      server,
      [
        "jsonrpc": "2.0", "id": 7, "method": "textDocument/completion",
        "params": ["textDocument": ["uri": "file:///odd.yaml"], "position": ["line": 5, "character": 18]],
      ])
    let items = sent.messages.last?["result"]?["items"]?.elements ?? []
    let inserted = items.map { "\($0["label"]?.stringValue ?? "?") -> \($0["insertText"]?.stringValue ?? "as it is")" }
    #expect(inserted == ["a: b -> 'a: b'", "#c -> '#c'", "- d -> '- d'", "plain -> as it is"], "\(items)")
  }

  /// A step's words are read as the command will be (the tokenizer's quoting, the last command
  /// of a line of several), whether or not the steps before it can run.
  @Test func aStepsWordsAreReadAsTheCommandWillBe() throws {
    // Built line by line: three of them end in a space.
    let lines = [
      "scenario: Words", "windows:", "  left: catalog library", "steps:", "  - left: select 3; sort ti",
      "  - left: frobnicate", "  - do: open catalog ", "  - do: open \"catalog\" ", "  - left: rename 3 \"The Hob",
    ]
    let (server, sent) = try server(opening: lines.joined(separator: "\n") + "\n")
    func end(_ line: Int) -> Int { lines[line].utf16.count }
    #expect(complete(server, sent, line: 4, character: end(4)) == ["title"])
    let unquoted = complete(server, sent, line: 6, character: end(6))
    #expect(unquoted.contains("library") && !unquoted.contains("account"), "\(unquoted)")
    #expect(complete(server, sent, line: 7, character: end(7)) == unquoted)
    #expect(complete(server, sent, line: 8, character: end(8)) == [])
  }

  /// `${` offers the parameters the text can use there, and each goes to where it is defined:
  /// an example row's keys, `iteration` inside a repeat.
  @Test func parametersAreCompletedAndLeadToTheirDefinition() throws {
    let (server, sent) = try server(
      opening: """
        scenario: Searching ${query}
        windows:
          main: catalog library
        steps:
          - main: query ${q
          - repeat: 2
            steps:
              - main: select ${
        examples:
          - {query: dune, count: 2}
        """)
    #expect(complete(server, sent, line: 4, character: 21) == ["query"])
    #expect(Set(complete(server, sent, line: 7, character: 25)) == ["query", "count", "iteration"])
    send(
      server,
      [
        "jsonrpc": "2.0", "id": 9, "method": "textDocument/definition",
        "params": ["textDocument": ["uri": "file:///shelf.yaml"], "position": ["line": 0, "character": 22]],
      ])
    let found = sent.messages.last?["result"]
    #expect(found?["range"]?["start"]?["line"] == .integer(9), "\(String(describing: found))")
    #expect(found?["range"]?["start"]?["character"] == .integer(5), "\(String(describing: found))")
  }

  /// `include:` offers the scenario files beside this one, and `with: {` the included flow's
  /// parameters not given yet; `${` in a flow offers its `params:`.
  @Test func includesAndTheirParametersAreCompleted() throws {
    let folder = makeTemporaryFolder()
    mkdir(folder + "/flows", 0o755)
    writeTextFile(
      "flow: Pick\nparams: [window, book]\nsteps:\n  - ${window}: select ${book}\n", to: folder + "/flows/pick.yaml")
    let sent = Sent()
    let server = try LanguageServer(modules: builtInModules) { sent.messages.append($0) }
    let uri = FrameValue.string("file://" + folder + "/main.yaml")
    let text =
      "scenario: Includes\nwindows:\n  left: catalog library\nsteps:\n  - include: fl\n    with: {window: left, \n"
    writeTextFile(text, to: folder + "/main.yaml")
    send(
      server,
      [
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": ["textDocument": ["uri": uri, "languageId": "yaml", "version": 1, "text": .string(text)]],
      ])
    func complete(_ line: Int, _ character: Int) -> [String] {
      send(
        server,
        [
          "jsonrpc": "2.0", "id": 10, "method": "textDocument/completion",
          "params": [
            "textDocument": ["uri": uri], "position": ["line": .integer(line), "character": .integer(character)],
          ],
        ])
      return sent.messages.last?["result"]?["items"]?.elements?.compactMap { $0["label"]?.stringValue } ?? []
    }
    #expect(complete(4, 16) == ["flows/pick.yaml"])
    // `with:` belongs to the include above; its file is read from disk.
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    lines[4] = "  - include: flows/pick.yaml"
    send(
      server,
      [
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": [
          "textDocument": [
            "uri": uri, "languageId": "yaml", "version": 2, "text": .string(lines.joined(separator: "\n")),
          ]
        ],
      ])
    #expect(complete(5, 25) == ["book"])
    // The references of an include: every `include:` of that flow beside it.
    writeTextFile(
      "scenario: Another\nwindows:\n  left: catalog library\nsteps:\n  - left: select 1\n  - include: flows/pick.yaml  # again\n    with: {window: left, book: 3}\n",
      to: folder + "/other.yaml")
    /// The places the references at a position are, as `uri:line`.
    func references(_ line: Int, _ character: Int, id: Int) -> [String] {
      send(
        server,
        [
          "jsonrpc": "2.0", "id": .integer(id), "method": "textDocument/references",
          "params": [
            "textDocument": ["uri": uri], "position": ["line": .integer(line), "character": .integer(character)],
            "context": [:],
          ],
        ])
      return (sent.messages.last?["result"]?.elements ?? []).map {
        "\($0["uri"]?.stringValue ?? "?"):\($0["range"]?["start"]?["line"]?.integerValue ?? -1)"
      }
    }
    let places = references(4, 8, id: 11)
    #expect(places == ["file://\(folder)/main.yaml:4", "file://\(folder)/other.yaml:5"], "\(places)")
    // Below the `include:`, in its `with:`, a word is itself: `left` is the window, not the flow.
    let included =
      "scenario: Includes\nwindows:\n  left: catalog library\nsteps:\n  - include: flows/pick.yaml\n"
      + "    with: {window: left, book: 2}\n"
    send(
      server,
      [
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": ["textDocument": ["uri": uri, "languageId": "yaml", "version": 3, "text": .string(included)]],
      ])
    let onWith = references(5, 20, id: 12)
    #expect(
      onWith.contains("file://\(folder)/main.yaml:2") && !onWith.contains { $0.contains("other.yaml") }, "\(onWith)")
    // In the flow itself, `${` offers its parameters.
    let flowText = "flow: Pick\nparams: [window, book]\nsteps:\n  - ${window}: select ${\n"
    send(
      server,
      [
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": ["textDocument": ["uri": uri, "languageId": "yaml", "version": 4, "text": .string(flowText)]],
      ])
    #expect(complete(3, 28) == ["window", "book"])
  }

  /// The fixture module's executable, built beside the workbench.
  static var fixtureModule: String {
    String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
  }

  /// A whole editor session, framed: it opens a scenario on the fixture module's `tally` screen,
  /// which checks clean only when that module is loaded, and shuts the server down.
  static var pokesSession: String {
    let scenario = "scenario: Pokes\nwindows:\n  t: tally pokes\nsteps:\n  - t: poke\n"
    func framed(_ message: FrameValue) -> String {
      "Content-Length: \(message.jsonText.utf8.count)\r\n\r\n" + message.jsonText
    }
    return framed(["jsonrpc": "2.0", "id": 1, "method": "initialize", "params": ["capabilities": [:]]])
      + framed([
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": [
          "textDocument": [
            "uri": "file:///pokes.yaml", "languageId": "yaml", "version": 1, "text": .string(scenario),
          ]
        ],
      ]) + framed(["jsonrpc": "2.0", "id": 2, "method": "shutdown"]) + framed(["jsonrpc": "2.0", "method": "exit"])
  }

  /// The modules the default workspace loads (`workbench modules add`) are loaded by
  /// `workbench lsp` too: a scenario on their screens checks clean, where without them the
  /// screen is unknown.
  @Test func theDefaultWorkspacesModulesAreKnownToTheServer() {
    let fixture = Self.fixtureModule
    let input = Self.pokesSession
    let home = makeTemporaryFolder()
    let environment: [String: String?] = ["XDG_DATA_HOME": home + "/data", "XDG_STATE_HOME": home + "/state"]
    let without = ChildProcess.runWorkbench(["lsp"], input: Array(input.utf8), environment: environment)
    #expect(without.stdout.contains("unknown screen 'tally'"), "\(without.stdout)\(without.stderr)")
    let added = ChildProcess.runWorkbench(["modules", "add", fixture], environment: environment)
    #expect(added.status == 0, "\(added.stderr)")
    let with = ChildProcess.runWorkbench(["lsp"], input: Array(input.utf8), environment: environment)
    #expect(with.status == 0, "\(with.stderr)")
    #expect(with.stdout.contains(#""diagnostics":[]"#), "\(with.stdout)")
  }

  /// `workbench lsp -w FILE` loads the modules of that workspace rather than the default one's:
  /// the editor of a project with a workspace of its own knows that project's modules. A
  /// workspace that is not there is said on standard error, and the server still serves.
  @Test func aWorkspaceNamedWithDashWLendsTheServerItsModules() {
    let fixture = Self.fixtureModule
    let input = Self.pokesSession
    let home = makeTemporaryFolder()
    let environment: [String: String?] = ["XDG_DATA_HOME": home + "/data", "XDG_STATE_HOME": home + "/state"]
    let project = home + "/project.db"
    let added = ChildProcess.runWorkbench(["modules", "add", fixture, "-w", project], environment: environment)
    #expect(added.status == 0, "\(added.stderr)")
    let byDefault = ChildProcess.runWorkbench(["lsp"], input: Array(input.utf8), environment: environment)
    #expect(byDefault.stdout.contains("unknown screen 'tally'"), "\(byDefault.stdout)\(byDefault.stderr)")
    for arguments in [["lsp", "-w", project], ["-w", project, "lsp"]] {
      let named = ChildProcess.runWorkbench(arguments, input: Array(input.utf8), environment: environment)
      #expect(named.status == 0, "\(arguments): \(named.stderr)")
      #expect(named.stdout.contains(#""diagnostics":[]"#), "\(arguments): \(named.stdout)")
    }
    let missing = ChildProcess.runWorkbench(
      ["lsp", "-w", home + "/nowhere.db"], input: Array(input.utf8), environment: environment)
    #expect(missing.status == 0, "\(missing.stderr)")
    #expect(
      missing.stderr.contains("workbench lsp: there is no workspace at \(home)/nowhere.db: its modules are not loaded"),
      "\(missing.stderr)")
    #expect(missing.stdout.contains("unknown screen 'tally'"), "\(missing.stdout)")
    #expect(readTextFile(home + "/nowhere.db") == nil, "the server made a workspace")
  }

  /// Windows, commands and where they are come from the loader's model of the file, as `run`
  /// reads it: a window opened mid-line (`open ... side; @side select 2`) is `side`, not `side;`;
  /// a command after `@side` is helped as `side`'s screen has it; the windows offered are the
  /// scenario's own, not another scenario's in the same file.
  @Test func windowsAndCommandsAreTheLoadersModel() throws {
    let (server, sent) = try server(
      opening: """
        scenario: One
        windows:
          left: catalog library
        steps:
          - do: open goal reading side; @side target 6
          - 
        ---
        scenario: Two
        windows:
          right: catalog library
        steps:
          - right: select 2
        """)
    #expect(
      complete(server, sent, line: 5, character: 4) == [
        "do", "expect", "snapshot", "include", "repeat", "left", "side",
      ])
    func request(_ method: String, line: Int, character: Int) -> FrameValue? {
      self.request(server, sent, method, line: line, character: character)
    }
    // `side` in `@side` leads to where the open step names it (line 5, after `library `).
    let definition = request("textDocument/definition", line: 4, character: 35)
    #expect(definition?["range"]?["start"]?["line"] == .integer(4), "\(String(describing: definition))")
    #expect(definition?["range"]?["start"]?["character"] == .integer(26), "\(String(describing: definition))")
    // `target` after `@side`: the goal screen's command.
    let help = request("textDocument/hover", line: 4, character: 41)?["contents"]?["value"]?.stringValue ?? ""
    #expect(help.hasPrefix("usage: target"), "\(help)")
    // The window itself.
    let window = request("textDocument/hover", line: 4, character: 27)?["contents"]?["value"]?.stringValue ?? ""
    #expect(window.hasPrefix("window side: a goal window"), "\(window)")
    // In the second scenario, `right` is a window; `left` and `side` are the first one's.
    #expect(
      request("textDocument/hover", line: 11, character: 5)?["contents"]?["value"]?.stringValue?.hasPrefix(
        "window right") == true)
  }

  /// A word of a command is what the command's binding makes it: `left` in `query left` is the
  /// query's text (its argument's help), though a window is named `left`; in `focus left` and
  /// after `@` it is the window.
  @Test func aWordIsWhatItsArgumentTakes() throws {
    let (server, sent) = try server(
      opening: """
        scenario: Words
        windows:
          left: catalog library
          right: catalog library
        steps:
          - right: query left
          - do: focus left
          - do: "@left select 2"
        """)
    func hover(line: Int, character: Int) -> String {
      request(server, sent, "textDocument/hover", line: line, character: character)?["contents"]?["value"]?
        .stringValue ?? ""
    }
    let query = hover(line: 5, character: 17)
    #expect(query.hasPrefix("TEXT: the search text"), "\(query)")
    #expect(!query.contains("window"), "\(query)")
    #expect(hover(line: 6, character: 16).hasPrefix("window left: a catalog window"))
    #expect(hover(line: 7, character: 12).hasPrefix("window left: a catalog window"))
    #expect(hover(line: 7, character: 17).hasPrefix("usage: select"))
  }

  /// A window's references are the places its scenario names that window, as the loader read
  /// them: its declaration, the steps run in it, `@left`, a window argument, the expectations
  /// and snapshots on it; not the same word as text (`query left`) or another scenario's window.
  @Test func aWindowsReferencesAreItsScenariosPlacesForIt() throws {
    let (server, sent) = try server(
      opening: """
        scenario: One
        windows:
          left: catalog library
          right: catalog library
        steps:
          - left: query left
          - right: select 2; @left select 3
          - do: focus left
          - repeat: 2
            steps:
              - expect:
                  left: {query: left}
          - snapshot: [right, left]
        ---
        scenario: Two
        windows:
          left: catalog library
        steps:
          - left: select 1
        """)
    func places(line: Int, character: Int) -> [String] {
      let found = request(server, sent, "textDocument/references", line: line, character: character)?.elements ?? []
      return found.map { place in
        let start = place["range"]?["start"]
        let end = place["range"]?["end"]
        return "\(start?["line"]?.integerValue ?? -1):\(start?["character"]?.integerValue ?? -1)"
          + "-\(end?["character"]?.integerValue ?? -1)"
      }
    }
    let left = ["2:2-6", "5:4-8", "6:22-26", "7:14-18", "11:10-14", "12:22-26"]
    #expect(places(line: 2, character: 3) == left)
    #expect(places(line: 6, character: 25) == left)
    #expect(places(line: 3, character: 3) == ["3:2-7", "6:4-9", "12:15-20"])
    #expect(places(line: 18, character: 5) == ["16:2-6", "18:4-8"])
  }

  /// The outline of a file (document symbols) is the loader's: each scenario by its name as YAML
  /// reads it (quotes gone), from its `scenario:` to the next one's document, with its steps
  /// (a repeat's own steps inside it are not steps of the scenario); a step with a problem is
  /// still a step written there, and a line that is not YAML yet leaves the rest standing.
  @Test func theOutlineIsTheLoadersShapeOfTheFile() throws {
    let (server, sent) = try server(
      opening: """
        scenario: "One: quoted"
        windows:
          left: catalog library
        steps:
          - left: selcet 4
          - repeat: 2
            steps:
              - left: page down
          - expect:
              left: {query: "
        ---
        # the second
        scenario: Two
        steps:
          - do: windows   
        """)
    let symbols = request(server, sent, "textDocument/documentSymbol", line: 0, character: 0)?.elements ?? []
    #expect(symbols.map { $0["name"]?.stringValue } == ["One: quoted", "Two"], "\(symbols)")
    #expect(symbols.map { $0["range"]?["start"]?["line"] } == [.integer(0), .integer(12)], "\(symbols)")
    #expect(symbols.map { $0["range"]?["end"]?["line"] } == [.integer(11), .integer(14)], "\(symbols)")
    let steps = symbols.map { ($0["children"]?.elements ?? []).compactMap { $0["name"]?.stringValue } }
    #expect(steps == [["left: selcet 4", "repeat: 2", "expect:"], ["do: windows"]], "\(steps)")
    let places = (symbols.first?["children"]?.elements ?? []).map { $0["range"]?["start"] }
    #expect(places == [["line": 4, "character": 4], ["line": 5, "character": 4], ["line": 8, "character": 4]])
  }

  /// Over a field of an expectation, what the field means: a built-in screen's, a Swift module
  /// process's and a Python module's alike (each says it in its handshake).
  @Test func hoverOverAFieldSaysWhatItMeans() throws {
    let (server, sent) = try server(
      opening: "scenario: Hover\nwindows:\n  left: catalog library\nsteps:\n  - expect:\n      left: {matches: 30}\n")
    send(
      server,
      [
        "jsonrpc": "2.0", "id": 12, "method": "textDocument/hover",
        "params": ["textDocument": ["uri": "file:///shelf.yaml"], "position": ["line": 5, "character": 14]],
      ])
    let shown = sent.messages.last?["result"]?["contents"]?["value"]?.stringValue ?? ""
    #expect(
      shown
        == "matches: how many books the filter leaves (all of them, not only the rows shown) (a field of catalog frames)",
      "\(shown)")
    // Inside a field, the field of the record it holds (a list's records too); a value is not a
    // field, even one spelt as a field's name.
    let (inside, insideSent) = try self.server(
      opening: """
        scenario: Inside
        windows:
          left: catalog library
          feed: feed account
        steps:
          - expect:
              left: {viewport: {anchor: null, offset: 0}}
              feed: {rows: [{id: 3, memo: id}]}
        """)
    func hover(line: Int, character: Int) -> String? {
      request(inside, insideSent, "textDocument/hover", line: line, character: character)?["contents"]?["value"]?
        .stringValue
    }
    #expect(
      hover(line: 6, character: 26)
        == "anchor: the id of the book the viewport is anchored to, or null (a field of viewport in catalog frames)")
    #expect(hover(line: 7, character: 30) == "memo: the transaction's memo (a field of rows in feed frames)")
    #expect(hover(line: 7, character: 35) == nil)
    // Nor at the top: a value spelt as one of the screen's fields (`matches`), and a key inside a
    // field that the schema lacks, spelt as a top-level field (`total`).
    let (top, topSent) = try self.server(
      opening: """
        scenario: Top
        windows:
          left: catalog library
        steps:
          - expect:
              left: {query: matches, viewport: {total: 1}}
        """)
    func topHover(_ character: Int) -> String? {
      request(top, topSent, "textDocument/hover", line: 5, character: character)?["contents"]?["value"]?.stringValue
    }
    #expect(topHover(15)?.hasPrefix("query: ") == true)
    #expect(topHover(23) == nil)
    #expect(topHover(42) == nil)

    func hover(_ arguments: [String], _ scenario: String, line: Int, character: Int) -> String {
      func framed(_ message: FrameValue) -> String {
        "Content-Length: \(message.jsonText.utf8.count)\r\n\r\n" + message.jsonText
      }
      let input =
        framed(["jsonrpc": "2.0", "id": 1, "method": "initialize", "params": ["capabilities": [:]]])
        + framed([
          "jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": [
            "textDocument": ["uri": "file:///h.yaml", "languageId": "yaml", "version": 1, "text": .string(scenario)]
          ],
        ])
        + framed([
          "jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
          "params": [
            "textDocument": ["uri": "file:///h.yaml"],
            "position": ["line": .integer(line), "character": .integer(character)],
          ],
        ]) + framed(["jsonrpc": "2.0", "id": 3, "method": "shutdown"]) + framed(["jsonrpc": "2.0", "method": "exit"])
      return ChildProcess.runWorkbench(["lsp"] + arguments, input: Array(input.utf8)).stdout
    }
    let ledger = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "ledger-module-process"
    let feed = "scenario: Feed\nwindows:\n  f: feed account\nsteps:\n  - expect:\n      f: {balance: x}\n"
    #expect(
      hover(["--without-builtin", "ledger", "-m", ledger], feed, line: 5, character: 12)
        .contains("balance: the account's balance, as text with two decimals (a field of feed frames)"))
    // The fields of a module process's records, as its handshake declares them: the Swift kit's
    // from the typed frame, the Python port's from its `records=`.
    let rows = "scenario: Rows\nwindows:\n  f: feed account\nsteps:\n  - expect:\n      f: {rows: [{memo: x}]}\n"
    for module in [ledger, repositoryRoot() + "/Examples/ledger/ledger.py"] {
      let shown = hover(["--without-builtin", "ledger", "-m", module], rows, line: 5, character: 20)
      #expect(shown.contains("memo: the transaction's memo (a field of rows in feed frames)"), "\(module): \(shown)")
    }
    let kettle = repositoryRoot() + "/Examples/kettle/kettle.py"
    let boil = "scenario: Boil\nwindows:\n  k: kettle kettle\nsteps:\n  - expect:\n      k: {state: cold}\n"
    let python = hover(["-m", kettle], boil, line: 5, character: 12)
    #expect(python.contains("state: cold, heating or boiled (a field of kettle frames)"), "\(python)")
  }

  /// What runs but is suspicious is a warning, not an error: a window no step uses, a snapshot
  /// whose golden file is not there yet.
  @Test func suspiciousStepsAreWarnings() throws {
    let (_, sent) = try server(
      opening: """
        scenario: Warnings
        windows:
          left: catalog library
          right: catalog library
        steps:
          - left: select 2
          - snapshot: left
        """)
    let diagnostics = sent.messages.last?["params"]?["diagnostics"]?.elements ?? []
    let warnings = diagnostics.map { diagnostic in
      "\(diagnostic["range"]?["start"]?["line"]?.integerValue ?? -1) \(diagnostic["severity"]?.integerValue ?? -1) "
        + (diagnostic["message"]?.stringValue ?? "")
    }
    #expect(warnings.count == 2, "\(warnings)")
    #expect(warnings.contains("3 2 window right is declared but no step or expectation of this scenario uses it"))
    #expect(
      warnings.contains {
        $0.hasPrefix("6 2 no golden file yet (") && $0.contains("__snapshots__/shelf/warnings-1.txt)")
      },
      "\(warnings)")
  }

  /// "Run to this step" on a step's line: the steps up to it run, a failure on the way is an
  /// error on its step, and the step itself gets the windows as it left them and the command that
  /// opens the session there in the shell.
  @Test func runToThisStepShowsTheWindowsThereAndTheFailuresOnTheWay() throws {
    let (server, sent) = try server(
      opening: """
        scenario: Up to a step
        windows:
          left: catalog library
        steps:
          - left: select 2
          - expect:
              left: {selected: 3}
          - left: query the
          - left: select 12
        """)
    send(
      server,
      [
        "jsonrpc": "2.0", "id": 5, "method": "textDocument/codeAction",
        "params": [
          "textDocument": ["uri": "file:///shelf.yaml"],
          "range": ["start": ["line": 7, "character": 4], "end": ["line": 7, "character": 4]], "context": [:],
        ],
      ])
    let action = try #require(sent.messages.last?["result"]?.elements?.first)
    #expect(action["title"]?.stringValue == "Run to this step (3 of 4: left: query the)", "\(action)")
    #expect(action["command"]?["command"] == "workbench.runTo")
    send(
      server,
      [
        "jsonrpc": "2.0", "id": 6, "method": "workspace/executeCommand",
        "params": ["command": "workbench.runTo", "arguments": ["file:///shelf.yaml", 7]],
      ])
    let reply = sent.messages.last { $0["id"] == .integer(6) }
    #expect(
      reply?["result"]?.stringValue == "✘ Up to a step: ran 3 of 4 steps, 1 failed on the way", "\(sent.messages)")
    let diagnostics =
      sent.messages.last { $0["method"] == "textDocument/publishDiagnostics" }?["params"]?["diagnostics"]?
      .elements ?? []
    let failed = diagnostics.first { $0["severity"] == .integer(1) }
    #expect(failed?["range"]?["start"]?["line"] == .integer(5), "\(diagnostics)")
    #expect(failed?["message"]?.stringValue?.contains("left.selected") == true, "\(diagnostics)")
    let here = diagnostics.first { $0["severity"] == .integer(3) }
    #expect(here?["range"]?["start"]?["line"] == .integer(7), "\(diagnostics)")
    let message = here?["message"]?.stringValue ?? ""
    #expect(message.hasPrefix("after step 3 of 4, the windows show:\n[1 left] catalog library"), "\(message)")
    #expect(message.contains("books match \"the\""), "\(message)")
    #expect(!message.contains("▸ 12"), "\(message)")
    #expect(message.hasSuffix("open it in the shell: workbench run /shelf.yaml:8 --shell"), "\(message)")
  }

  /// Bad input gets an answer and the server goes on: JSON that does not parse, a request it
  /// does not do, positions and changes out of range; `exit` after `shutdown` ends with 0.
  @Test func badRequestsAreAnsweredAndTheServerGoesOn() throws {
    let (server, sent) = try server(opening: "scenario: Short\nsteps:\n  - do: settle\n")
    #expect(server.receive(Array("{not json".utf8)) == nil)
    #expect(sent.messages.last?["error"]?["code"] == .integer(-32700))
    send(server, ["jsonrpc": "2.0", "id": 3, "method": "textDocument/formatting", "params": [:]])
    #expect(sent.messages.last?["error"]?["code"] == .integer(-32601))
    #expect(complete(server, sent, line: 99, character: 999) == [])
    send(
      server,
      [
        "jsonrpc": "2.0", "method": "textDocument/didChange",
        "params": [
          "textDocument": ["uri": "file:///shelf.yaml", "version": 2],
          "contentChanges": [
            [
              "range": [
                "start": ["line": 50, "character": 3], "end": ["line": 2, "character": 900],
              ],
              "text": "x",
            ]
          ],
        ],
      ])
    #expect(sent.messages.last?["method"]?.stringValue == "textDocument/publishDiagnostics")
    send(server, ["jsonrpc": "2.0", "id": 4, "method": "shutdown"])
    #expect(send(server, ["jsonrpc": "2.0", "method": "exit"]) == .success)
  }
}
