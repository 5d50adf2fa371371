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
