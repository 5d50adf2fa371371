import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
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
  private(set) var registry: ModuleRegistry
  private(set) var loader: ScenarioLoader
  /// Asked before each message: a registry made again when a module was rebuilt with other
  /// commands, screens or document kinds (`nil`: none), which the server then answers from.
  public var reregistration: (@MainActor () -> ModuleRegistry?)?
  /// The open documents' text, by URI, as lines.
  var documents: [String: [String]] = [:]
  /// How many times each open document changed (a run's diagnostics are shown only on the text
  /// it ran).
  var versions: [String: Int] = [:]
  /// The last run's failures, by URI, shown with the file's problems until it changes.
  var runFailures: [String: [FrameValue]] = [:]
  /// The session the last id completion set up: the steps before a line, run (kept while the
  /// lines before it stay the same, as they do while an id is typed).
  var completionSession: (key: CompletionSessionKey, session: WorkbenchSession)?
  /// The last text loaded, and what the loader made of it (see `loaded(_:uri:)`).
  var loadedText: LoadedText?
  /// The last file a text loaded to, and its URI, for when the text is mid-edit and not YAML
  /// (the file being edited; one, so that many open files do not each keep theirs).
  var lastFile: (uri: String, shape: ShapedFile)?
  /// Whether `shutdown` came (then `exit` ends with status 0, and other requests are refused).
  var shutDown = false
  /// Where runs are carried out, and the runs going on in workers.
  let runs: LanguageServerRuns
  var active: [ActiveRun] = []
  /// Runs asked for while `maximumRunWorkers` were going on, started in order as others end.
  var queuedRuns: [QueuedRun] = []
  var runsStarted = 0
  /// Whether the client said it creates progress tokens when asked (`window.workDoneProgress`).
  var clientCreatesProgress = false
  /// Writes a message to the client.
  let send: (FrameValue) -> Void

  /// The largest line or character number LSP has (a `uinteger`); a request with more is refused.
  nonisolated static let largestNumber = Int(Int32.max)

  /// A server over `modules`, writing its messages with `send`, carrying out runs as `runs` says.
  package init(
    modules: [any FeatureModule], runs: LanguageServerRuns = .inProcess, send: @escaping (FrameValue) -> Void
  ) throws(RegistrationError) {
    registry = try ModuleRegistry(modules: modules)
    loader = ScenarioLoader(registry: registry)
    self.runs = runs
    self.send = send
  }

  /// Serves standard input until `exit` or the end of input; returns the exit status. Runs go on
  /// in workers meanwhile (`runs`), and the editor's other requests are answered while they do.
  ///
  /// - Parameters:
  ///   - reregistration: asked before each message, and whenever `awaiting` descriptors are
  ///     readable or a second passes while there are any: a registry made again (see the property).
  ///   - awaiting: descriptors a new registration may come on (a rebuilt module's handshake), to
  ///     wait on beside the editor's input, so it is taken in as it comes without a message.
  public static func run(
    modules: [any FeatureModule], runs: LanguageServerRuns,
    reregistration: (@MainActor () -> ModuleRegistry?)? = nil, awaiting: (@MainActor () -> [Int32])? = nil
  ) -> ExitCode {
    let server: LanguageServer
    do throws(RegistrationError) {
      server = try LanguageServer(modules: modules, runs: runs) { message in
        _ = FileSystem.writeAll(LanguageServerTransport.framed(message), to: STDOUT_FILENO)
      }
    } catch {
      StandardStreams.error("workbench lsp: the modules failed to register: \(error.message)\n")
      return .failure
    }
    server.reregistration = reregistration
    defer { server.cancelAllRuns() }
    var transport = LanguageServerTransport()
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let outputs = server.runOutputs
      let awaited = awaiting?() ?? []
      let wanted = ([STDIN_FILENO] + outputs + awaited).map { (descriptor: $0, wanted: Readiness.readable) }
      let happened: [Readiness]
      switch Descriptors.wait(forAny: wanted, milliseconds: awaited.isEmpty ? -1 : 1000) {
      case .ready(let what): happened = what
      case .timedOut:
        server.takeNewRegistration()
        continue
      case .interrupted: continue
      case .failed: return server.shutDown ? .success : .failure
      }
      for (output, what) in zip(outputs, happened.dropFirst()) where what.happened {
        server.serviceRun(readable: output)
      }
      // A rebuilt module said hello (or gave up): taken in now, whether or not a message came.
      if happened.dropFirst(1 + outputs.count).contains(where: \.happened) { server.takeNewRegistration() }
      guard happened[0].happened else { continue }
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

  /// A module rebuilt with other commands, screens or kinds: completion, hover and diagnostics
  /// answer from its new registration from now on, and the open files are checked again.
  func takeNewRegistration() {
    guard let registry = reregistration?() else { return }
    self.registry = registry
    loader = ScenarioLoader(registry: registry)
    loadedText = nil
    lastFile = nil
    completionSession = nil
    for uri in documents.keys.sorted() { publishDiagnostics(uri) }
  }

  /// Handles one message's body; returns an exit status when the client said `exit`.
  public func receive(_ body: [UInt8]) -> ExitCode? {
    takeNewRegistration()
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
      if lastFile?.uri == uri { lastFile = nil }
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
        let at = Self.position(params["position"]), let text = hover(in: lines, at: at, uri: uri)
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
      respond(id, .list(lenses(in: lines, uri: uri)))
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
      respond(id, .list(symbols(lines, uri: uri)))
    default:
      // A request this server does not answer gets an error; a notification, nothing.
      if let id { send(Self.errorResponse(id: id, code: -32601, message: "workbench lsp does not do \(method)")) }
    }
    return nil
  }

  /// `workspace/executeCommand`: a run of the scenario at a line (`workbench.run`), or up to the
  /// step there (`workbench.runTo`), or an exploration of the file's screens
  /// (`workbench.explore`), each taking the file's URI and a 0-based line.
  private func executeCommand(id: FrameValue?, params: FrameValue) {
    let name = params["command"]?.stringValue
    guard let name, let kind = ScenarioRunRequest.Kind(rawValue: name) else {
      let known = ScenarioRunRequest.Kind.allCases.map(\.rawValue)
      let named =
        name.map { "no command '\($0)'\(Suggestions.didYouMean($0, in: known))" } ?? "a command's name is missing"
      if let id {
        send(
          Self.errorResponse(
            id: id, code: -32602,
            message: "\(named): workbench lsp has \(known.dropLast().joined(separator: ", ")) and \(known.last ?? "")"))
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
    if let problem = Self.pathProblem(of: uri) {
      if let id { send(Self.errorResponse(id: id, code: -32602, message: problem)) }
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
}
