import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchScenarios

/// `workbench lsp` in process, message by message: what an editor's requests get back.
@MainActor
struct LanguageServerProtocolTests {
  final class Sent {
    var messages: [FrameValue] = []
  }

  /// A server with `text` open as a scenario file, and what it has sent.
  private func server(opening text: String) throws -> (LanguageServer, Sent) {
    let sent = Sent()
    let server = try LanguageServer(modules: builtInModules) { sent.messages.append($0) }
    send(server, ["jsonrpc": "2.0", "id": 1, "method": "initialize", "params": ["capabilities": [:]]])
    send(
      server,
      [
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": [
          "textDocument": ["uri": "file:///shelf.yaml", "languageId": "yaml", "version": 1, "text": .string(text)]
        ],
      ])
    return (server, sent)
  }

  @discardableResult
  private func send(_ server: LanguageServer, _ message: FrameValue) -> Int32? {
    server.receive(Array(message.jsonText.utf8))
  }

  private func complete(_ server: LanguageServer, _ sent: Sent, line: Int, character: Int) -> [String] {
    send(
      server,
      [
        "jsonrpc": "2.0", "id": 7, "method": "textDocument/completion",
        "params": [
          "textDocument": ["uri": "file:///shelf.yaml"],
          "position": ["line": .integer(line), "character": .integer(character)],
        ],
      ])
    return sent.messages.last?["result"]?["items"]?.elements?.compactMap { $0["label"]?.stringValue } ?? []
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
    #expect(complete(server, sent, line: 8, character: 15) == ["left"])
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
    #expect(send(server, ["jsonrpc": "2.0", "method": "exit"]) == 0)
  }
}
