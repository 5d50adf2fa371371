import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchLanguageServer
import WorkbenchModuleAPI
import WorkbenchScenarios
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// What the editor's requests get when they carry numbers out of range, come after `shutdown`,
/// name a command the server does not have, or start a run that takes long: the server answers
/// every one, and goes on.
@MainActor
struct LanguageServerRunTests {
  static let uri: FrameValue = "file:///slow.yaml"

  private func server(
    runs: LanguageServerRuns = .inProcess, text: String, capabilities: FrameValue = [:]
  ) throws -> (LanguageServer, Sent) {
    try openServer(runs: runs, uri: Self.uri, text: text, capabilities: capabilities)
  }

  private func hover(_ server: LanguageServer, id: Int, line: Int = 0, character: Int = 0) {
    send(
      server,
      [
        "jsonrpc": "2.0", "id": .integer(id), "method": "textDocument/hover",
        "params": [
          "textDocument": ["uri": Self.uri], "position": ["line": .integer(line), "character": .integer(character)],
        ],
      ])
  }

  private func execute(_ server: LanguageServer, id: Int, _ command: String, line: Int, token: FrameValue? = nil) {
    var params: FrameValue = ["command": .string(command), "arguments": [Self.uri, .integer(line)]]
    if let token, case .object(var object) = params {
      object["workDoneToken"] = token
      params = .object(object)
    }
    send(server, ["jsonrpc": "2.0", "id": .integer(id), "method": "workspace/executeCommand", "params": params])
  }

  static let catalogScenario = "scenario: Short\nwindows:\n  left: catalog library\nsteps:\n  - left: select 2\n"

  /// A line or character of Int.max (or below 0) in any request is refused with InvalidParams,
  /// and the server keeps serving: it trapped on `line + 1`.
  @Test func numbersOutOfRangeAreRefusedAndTheServerGoesOn() throws {
    let (server, sent) = try server(text: Self.catalogScenario)
    let huge = FrameValue.integer(Int.max)
    let requests: [FrameValue] = [
      [
        "jsonrpc": "2.0", "id": 10, "method": "textDocument/codeAction",
        "params": [
          "textDocument": ["uri": Self.uri],
          "range": ["start": ["line": huge, "character": 0], "end": ["line": huge, "character": 0]],
          "context": [:],
        ],
      ],
      [
        "jsonrpc": "2.0", "id": 11, "method": "workspace/executeCommand",
        "params": ["command": "workbench.run", "arguments": [Self.uri, huge]],
      ],
      [
        "jsonrpc": "2.0", "id": 12, "method": "workspace/executeCommand",
        "params": ["command": "workbench.runTo", "arguments": [Self.uri, huge]],
      ],
      [
        "jsonrpc": "2.0", "id": 13, "method": "textDocument/completion",
        "params": ["textDocument": ["uri": Self.uri], "position": ["line": 4, "character": huge]],
      ],
      [
        "jsonrpc": "2.0", "id": 14, "method": "textDocument/hover",
        "params": ["textDocument": ["uri": Self.uri], "position": ["line": -1, "character": 0]],
      ],
      [
        "jsonrpc": "2.0", "id": 15, "method": "workspace/executeCommand",
        "params": ["command": "workbench.runTo", "arguments": [Self.uri, .integer(Int(Int32.max) + 1)]],
      ],
    ]
    for request in requests {
      send(server, request)
      let id = request["id"]?.integerValue ?? 0
      let reply = try #require(sent.reply(to: id), "request \(id) was not answered")
      #expect(reply["error"]?["code"] == .integer(-32602), "request \(id): \(reply)")
    }
    // The largest line LSP has is taken, and means "past the end".
    execute(server, id: 16, "workbench.runTo", line: Int(Int32.max))
    #expect(sent.reply(to: 16)?["result"]?.stringValue == "✔ Short: ran 1 of 1 steps", "\(sent.messages.last!)")
    hover(server, id: 17, line: 4, character: 11)
    #expect(sent.reply(to: 17)?["result"]?["contents"] != nil)
  }

  /// After `shutdown`, requests are refused with InvalidRequest (they were answered), and `exit`
  /// ends with 0.
  @Test func requestsAfterShutdownAreRefused() throws {
    let (server, sent) = try server(text: Self.catalogScenario)
    send(server, ["jsonrpc": "2.0", "id": 2, "method": "shutdown"])
    #expect(sent.reply(to: 2)?["result"] == .null)
    hover(server, id: 3, line: 4, character: 11)
    #expect(sent.reply(to: 3)?["error"]?["code"] == .integer(-32600), "\(sent.messages.last!)")
    execute(server, id: 4, "workbench.run", line: 0)
    #expect(sent.reply(to: 4)?["error"]?["code"] == .integer(-32600))
    #expect(send(server, ["jsonrpc": "2.0", "method": "exit"]) == .success)
  }

  /// A command the server does not have is named, with the ones it has (it got the run
  /// command's usage text).
  @Test func anUnknownCommandIsNamedWithTheOnesThereAre() throws {
    let (server, sent) = try server(text: Self.catalogScenario)
    execute(server, id: 5, "workbench.rm", line: 0)
    let message = sent.reply(to: 5)?["error"]?["message"]?.stringValue ?? ""
    #expect(message.hasPrefix("no command 'workbench.rm'"), "\(message)")
    #expect(message.hasSuffix("workbench lsp has workbench.run, workbench.runTo and workbench.explore"), "\(message)")
    execute(server, id: 6, "workbench.rnu", line: 0)
    #expect(sent.reply(to: 6)?["error"]?["message"]?.stringValue?.contains("Did you mean 'workbench.run'?") == true)
  }

