import WorkbenchCore
import WorkbenchScenarioFormat
import WorkbenchSession
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench lsp`: a Language Server Protocol server for scenario files over standard input
/// and output. Diagnostics come from the scenario loader that `check` and `run` use (every
/// problem of a file, each at its place), completion from the modules' registry: the commands a
/// window's screen has, the fields its frames have.
@MainActor
public final class LanguageServer {
  let registry: ModuleRegistry
  let loader: ScenarioLoader
  /// The open documents' text, by URI, as lines.
  var documents: [String: [String]] = [:]
  /// How many times each open document changed (a run's diagnostics are shown only on the text
  /// it ran).
  var versions: [String: Int] = [:]
  /// The last run's failures, by URI, shown with the file's problems until it changes.
  var runFailures: [String: [FrameValue]] = [:]
  /// The session the last id completion set up: the steps before a line, run (kept while the
  /// lines before it stay the same, as they do while an id is typed).
  private var completionSession: (key: String, session: WorkbenchSession)?
  /// Whether `shutdown` came (then `exit` ends with status 0, and other requests are refused).
  var shutDown = false
  /// Where runs are carried out, and the runs going on in workers.
  let runs: LanguageServerRuns
  var active: [ActiveRun] = []
  var runsStarted = 0
  /// Whether the client said it creates progress tokens when asked (`window.workDoneProgress`).
  var clientCreatesProgress = false
  /// Writes a message to the client.
  let send: (FrameValue) -> Void

  /// The largest line or character number LSP has (a `uinteger`); a request with more is refused.
  nonisolated static let largestNumber = Int(Int32.max)

  /// A server over `modules`, writing its messages with `send`, carrying out runs as `runs` says.
  public init(
    modules: [any FeatureModule], runs: LanguageServerRuns = .inProcess, send: @escaping (FrameValue) -> Void
  ) throws(RegistrationError) {
    registry = try ModuleRegistry(modules: modules)
    loader = ScenarioLoader(registry: registry)
    self.runs = runs
    self.send = send
  }

  /// Serves standard input until `exit` or the end of input; returns the exit status. Runs go on
  /// in workers meanwhile (`runs`), and the editor's other requests are answered while they do.
  public static func run(modules: [any FeatureModule], runs: LanguageServerRuns) -> ExitCode {
    let server: LanguageServer
    do throws(RegistrationError) {
      server = try LanguageServer(modules: modules, runs: runs) { message in
        _ = FileSystem.writeAll(LanguageServerTransport.framed(message), to: STDOUT_FILENO)
      }
    } catch {
      StandardStreams.error("workbench lsp: the modules failed to register: \(error.message)\n")
      return .failure
    }
    defer { server.cancelAllRuns() }
    var transport = LanguageServerTransport()
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let outputs = server.runOutputs
      var descriptors = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)]
      descriptors += outputs.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 || errno == EINTR else { break }
      for entry in descriptors.dropFirst() where entry.revents != 0 { server.serviceRun(readable: entry.fd) }
      guard descriptors[0].revents != 0 else { continue }
      let count = read(STDIN_FILENO, &chunk, chunk.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      transport.append(chunk[..<count])
      while let event = transport.next() {
        switch event {
        case .message(let body):
          if let status = server.receive(body) { return status }
        case .malformed(let problem):
          server.send(Self.errorResponse(id: .null, code: -32700, message: "not a message: \(problem)"))
        }
      }
    }
    return server.shutDown ? .success : .failure
  }

  /// Handles one message's body; returns an exit status when the client said `exit`.
  public func receive(_ body: [UInt8]) -> ExitCode? {
    let message: FrameValue
    do {
      message = try FrameValue.parse(json: body)
    } catch {
      send(Self.errorResponse(id: .null, code: -32700, message: "not JSON: \(error.message)"))
      return nil
    }
    let id = message["id"]
    guard let method = message["method"]?.stringValue else {
      if message["result"] != nil || message["error"] != nil {
        clientAnswered(message)
      } else if let id {
        send(Self.errorResponse(id: id, code: -32600, message: "a request needs a method"))
      }
      return nil
    }
    let params = message["params"] ?? .null
    if method == "exit" {
      cancelAllRuns()
      return shutDown ? .success : .failure
    }
    if shutDown {
      // After `shutdown` only `exit` is answered (LSP: InvalidRequest); notifications are dropped.
      if let id {
        send(
          Self.errorResponse(id: id, code: -32600, message: "the server is shutting down: only `exit` is taken now"))
      }
      return nil
    }
    if let id, let problem = Self.numberOutOfRange(in: params) {
      send(Self.errorResponse(id: id, code: -32602, message: problem))
      return nil
    }
    switch method {
    case "initialize":
      clientCreatesProgress = params["capabilities"]?["window"]?["workDoneProgress"] == .bool(true)
      respond(id, ["capabilities": Self.capabilities, "serverInfo": ["name": "workbench", "version": "1"]])
    case "initialized", "$/setTrace", "workspace/didChangeConfiguration":
      break
    case "$/cancelRequest":
      if let request = params["id"] { cancelRun(requestID: request, token: nil) }
    case "window/workDoneProgress/cancel":
      if let token = params["token"] { cancelRun(requestID: nil, token: token) }
    case "shutdown":
      cancelAllRuns()
      shutDown = true
      respond(id, .null)
    case "textDocument/didOpen":
      guard let uri = params["textDocument"]?["uri"]?.stringValue,
        let text = params["textDocument"]?["text"]?.stringValue
      else { break }
      documents[uri] = Self.lines(text)
      versions[uri] = OutsideNumbers.saturatingSuccessor(of: versions[uri, default: 0])
      publishDiagnostics(uri)
    case "textDocument/didChange":
      guard let uri = params["textDocument"]?["uri"]?.stringValue, var lines = documents[uri] else { break }
      for change in params["contentChanges"]?.elements ?? [] {
        guard let text = change["text"]?.stringValue else { continue }
        if let range = change["range"] {
          // Out of range is clamped: a client that is off loses nothing but its own edit.
          guard let start = Self.position(range["start"], clamping: true),
            let end = Self.position(range["end"], clamping: true)
          else { continue }
          lines = Self.replacing(lines, from: start, to: end, with: text)
        } else {
          lines = Self.lines(text)
        }
      }
      documents[uri] = lines
      versions[uri] = OutsideNumbers.saturatingSuccessor(of: versions[uri, default: 0])
      runFailures[uri] = nil
      publishDiagnostics(uri)
    case "textDocument/didClose":
      guard let uri = params["textDocument"]?["uri"]?.stringValue else { break }
      documents[uri] = nil
      versions[uri] = nil
      runFailures[uri] = nil
      send([
        "jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
        "params": ["uri": .string(uri), "diagnostics": []],
      ])
    case "textDocument/didSave":
      if let uri = params["textDocument"]?["uri"]?.stringValue { publishDiagnostics(uri) }
    case "textDocument/completion":
      guard let uri = params["textDocument"]?["uri"]?.stringValue, let lines = documents[uri],
        let at = Self.position(params["position"])
      else {
        respond(id, .list([]))
        break
      }
      respond(id, ["isIncomplete": false, "items": .list(completions(in: lines, at: at, uri: uri))])
    case "textDocument/hover":
      guard let uri = params["textDocument"]?["uri"]?.stringValue, let lines = documents[uri],
        let at = Self.position(params["position"]), let text = hover(in: lines, at: at)
      else {
        respond(id, .null)
        break
      }
      respond(id, ["contents": ["kind": "plaintext", "value": .string(text)]])
    case "textDocument/definition":
      guard let uri = params["textDocument"]?["uri"]?.stringValue, let lines = documents[uri],
        let at = Self.position(params["position"])
      else {
        respond(id, .null)
        break
      }
      respond(id, definition(in: lines, at: at, uri: uri) ?? .null)
    case "textDocument/references":
      guard let uri = params["textDocument"]?["uri"]?.stringValue, let lines = documents[uri],
        let at = Self.position(params["position"])
      else {
        respond(id, .list([]))
        break
      }
      respond(id, .list(references(in: lines, at: at, uri: uri)))
    case "textDocument/codeLens":
      guard let uri = params["textDocument"]?["uri"]?.stringValue, let lines = documents[uri] else {
        respond(id, .list([]))
        break
      }
      respond(id, .list(Self.lenses(in: lines, uri: uri)))
    case "textDocument/codeAction":
      guard let uri = params["textDocument"]?["uri"]?.stringValue, documents[uri] != nil,
        let line = Self.position(params["range"]?["start"])?.line
      else {
        respond(id, .list([]))
        break
      }
      respond(id, .list(codeActions(uri: uri, line: line)))
    case "workspace/executeCommand":
      executeCommand(id: id, params: params)
    case "textDocument/documentSymbol":
      guard let uri = params["textDocument"]?["uri"]?.stringValue, let lines = documents[uri] else {
        respond(id, .list([]))
        break
      }
      respond(id, .list(Self.symbols(in: lines)))
    default:
      // A request this server does not answer gets an error; a notification, nothing.
      if let id { send(Self.errorResponse(id: id, code: -32601, message: "workbench lsp does not do \(method)")) }
    }
    return nil
  }

  /// `workspace/executeCommand`: a run of the scenario at a line (`workbench.run`), or up to the
  /// step there (`workbench.runTo`), each taking the file's URI and a 0-based line.
  private func executeCommand(id: FrameValue?, params: FrameValue) {
    let name = params["command"]?.stringValue
    guard let name, let kind = ScenarioRunRequest.Kind(rawValue: name) else {
      let known = ScenarioRunRequest.Kind.allCases.map(\.rawValue)
      let named =
        name.map { "no command '\($0)'\(Suggestions.didYouMean($0, in: known))" } ?? "a command's name is missing"
      if let id {
        send(
          Self.errorResponse(
            id: id, code: -32602, message: "\(named): workbench lsp has \(known.joined(separator: " and "))"))
      }
      return
    }
    let arguments = params["arguments"]?.elements ?? []
    guard arguments.count == 2, let uri = arguments[0].stringValue, let line = arguments[1].integerValue,
      (0...Self.largestNumber).contains(line)
    else {
      if let id {
        send(
          Self.errorResponse(
            id: id, code: -32602,
            message: "\(name) takes a file's URI and a line (a number from 0 to \(Self.largestNumber))"))
      }
      return
    }
    guard let lines = documents[uri] else {
      respond(id, .string("the file is not open"))
      return
    }
    startRun(
      ScenarioRunRequest(kind: kind, path: Self.path(of: uri), lines: lines, line: line), id: id, uri: uri,
      params: params)
  }

  /// Why a request's positions cannot be taken: a line or character outside LSP's `uinteger`.
  static func numberOutOfRange(in params: FrameValue) -> String? {
    var places: [FrameValue?] = [params["position"], params["range"]?["start"], params["range"]?["end"]]
    if let arguments = params["arguments"]?.elements { places += arguments.map { ["line": $0] } }
    for place in places.compactMap({ $0 }) {
      for key in ["line", "character"] {
        guard let number = place[key]?.integerValue else { continue }
        if !(0...largestNumber).contains(number) {
          return "\(key) \(number) is out of range: positions are numbers from 0 to \(largestNumber)"
        }
      }
    }
    return nil
  }

  static let capabilities: FrameValue = [
    "textDocumentSync": ["openClose": true, "change": 2, "save": true],
    "completionProvider": ["triggerCharacters": [" ", "{", ",", "/"]],
    "hoverProvider": true, "definitionProvider": true, "documentSymbolProvider": true, "referencesProvider": true,
    "codeLensProvider": ["resolveProvider": false], "codeActionProvider": true,
    "executeCommandProvider": ["commands": .list(ScenarioRunRequest.Kind.allCases.map { .string($0.rawValue) })],
  ]

  /// The command a lens runs: `workbench.run URI LINE` runs the scenario at that line (0-based).
  static let runCommand = ScenarioRunRequest.Kind.run.rawValue
  /// The command "Run to this step" runs: `workbench.runTo URI LINE` (0-based).
  static let runToCommand = ScenarioRunRequest.Kind.runTo.rawValue

  func respond(_ id: FrameValue?, _ result: FrameValue) {
    guard let id else { return }
    send(["jsonrpc": "2.0", "id": id, "result": result])
  }

  static func errorResponse(id: FrameValue, code: Int, message: String) -> FrameValue {
    ["jsonrpc": "2.0", "id": id, "error": ["code": .integer(code), "message": .string(message)]]
  }

  // MARK: Diagnostics

  /// Checks the document as `check` would and sends every problem, each at its range.
  func publishDiagnostics(_ uri: String) {
    guard let lines = documents[uri] else { return }
    let path = Self.path(of: uri)
    var diagnostics: [FrameValue] = []
    do {
      let file = try loader.load(bytes: Array(lines.joined(separator: "\n").utf8), path: path)
      diagnostics = Self.warnings(in: file, lines: lines, path: path)
    } catch {
      for problem in error.all {
        let here = problem.location.file == path
        let line = here ? max(0, problem.location.line - 1) : 0
        let range = Self.range(in: lines, line: line, column: here ? problem.location.column : 1)
        diagnostics.append([
          "range": range, "severity": 1, "source": "workbench",
          "message": .string(here ? problem.message : "\(problem.location): \(problem.message)"),
        ])
      }
    }
    send([
      "jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
      "params": ["uri": .string(uri), "diagnostics": .list(diagnostics + (runFailures[uri] ?? []))],
    ])
  }

  // MARK: Running

  /// A lens over each scenario: run it.
  static func lenses(in lines: [String], uri: String) -> [FrameValue] {
    lines.enumerated().compactMap { index, line in
      guard line.hasPrefix("scenario:") else { return nil }
      let range = Self.range(in: lines, line: index, column: 1)
      return [
        "range": range,
        "command": [
          "title": "▶ run", "command": .string(runCommand), "arguments": [.string(uri), .integer(index)],
        ],
      ]
    }
  }

  /// The actions on a line: on a scenario's step, "Run to this step".
  func codeActions(uri: String, line: Int) -> [FrameValue] {
    guard let (scenario, count) = scenarioAndSteps(uri: uri, line: line), count > 0 else { return [] }
    let step = scenario.steps[count - 1]
    return [
      [
        "title": .string("Run to this step (\(count) of \(scenario.steps.count): \(step.summary))"),
        "command": [
          "title": "Run to this step", "command": .string(Self.runToCommand),
          "arguments": [.string(uri), .integer(line)],
        ],
      ]
    ]
  }

  /// The scenario of the open document holding `line` (0-based), and how many of its steps run
  /// to reach that line, as `workbench run FILE:LINE --shell` counts them.
  private func scenarioAndSteps(uri: String, line: Int) -> (Scenario, Int)? {
    guard let lines = documents[uri] else { return nil }
    let path = Self.path(of: uri)
    guard let file = try? loader.load(bytes: Array(lines.joined(separator: "\n").utf8), path: path),
      let scenario = file.scenarios.last(where: { $0.location.line <= line + 1 }) ?? file.scenarios.first
    else { return nil }
    return (scenario, ScenarioRunner.stepCount(reaching: line + 1, of: path, in: scenario))
  }

  /// What runs but is suspicious, as warnings: a window the file declares that no step or
  /// expectation of its scenario names, and a snapshot step whose golden file is not there yet
  /// (the step fails until `--update-snapshots` writes it).
  static func warnings(in file: ScenarioFile, lines: [String], path: String) -> [FrameValue] {
    var warnings: [FrameValue] = []
    func warn(_ location: SourceLocation, _ message: String) {
      guard location.file == path else { return }
      warnings.append([
        "range": range(in: lines, line: max(0, location.line - 1), column: location.column), "severity": 2,
        "source": "workbench", "message": .string(message),
      ])
    }
    var warned: Set<String> = []
    for scenario in file.scenarios {
      var named: Set<String> = []
      var snapshots = 0
      for step in scenario.steps {
        switch step.action {
        case .command(let window, let line):
          named.insert(window)
          for word in line.split(separator: " ") { named.insert(CommandToken.bareWindowReference(String(word))) }
        case .host(let line):
          // Any word may name a window here (`open ... NAME`, `focus NAME`, `@NAME ...`).
          for word in line.split(separator: " ") { named.insert(CommandToken.bareWindowReference(String(word))) }
        case .expect(let expectations):
          for expectation in expectations { named.insert(expectation.window) }
        case .snapshot(let windows):
          named.formUnion(windows)
          snapshots += 1
          let golden = SnapshotPaths.path(for: scenario, number: snapshots)
          if !FileSystem.exists(golden) {
            warn(
              step.location,
              "no golden file yet (\(golden)): the step fails until `workbench run --update-snapshots` writes it")
          }
        }
      }
      for window in scenario.windows where !named.contains(window.name) {
        // Example rows repeat a scenario: each window is said once.
        let key = "\(scenario.location.line) \(window.name)"
        guard warned.insert(key).inserted,
          let line = lines[min(lines.count, max(0, scenario.location.line - 1))...].firstIndex(where: {
            $0.hasPrefix("  \(window.name):")
          })
        else { continue }
        warn(
          SourceLocation(file: path, line: line + 1, column: 3),
          "window \(window.name) is declared but no step or expectation of this scenario uses it")
      }
    }
    return warnings
  }

  /// The range of the word a problem's 1-based column points at (in Unicode scalars), in
  /// UTF-16 code units as LSP counts them.
  static func range(in lines: [String], line: Int, column: Int) -> FrameValue {
    let text = line < lines.count ? lines[line] : ""
    let scalars = Array(text.unicodeScalars)
    let start = min(max(0, column - 1), scalars.count)
    var end = start
    while end < scalars.count, !" \t:,{}[]#".unicodeScalars.contains(scalars[end]) { end += 1 }
    if end == start { end = scalars.count }
    func utf16(_ count: Int) -> Int { scalars.prefix(count).reduce(0) { $0 + $1.utf16.count } }
    return [
      "start": ["line": .integer(line), "character": .integer(utf16(start))],
      "end": ["line": .integer(line), "character": .integer(utf16(end))],
    ]
  }

  // MARK: Completion

  /// What fits where the cursor is: a window's commands after `NAME: ` in a step, a screen's
  /// frame fields inside an expectation of that window.
  func completions(
    in lines: [String], at position: (line: Int, character: Int), uri: String = "file:///untitled.yaml"
  ) -> [FrameValue] {
    guard position.line < lines.count else { return [] }
    let prefix = Self.prefix(of: lines[position.line], utf16: position.character)
    // `ste` at the start of a line: a key of the scenario format (a flow's in a flow file);
    // `  - ex` at the start of a step: a kind of step, or a window of the file.
    if let typed = Self.keyPrefix(prefix) {
      let isFlow = lines.contains { $0.hasPrefix("flow:") }
      let keys = isFlow ? ScenarioLoader.flowKeys : ScenarioLoader.scenarioKeys
      return keys.filter { $0.hasPrefix(typed) }.map { key in
        ["label": .string(key), "kind": 14, "insertText": .string(key + ": "), "detail": "a key of the file"]
      }
    }
    if let typed = Self.stepKeyPrefix(prefix) {
      let windows = Self.windowScreens(in: lines).keys.sorted()
      return (ScenarioLoader.stepKinds + windows).filter { $0.hasPrefix(typed) }.map { key in
        [
          "label": .string(key), "kind": 14, "insertText": .string(key + ": "),
          "detail": .string(ScenarioLoader.stepKinds.contains(key) ? "a kind of step" : "a command in this window"),
        ]
      }
    }
    // `${que`: a parameter the text can use here (a flow's, an example row's, `iteration`).
    if let typed = Self.parameterPrefix(prefix) {
      return Self.parameters(in: lines, line: position.line).map(\.name).filter { $0.hasPrefix(typed) }.map { name in
        ["label": .string(name), "kind": 6, "detail": "a parameter"]
      }
    }
    // `- include: flo`: the scenario files beside this one.
    if let typed = Self.includePrefix(prefix) {
      return Self.includableFiles(from: Self.path(of: uri)).filter { $0.hasPrefix(typed) }.map { file in
        ["label": .string(file), "kind": 17, "detail": "a file to include"]
      }
    }
    // `  with: {bo`: a parameter of the flow the step above includes, not given yet.
    if let typed = Self.withPrefix(prefix), let flow = Self.includedFile(above: position.line, in: lines, uri: uri),
      let bytes = try? FileSystem.read(flow)
    {
      let given = Set(
        prefix.split(whereSeparator: { "{, ".contains($0) }).compactMap { part in
          part.firstIndex(of: ":").map { String(part[..<$0]) }
        })
      let flowLines = Self.lines(String(decoding: bytes, as: UTF8.self))
      return Self.parameters(in: flowLines, line: 0).map(\.name).filter { $0.hasPrefix(typed) && !given.contains($0) }
        .map { name in ["label": .string(name), "kind": 6, "detail": .string("a parameter of \(flow)")] }
    }
    let windows = Self.windowScreens(in: lines)
    // `  - left: que` or `  - do: cl`: the first word of a step's command. (Read by hand, not
    // with regular expressions: completion runs at every keystroke.)
    if let step = Self.stepPrefix(prefix) {
      let screen = step.window == "do" ? nil : windows[step.window]
      guard step.window == "do" || screen != nil else { return [] }
      return registry.router.names(forScreen: screen).filter { $0.hasPrefix(step.typed) }.map { name in
        [
          "label": .string(name), "kind": 2,
          "detail": .string(screen.map { "a command in a \($0) window" } ?? "a command"),
        ]
      }
    }
    // `  - left: sort ti`: an argument of the command, where its values are known (choices,
    // subcommands, windows, screens, documents).
    if let step = Self.stepArguments(prefix) {
      let screen = step.window == "do" ? nil : windows[step.window]
      guard case .success(let route) = registry.router.route(step.command, screen: screen) else { return [] }
      var spec = route.spec
      var words = step.words
      if !spec.subcommands.isEmpty {
        guard let first = words.first else {
          return spec.subcommands.filter { $0.name.hasPrefix(step.typed) }.map {
            ["label": .string($0.name), "kind": 2, "detail": .string($0.summary)]
          }
        }
        guard let sub = spec.subcommand(named: first) else { return [] }
        spec = sub
        words.removeFirst()
      }
      guard words.count < spec.arguments.count else { return [] }
      let argument = spec.arguments[words.count]
      if case .reference = argument.kind {
        return identifiers(in: lines, line: position.line, uri: uri, step: step)
      }
      let values: [String]
      switch argument.kind {
      case .choice(let choices): values = choices
      case .windowOr(let choices): values = windows.keys.sorted() + choices
      case .window: values = windows.keys.sorted()
      case .screen: values = registry.screens.map(\.name)
      case .document:
        // After a screen, only the samples of the kind it shows (and the file's own documents).
        let shown = zip(spec.arguments, words).first { pair in
          if case .screen = pair.0.kind { return true } else { return false }
        }.flatMap { registry.screen(named: $0.1)?.documentKind }
        values =
          Self.documentNames(in: lines)
          + registry.sampleDocuments.filter { shown == nil || $0.kind == shown }.map(\.name)
      default: values = []
      }
      return values.filter { $0.hasPrefix(step.typed) }.map { value in
        ["label": .string(value), "kind": 12, "detail": .string(argument.name)]
      }
    }
    // `      left: {sta` or `      left: {query: x, sta`: a field of the window's frame.
    // `      left: {viewport: {anc`: a field inside a field, from the window's frame as the steps
    // before leave it (frames declare only their top-level fields).
    if let nested = Self.nestedFieldPrefix(prefix), Self.isInExpectation(lines, line: position.line),
      windows[nested.window] != nil
    {
      var value = liveSession(in: lines, line: position.line, uri: uri)?.host.window(named: nested.window)?.frame
      for key in nested.path { value = value?[key] }
      if case .list(let items)? = value { value = items.first }
      guard case .object(let object)? = value else { return [] }
      return object.members.map(\.key).filter { $0.hasPrefix(nested.typed) }.map { name in
        ["label": .string(name), "kind": 5, "detail": .string("a field of \(nested.path.joined(separator: "."))")]
      }
    }
    if let field = Self.flowFieldPrefix(prefix), Self.isInExpectation(lines, line: position.line) {
      guard let screen = windows[field.window], let fields = registry.frameFields(ofScreen: screen) else {
        return []
      }
      return fields.filter { $0.hasPrefix(field.typed) }.map { name in
        ["label": .string(name), "kind": 5, "detail": .string("a field of \(screen) frames")]
      }
    }
    return []
  }

  /// The identifiers an argument takes (a book's id), with what each names (its title): read
  /// from the window as the steps before the line leave it, run as `run FILE:LINE --shell` runs
  /// them, so the documents the scenario declares or loads, and what its steps did to them,
  /// are what is offered.
  private func identifiers(
    in lines: [String], line: Int, uri: String, step: (window: String, command: String, words: [String], typed: String)
  ) -> [FrameValue] {
    guard let session = liveSession(in: lines, line: line, uri: uri) else { return [] }
    let typed =
      (step.window == "do" ? "" : "@\(step.window) ")
      + ([step.command] + step.words + [step.typed]).joined(separator: " ")
    let host = session.host
    let candidates = host.completions(for: typed)
    let labels = host.completionLabels(for: typed, candidates: candidates)
    let width = String(candidates.count).count
    return candidates.enumerated().map { index, candidate in
      let order = String(index)
      var members: [(key: String, value: FrameValue)] = [
        ("label", .string(candidate)), ("kind", 12),
        ("sortText", .string(String(repeating: "0", count: width - order.count) + order)),
      ]
      if let label = labels[candidate] { members.append(("detail", .string(label))) }
      return .object(FrameObject(members: members))
    }
  }

  // MARK: Parameters and includes

  /// A partial key at the very start of a line (`ste`): what is typed.
  static func keyPrefix(_ prefix: Substring) -> String? {
    guard let first = prefix.first, first.isLetter, isName(prefix) else { return nil }
    return String(prefix)
  }

  /// `  - part` (the cursor in a step's first key, before its colon): what is typed.
  static func stepKeyPrefix(_ prefix: Substring) -> String? {
    let rest = prefix.drop { $0 == " " }
    guard rest.first == "-", rest.dropFirst().first == " " else { return nil }
    let typed = rest.dropFirst().drop { $0 == " " }
    guard typed.isEmpty || isName(typed) else { return nil }
    return String(typed)
  }

  /// `...${part` at the cursor: what is typed of a parameter's name.
  static func parameterPrefix(_ prefix: Substring) -> String? {
    guard let dollar = prefix.lastIndex(of: "$"), prefix[dollar...].hasPrefix("${") else { return nil }
    let typed = prefix[prefix.index(dollar, offsetBy: 2)...]
    guard typed.isEmpty || isName(typed) else { return nil }
    return String(typed)
  }

  /// `  - include: part` at the cursor: what is typed of the path.
  static func includePrefix(_ prefix: Substring) -> String? {
    let rest = prefix.drop { $0 == " " || $0 == "-" }
    guard rest.hasPrefix("include:") else { return nil }
    let path = rest.dropFirst("include:".count).drop { $0 == " " }
    guard !path.contains(" ") else { return nil }
    return String(path)
  }

  /// `  with: {name: x, part` at the cursor: what is typed of the next key.
  static func withPrefix(_ prefix: Substring) -> String? {
    let rest = prefix.drop { $0 == " " }
    guard rest.hasPrefix("with:"), let brace = rest.firstIndex(of: "{") else { return nil }
    let last = rest[rest.index(after: brace)...].split(separator: ",", omittingEmptySubsequences: false).last ?? ""
    let typed = last.drop { $0 == " " }
    guard !typed.contains(":"), typed.isEmpty || isName(typed) else { return nil }
    return String(typed)
  }

  /// Every `include:` of `target` in the scenario files beside the open file (the open file as
  /// the editor has it): the references of an included file.
  func includes(of target: String, from uri: String, lines: [String]) -> [FrameValue] {
    let path = Self.path(of: uri)
    let folder = FileSystem.folder(of: path)
    var places: [FrameValue] = []
    let files = [path] + Self.includableFiles(from: path).map { folder + "/" + $0 }
    for file in files {
      let text: [String]
      if file == path {
        text = lines
      } else {
        guard let bytes = try? FileSystem.read(file) else { continue }
        text = Self.lines(String(decoding: bytes, as: UTF8.self))
      }
      for index in text.indices {
        guard Self.includePath(in: text[index], uri: "file://" + file) == target else { continue }
        let column = text[index].prefix { $0 == " " || $0 == "-" }.count
        places.append([
          "uri": .string("file://" + file), "range": Self.range(in: text, line: index, column: column + 1),
        ])
      }
    }
    return places
  }

  /// The file the `include:` on this line or the two above it names, as a path.
  static func includedFile(above line: Int, in lines: [String], uri: String) -> String? {
    for index in stride(from: line, through: max(0, line - 2), by: -1) where index < lines.count {
      if let path = includePath(in: lines[index], uri: uri) { return path }
    }
    return nil
  }

  /// The file an `include:` line names, as a path (relative to the file at `uri`).
  static func includePath(in line: String, uri: String) -> String? {
    let rest = line.drop { $0 == " " || $0 == "-" }
    guard rest.hasPrefix("include:") else { return nil }
    let named = String(rest.dropFirst("include:".count).drop { $0 == " " }.prefix { $0 != " " && $0 != "#" })
    guard !named.isEmpty else { return nil }
    return resolve(named, from: uri)
  }

  /// A path a file names (`include:`, `file:`), relative to the file at `uri`, made whole.
  static func resolve(_ named: String, from uri: String) -> String {
    FileSystem.resolve(named, from: FileSystem.folder(of: path(of: uri)))
  }

  /// The scenario files under the folder of `path` (four levels deep, snapshot and data folders
  /// left out), relative to it, the file itself excepted: what an `include:` can name.
  static func includableFiles(from path: String) -> [String] {
    let folder = FileSystem.folder(of: path)
    guard FileSystem.isDirectory(folder) else { return [] }
    // Four levels down at most, 2,000 files at most: a scenario in a home folder does not walk it.
    let files = FileSystem.walk(folder, maximumDepth: 4, limit: 2_000).files.filter { file in
      (file.hasSuffix(".yaml") || file.hasSuffix(".yml")) && file != path && !file.contains("/__snapshots__/")
        && !file.contains("/data/")
    }
    return files.map { String($0.dropFirst(folder.count + 1)) }.sorted()
  }

  /// The parameters the text at `line` can use, each where it is defined: a flow's `params:`,
  /// the keys of the scenario's `examples:` rows, and `iteration` inside a `repeat:` (only the
  /// YAML document `line` is in counts, between `---` lines).
  static func parameters(in lines: [String], line: Int) -> [(name: String, line: Int, column: Int)] {
    guard !lines.isEmpty else { return [] }
    let at = min(max(0, line), lines.count - 1)
    var start = at
    while start > 0, !lines[start - 1].hasPrefix("---") { start -= 1 }
    var end = at
    while end + 1 < lines.count, !lines[end + 1].hasPrefix("---") { end += 1 }
    var found: [(name: String, line: Int, column: Int)] = []
    func add(_ name: Substring, _ index: Int, in text: String) {
      let trimmed = name.trimmingPrefix(" ")
      let clean = String(trimmed.prefix { $0 != " " && $0 != "]" && $0 != "}" })
      guard isName(clean), !found.contains(where: { $0.name == clean }) else { return }
      let column = text.firstRange(of: clean).map { text.unicodeScalars[..<$0.lowerBound].count } ?? 0
      found.append((clean, index, column))
    }
    var section = ""
    for index in start...end {
      let text = lines[index]
      if let first = text.first, first != " ", first != "#", first != "-" {
        section = String(text.prefix { $0 != ":" })
        if section == "params", let open = text.firstIndex(of: "["), let close = text.lastIndex(of: "]"), open < close {
          for name in text[text.index(after: open)..<close].split(separator: ",") { add(name, index, in: text) }
        }
        continue
      }
      if section == "params", text.drop(while: { $0 == " " }).hasPrefix("- ") {
        add(text.drop(while: { $0 == " " }).dropFirst(2), index, in: text)
      }
      if section == "examples" {
        // `- {query: x, count: 1}` rows, or block rows `- query: x` / `  count: 1`.
        let body = text.drop { $0 == " " || $0 == "-" }
        let parts = body.hasPrefix("{") ? body.dropFirst().split(separator: ",") : [body]
        for part in parts {
          guard let colon = part.firstIndex(of: ":") else { continue }
          let key = part[..<colon].drop { $0 == " " }
          if isName(key) { add(key, index, in: text) }
        }
      }
      if index <= at, text.drop(while: { $0 == " " || $0 == "-" }).hasPrefix("repeat:") {
        add("iteration", index, in: text.replacing("repeat", with: "iteration"))
      }
    }
    return found
  }

  /// The session as the steps before `line` leave it, run as `run FILE:LINE --shell` runs them
  /// (kept while the lines before it stay the same, as they do while a word is typed).
  private func liveSession(in lines: [String], line: Int, uri: String) -> WorkbenchSession? {
    let path = Self.path(of: uri)
    let key = path + "\u{0}" + lines.prefix(line).joined(separator: "\n")
    if let kept = completionSession, kept.key == key { return kept.session }
    // The step being typed is not a whole step yet (`select` needs its id, an expectation its
    // braces): it stands as a step that changes nothing, so the steps before it run as written.
    var text = lines
    if line < text.count {
      let indent = { (text: String) in text.prefix { $0 == " " }.count }
      let isItem = { (text: String) in text.drop { $0 == " " }.hasPrefix("- ") }
      var start = line
      if !isItem(text[line]) {
        while start > 0, !(isItem(text[start]) && indent(text[start]) < indent(text[line])) { start -= 1 }
      }
      if isItem(text[start]) {
        for index in start...line { text[index] = "" }
        text[start] = String(repeating: " ", count: indent(lines[start])) + "- do: windows"
      } else {
        text[line] = ""
      }
    }
    // Steps after it may be mid-edit too: without them, if the file does not load with them
    // (the next top-level key, `examples:` say, is kept).
    var loaded = try? loader.load(bytes: Array(text.joined(separator: "\n").utf8), path: path)
    if loaded == nil, line + 1 < text.count {
      let next = text[(line + 1)...].firstIndex { $0.first.map { $0 != " " && $0 != "#" } ?? false } ?? text.count
      let shortened = Array(text[...line]) + Array(repeating: "", count: next - line - 1) + Array(text[next...])
      loaded = try? loader.load(bytes: Array(shortened.joined(separator: "\n").utf8), path: path)
    }
    guard let file = loaded, let scenario = file.scenarios.last(where: { $0.location.line <= line + 1 }),
      let opened = try? ScenarioRunner(registry: registry).open(
        scenario, steps: ScenarioRunner.stepCount(reaching: line, of: path, in: scenario))
    else { return nil }
    completionSession?.session.end()
    completionSession = (key, opened.session)
    return opened.session
  }

  /// `      NAME: {key: {part` (the cursor inside a field's own `{...}`): the window, the path
  /// of fields down to where the cursor is, and what is typed.
  static func nestedFieldPrefix(_ prefix: Substring) -> (window: String, path: [String], typed: String)? {
    let rest = prefix.drop { $0 == " " }
    guard let colon = rest.firstIndex(of: ":"), isName(rest[..<colon]) else { return nil }
    var path: [String] = []
    var key = ""
    var lastKey = ""
    var depth = 0
    for character in rest[rest.index(after: colon)...] {
      switch character {
      case "{":
        if depth > 0 { path.append(lastKey) }
        depth += 1
        key = ""
      case "}":
        depth -= 1
        if depth > 0, !path.isEmpty { path.removeLast() }
        key = ""
      case ",":
        key = ""
        lastKey = ""
      case ":":
        lastKey = String(key.filter { $0 != " " })
        key = ""
      default: key.append(character)
      }
      if depth < 0 { return nil }
    }
    let typed = key.drop { $0 == " " }
    guard depth >= 2, !path.isEmpty, typed.isEmpty || isName(typed) else { return nil }
    return (String(rest[..<colon]), path, String(typed))
  }

  /// Whether `open ` is in the line, looked for byte by byte.
  static func containsOpen(_ line: String) -> Bool {
    let found = line.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
      guard bytes.count >= 5 else { return false }
      for index in 0...(bytes.count - 5)
      where bytes[index] == 0x6F && bytes[index + 1] == 0x70 && bytes[index + 2] == 0x65 && bytes[index + 3] == 0x6E
        && bytes[index + 4] == 0x20
      {
        return true
      }
      return false
    }
    return found ?? line.contains("open ")
  }

  /// A word of names: letters, digits and `_.-`.
  static func isName<S: StringProtocol>(_ text: S) -> Bool {
    !text.isEmpty
      && text.unicodeScalars.allSatisfy {
        $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0)
      }
  }

  /// `  - NAME: partial` (the cursor in a step's first word): the window and what is typed.
  static func stepPrefix(_ prefix: Substring) -> (window: String, typed: String)? {
    let rest = prefix.drop { $0 == " " }
    guard rest.first == "-" else { return nil }
    let afterDash = rest.dropFirst()
    guard afterDash.first == " " else { return nil }
    let item = afterDash.drop { $0 == " " }
    guard let colon = item.firstIndex(of: ":") else { return nil }
    let window = item[..<colon]
    let after = item[item.index(after: colon)...]
    guard isName(window), after.first == " " else { return nil }
    let typed = after.drop { $0 == " " }
    guard typed.isEmpty || isName(typed) else { return nil }
    return (String(window), String(typed))
  }

  /// `  - NAME: COMMAND WORD... part` (the cursor after a step's command): the window, the
  /// command, the words typed after it and what is typed of the next.
  static func stepArguments(_ prefix: Substring) -> (window: String, command: String, words: [String], typed: String)? {
    let rest = prefix.drop { $0 == " " }
    guard rest.first == "-", rest.dropFirst().first == " " else { return nil }
    let item = rest.dropFirst().drop { $0 == " " }
    guard let colon = item.firstIndex(of: ":"), isName(item[..<colon]) else { return nil }
    let line = item[item.index(after: colon)...]
    guard line.first == " " else { return nil }
    let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    guard let command = words.first, isName(command), words.count >= 2 || line.last == " " else { return nil }
    let typed = line.last == " " ? "" : words.last ?? ""
    let between = Array(words.dropFirst().dropLast(line.last == " " ? 0 : 1))
    return (String(item[..<colon]), command, between, typed)
  }

  /// The documents the file declares (`documents:` keys).
  static func documentNames(in lines: [String]) -> [String] {
    var names: [String] = []
    var inDocuments = false
    for line in lines {
      let first = line.utf8.first
      if first != nil && first != UInt8(ascii: " ") && first != UInt8(ascii: "#") {
        inDocuments = line.hasPrefix("documents:")
        continue
      }
      guard inDocuments, line.hasPrefix("  "), !line.hasPrefix("   ") else { continue }
      let key = line.drop { $0 == " " }.prefix { $0 != ":" }
      if isName(key) { names.append(String(key)) }
    }
    return names
  }

  /// `      NAME: {field: x, part` (the cursor on a key of a flow mapping): the window and what
  /// is typed of the key.
  static func flowFieldPrefix(_ prefix: Substring) -> (window: String, typed: String)? {
    let rest = prefix.drop { $0 == " " }
    guard let colon = rest.firstIndex(of: ":"), isName(rest[..<colon]) else { return nil }
    let value = rest[rest.index(after: colon)...].drop { $0 == " " }
    guard value.first == "{", !value.contains("}") else { return nil }
    let lastItem = value.split(separator: ",", omittingEmptySubsequences: false).last ?? value
    let typed = lastItem.drop { $0 == "{" || $0 == " " }
    guard typed.isEmpty || isName(typed) else { return nil }
    return (String(rest[..<colon]), String(typed))
  }

  /// Whether the line is inside an `expect:` block (an `expect:` above it, indented less).
  static func isInExpectation(_ lines: [String], line: Int) -> Bool {
    let indent = lines[line].prefix { $0 == " " }.count
    for index in stride(from: line - 1, through: 0, by: -1) {
      let text = lines[index]
      let own = text.prefix { $0 == " " }.count
      guard own < indent, !text.trimmingPrefix(while: { $0 == " " }).isEmpty else { continue }
      return text.contains("expect:")
    }
    return false
  }

  /// Each window's screen, as the file names them: under `windows:` (`main: feed account`, or
  /// `screen: feed` under the name) and in `open SCREEN DOCUMENT NAME` steps. (Read word by
  /// word, without regular expressions: it runs on every completion of a long file.)
  static func windowScreens(in lines: [String]) -> [String: String] {
    var screens: [String: String] = [:]
    var inWindows = false
    var pending: String?
    for line in lines {
      let first = line.utf8.first
      if first != nil && first != UInt8(ascii: " ") && first != UInt8(ascii: "#") {
        inWindows = line.hasPrefix("windows:")
        continue
      }
      // Most lines are steps that open nothing: only the windows' lines and those with `open`
      // are split into words.
      guard inWindows || Self.containsOpen(line) else { continue }
      let words = line.split(separator: " ", omittingEmptySubsequences: true)
      if inWindows, let key = words.first, key.hasSuffix(":") {
        let name = String(key.dropLast())
        if name == "screen", words.count >= 2, let window = pending {
          screens[window] = String(words[1])
        } else if words.count >= 3 {
          screens[name] = String(words[1])
        } else if words.count == 1 {
          pending = name
        }
      }
      // `open SCREEN DOCUMENT NAME` anywhere in a step.
      if let open = words.firstIndex(of: "open"), open + 3 < words.count {
        screens[String(words[open + 3])] = String(words[open + 1])
      }
    }
    return screens
  }

  // MARK: Hover, definition, symbols

  /// The word under the cursor, with where it starts and ends (in UTF-16 units).
  static func word(in line: String, at character: Int) -> (text: String, start: Int, end: Int)? {
    let units = Array(line.utf16)
    func isWord(_ unit: UInt16) -> Bool {
      guard let scalar = Unicode.Scalar(unit) else { return false }
      return scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-.".unicodeScalars.contains(scalar)
    }
    var start = min(character, units.count)
    var end = start
    while start > 0, isWord(units[start - 1]) { start -= 1 }
    while end < units.count, isWord(units[end]) { end += 1 }
    guard start < end else { return nil }
    return (String(decoding: units[start..<end], as: UTF16.self), start, end)
  }

  /// What the word under the cursor is: a command (its help, as `help COMMAND` gives it in a
  /// window of that screen), a window (its screen and document), a field of a window's frames.
  func hover(in lines: [String], at position: (line: Int, character: Int)) -> String? {
    guard position.line < lines.count, let word = Self.word(in: lines[position.line], at: position.character) else {
      return nil
    }
    let line = lines[position.line]
    let windows = Self.windowScreens(in: lines)
    if let step = line.wholeMatch(of: /(\s*-\s+)([A-Za-z0-9_.-]+):\s+([A-Za-z0-9_.-]+).*/) {
      let commandStart = line.utf16.distance(from: line.startIndex, to: step.3.startIndex)
      if word.start == commandStart {
        let window = String(step.2)
        return help(for: word.text, screen: window == "do" ? nil : windows[window])
      }
    }
    if let screen = windows[word.text] {
      return "window \(word.text): a \(screen) window"
        + (registry.screen(named: screen).map { " on a \($0.documentKind) document" } ?? "")
    }
    // A field inside a window's expectation: `left: {query: ...}`.
    if let match = line.firstMatch(of: /([A-Za-z0-9_.-]+):\s*\{/), Self.isInExpectation(lines, line: position.line),
      let screen = windows[String(match.1)], registry.frameFields(ofScreen: screen)?.contains(word.text) == true
    {
      let meaning = registry.summary(ofField: word.text, ofScreen: screen).map { ": \($0)" } ?? ""
      return "\(word.text)\(meaning) (a field of \(screen) frames)"
    }
    return nil
  }

  /// `help NAME` as the shell gives it, in a host on this registry with a window of `screen`
  /// open (so a module's command reads as it does there).
  func help(for name: String, screen: String?) -> String? {
    let host = Host(registry: registry, clock: .virtual)
    if let screen, let shown = registry.screen(named: screen) {
      _ = try? host.openWindow(
        screen: shown.name,
        document: host.documentNames.first { name in
          host.documentKind(of: name) == shown.documentKind
        } ?? "")
    }
    guard let outputs = try? host.run(line: "help " + name) else { return nil }
    let text = outputs.compactMap { output -> String? in
      if case .text(let text) = output { return text }
      return nil
    }.joined(separator: "\n")
    return text.isEmpty ? nil : text
  }

  /// Where the window under the cursor is declared (under `windows:`, or the step that opens
  /// it), or the file an `include:` names.
  func definition(in lines: [String], at position: (line: Int, character: Int), uri: String) -> FrameValue? {
    guard position.line < lines.count else { return nil }
    let line = lines[position.line]
    // `file: data/x.json` under a document: the data file.
    if let data = line.firstMatch(of: /\bfile:\s*([^\s#]+)/) {
      return [
        "uri": .string("file://" + Self.resolve(String(data.1), from: uri)),
        "range": Self.range(in: [], line: 0, column: 1),
      ]
    }
    if let include = line.wholeMatch(of: /\s*-?\s*include:\s+(\S+)\s*/) {
      return [
        "uri": .string("file://" + Self.resolve(String(include.1), from: uri)),
        "range": Self.range(in: [], line: 0, column: 1),
      ]
    }
    // `${name}`: where the parameter is defined (the flow's `params:`, the first example row that
    // gives it, the `repeat:` for `iteration`).
    if let word = Self.word(in: line, at: position.character), word.start >= 2,
      Array(line.utf16).dropFirst(word.start - 2).prefix(2).elementsEqual("${".utf16),
      let defined = Self.parameters(in: lines, line: position.line).first(where: { $0.name == word.text })
    {
      return ["uri": .string(uri), "range": Self.range(in: lines, line: defined.line, column: defined.column + 1)]
    }
    guard let word = Self.word(in: line, at: position.character), Self.windowScreens(in: lines)[word.text] != nil
    else { return nil }
    for (index, text) in lines.enumerated() {
      let declared = text.wholeMatch(of: /\s+([A-Za-z0-9_.-]+):.*/).map { String($0.1) == word.text } ?? false
      let opened =
        text.firstMatch(of: /open\s+[A-Za-z0-9_.-]+\s+[A-Za-z0-9_.-]+\s+([A-Za-z0-9_.-]+)/)
        .map { String($0.1) == word.text } ?? false
      guard (declared && Self.isUnderWindows(lines, line: index)) || opened else { continue }
      // The name's column: the last place it stands in an `open` step, else after the indent.
      let column =
        opened
        ? (text.ranges(of: word.text).last.map { text.unicodeScalars[..<$0.lowerBound].count } ?? 0)
        : text.prefix { $0 == " " }.count
      return ["uri": .string(uri), "range": Self.range(in: lines, line: index, column: column + 1)]
    }
    return nil
  }

  /// Every place the window under the cursor is named: where it is declared or opened, the
  /// steps run in it (`- left: ...`), the expectations on it (`left: {...}`) and `@left`.
  func references(in lines: [String], at position: (line: Int, character: Int), uri: String) -> [FrameValue] {
    if position.line < lines.count, let included = Self.includePath(in: lines[position.line], uri: uri) {
      return includes(of: included, from: uri, lines: lines)
    }
    guard position.line < lines.count, let word = Self.word(in: lines[position.line], at: position.character),
      Self.windowScreens(in: lines)[word.text] != nil
    else { return [] }
    var places: [FrameValue] = []
    for (index, line) in lines.enumerated() {
      let units = Array(line.utf16)
      let name = Array(word.text.utf16)
      var start = 0
      while start + name.count <= units.count {
        defer { start += 1 }
        guard Array(units[start..<(start + name.count)]) == name else { continue }
        // A whole word: not part of a longer name.
        let before = start == 0 ? nil : Unicode.Scalar(units[start - 1])
        let after = start + name.count < units.count ? Unicode.Scalar(units[start + name.count]) : nil
        let boundary = { (scalar: Unicode.Scalar?) in
          scalar.map { !($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0)) }
            ?? true
        }
        guard boundary(before), boundary(after) else { continue }
        places.append([
          "uri": .string(uri),
          "range": [
            "start": ["line": .integer(index), "character": .integer(start)],
            "end": ["line": .integer(index), "character": .integer(start + name.count)],
          ],
        ])
      }
    }
    return places
  }

  /// Whether the line is a key of the `windows:` section.
  static func isUnderWindows(_ lines: [String], line: Int) -> Bool {
    for index in stride(from: line - 1, through: 0, by: -1) where !lines[index].hasPrefix(" ") && !lines[index].isEmpty
    {
      return lines[index].hasPrefix("windows:")
    }
    return false
  }

  /// Each scenario of the file (its `scenario:` line) with its steps (the items of `steps:`).
  static func symbols(in lines: [String]) -> [FrameValue] {
    var symbols: [FrameValue] = []
    var current: (name: String, line: Int, steps: [FrameValue])?
    var stepIndent: Int?
    func close(until end: Int) {
      guard let scenario = current else { return }
      let range: FrameValue = [
        "start": ["line": .integer(scenario.line), "character": 0],
        "end": ["line": .integer(max(scenario.line, end)), "character": 0],
      ]
      symbols.append([
        "name": .string(scenario.name), "kind": 5, "range": range, "selectionRange": range,
        "children": .list(scenario.steps),
      ])
      current = nil
    }
    for (index, line) in lines.enumerated() {
      if let match = line.wholeMatch(of: /(?:scenario|flow):\s*(.*)/) {
        close(until: index - 1)
        let name = match.1.trimmingPrefix(while: { $0 == "'" || $0 == "\"" })
        current = (String(name.reversed().drop { $0 == "'" || $0 == "\"" || $0 == " " }.reversed()), index, [])
        stepIndent = nil
      } else if line.hasPrefix("steps:") {
        stepIndent = -1
      } else if line.hasPrefix("---") {
        stepIndent = nil
      } else if let indent = stepIndent, let step = line.wholeMatch(of: /(\s*)-\s+(.+)/) {
        let own = step.1.count
        if indent == -1 { stepIndent = own }
        guard own == stepIndent else { continue }
        let range = Self.range(in: lines, line: index, column: own + 3)
        current?.steps.append([
          "name": .string(String(step.2)), "kind": 6, "range": range, "selectionRange": range,
        ])
      } else if !line.hasPrefix(" "), !line.isEmpty, !line.hasPrefix("#") {
        stepIndent = nil
      }
    }
    close(until: lines.count - 1)
    return symbols
  }

  // MARK: Text

  static func lines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// A position from the client: `nil` when it is not there or out of LSP's range (the
  /// request was refused already), or, `clamping`, with each number brought into that range.
  static func position(_ value: FrameValue?, clamping: Bool = false) -> (line: Int, character: Int)? {
    guard var line = value?["line"]?.integerValue, var character = value?["character"]?.integerValue else {
      return nil
    }
    if clamping {
      line = min(max(0, line), largestNumber)
      character = min(max(0, character), largestNumber)
    }
    guard (0...largestNumber).contains(line), (0...largestNumber).contains(character) else { return nil }
    return (line, character)
  }

  /// The part of `line` before `utf16` code units (clamped to the line).
  static func prefix(of line: String, utf16 count: Int) -> Substring {
    let units = line.utf16
    let end = units.index(units.startIndex, offsetBy: min(count, units.count))
    return line[..<(String.Index(end, within: line) ?? line.endIndex)]
  }

  /// The lines with the text between two positions replaced (an incremental change). Positions
  /// past the end are clamped, so a client that is off by one loses nothing but its own edit.
  static func replacing(
    _ lines: [String], from start: (line: Int, character: Int), to end: (line: Int, character: Int), with text: String
  ) -> [String] {
    var lines = lines.isEmpty ? [""] : lines
    let first = min(start.line, lines.count - 1)
    let last = min(max(end.line, first), lines.count - 1)
    let before = prefix(of: lines[first], utf16: first == start.line ? start.character : lines[first].utf16.count)
    let endLine = lines[last]
    let cut = prefix(of: endLine, utf16: last == end.line ? end.character : endLine.utf16.count)
    let after = endLine[cut.endIndex...]
    let replaced = Self.lines(String(before) + text + String(after))
    lines.replaceSubrange(first...last, with: replaced)
    return lines
  }

  /// A `file://` URI's path (percent escapes decoded); anything else as it is.
  static func path(of uri: String) -> String {
    guard uri.hasPrefix("file://") else { return uri }
    var bytes: [UInt8] = []
    let raw = Array(uri.utf8.dropFirst("file://".count))
    var index = 0
    while index < raw.count {
      if raw[index] == UInt8(ascii: "%"), index + 2 < raw.count,
        let value = UInt8(String(decoding: raw[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        index += 3
      } else {
        bytes.append(raw[index])
        index += 1
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