  // MARK: Runs in workers

  static var fixtureModule: String {
    String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
  }

  /// The worker command `workbench lsp` would make, with the fixture module slow by `milliseconds`
  /// a poke, in a home of its own.
  static func slowWorkers(milliseconds: Int) -> LanguageServerRuns {
    let home = makeTemporaryFolder()
    return .workers([
      "/usr/bin/env", "XDG_DATA_HOME=\(home)/data", "XDG_STATE_HOME=\(home)/state", "WORKBENCH_FIXTURE=slow",
      "WORKBENCH_FIXTURE_SLOW_MS=\(milliseconds)", ChildProcess.workbenchPath, "lsp", "--run-worker", "-m",
      fixtureModule,
    ])
  }

  static func pokes(_ count: Int) -> String {
    "scenario: Slow pokes\nwindows:\n  t: tally pokes\nsteps:\n" + String(repeating: "  - t: poke\n", count: count)
  }

  /// A run that takes long goes on in a worker: the editor's other requests are answered
  /// meanwhile, its progress comes as `$/progress`, and `$/cancelRequest` ends the worker and
  /// answers the run as cancelled. (It ran on the server's only thread: nothing was answered
  /// until it was done, and cancelling did nothing.)
  @Test func aLongRunLeavesTheServerAnsweringAndIsCancelled() throws {
    let (server, sent) = try server(runs: Self.slowWorkers(milliseconds: 200), text: Self.pokes(40))
    execute(server, id: 10, "workbench.run", line: 0, token: "the-run")
    #expect(sent.reply(to: 10) == nil, "the run was answered at once: \(sent.messages.last!)")
    let workers = server.runWorkerIDs
    #expect(workers.count == 1)
    hover(server, id: 11, line: 2, character: 5)
    #expect(sent.reply(to: 11) != nil, "a hover during the run was not answered")
    // Some steps run, and are reported.
    #expect(!server.waitForRuns(timeout: 2500), "the run ended early: \(sent.reply(to: 10) ?? .null)")
    let progress = sent.progress("the-run")
    #expect(progress.first?["kind"] == "begin", "\(progress)")
    #expect(progress.first?["cancellable"] == .bool(true))
    let reports = progress.filter { $0["kind"] == "report" }
    #expect(reports.contains { $0["message"]?.stringValue?.hasPrefix("step ") == true }, "\(progress)")
    #expect(reports.last?["message"]?.stringValue?.contains(" of 40: t: poke") == true, "\(progress)")
    send(server, ["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": 10]])
    let cancelled = try #require(sent.reply(to: 10))
    #expect(cancelled["error"]?["code"] == .integer(-32800), "\(cancelled)")
    #expect(server.runWorkerIDs.isEmpty)
    #expect(sent.progress("the-run").last?["kind"] == "end")
    for pid in workers { #expect(kill(pid, 0) != 0, "the worker \(pid) still runs") }
  }

  /// A run that finishes in a worker answers with its outcome and leaves its failure on the step,
  /// as a run in process does; progress the server asked the client to create starts only once
  /// the client has created it.
  @Test func aRunInAWorkerAnswersWithItsOutcome() throws {
    let text = Self.pokes(2) + "  - expect:\n      t: {pokes: 5}\n"
    let (server, sent) = try server(
      runs: Self.slowWorkers(milliseconds: 10), text: text, capabilities: ["window": ["workDoneProgress": true]])
    execute(server, id: 20, "workbench.run", line: 0)
    let create = try #require(sent.messages.last { $0["method"] == "window/workDoneProgress/create" })
    let token = try #require(create["params"]?["token"])
    #expect(sent.progress(token).isEmpty, "progress before the client created the token")
    send(server, ["jsonrpc": "2.0", "id": create["id"]!, "result": .null])
    #expect(server.waitForRuns(timeout: 20_000))
    let reply = try #require(sent.reply(to: 20))
    #expect(reply["result"]?.stringValue == "✘ Slow pokes: the frames do not match the expectation", "\(reply)")
    let diagnostics =
      sent.messages.last { $0["method"] == "textDocument/publishDiagnostics" }?["params"]?["diagnostics"]?.elements
      ?? []
    let failure = diagnostics.first { $0["source"] == "workbench run" }
    #expect(failure?["range"]?["start"]?["line"] == .integer(6), "\(diagnostics)")
    #expect(failure?["message"]?.stringValue?.contains("t.pokes") == true, "\(diagnostics)")
    let progress = sent.progress(token)
    #expect(progress.first?["kind"] == "begin" && progress.last?["kind"] == "end", "\(progress)")
  }

  /// A newer run of the same file replaces the one going on, which is answered as cancelled.
  @Test func aNewerRunOfTheFileReplacesTheOldOne() throws {
    let (server, sent) = try server(runs: Self.slowWorkers(milliseconds: 200), text: Self.pokes(40))
    execute(server, id: 30, "workbench.run", line: 0)
    let first = server.runWorkerIDs
    execute(server, id: 31, "workbench.runTo", line: 5)
    #expect(sent.reply(to: 30)?["error"]?["code"] == .integer(-32800))
    #expect(server.runWorkerIDs.count == 1 && server.runWorkerIDs != first)
    #expect(server.waitForRuns(timeout: 20_000))
    #expect(sent.reply(to: 31)?["result"]?.stringValue == "✔ Slow pokes: ran 2 of 40 steps", "\(sent.messages)")
  }
}
