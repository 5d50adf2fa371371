import BuiltInModules
import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchLanguageServer
import WorkbenchModuleAPI

/// What a language server under test sent, in order: replies, notifications, progress.
final class Sent {
  var messages: [FrameValue] = []

  /// The reply to request `id` (not a request of the server's own with that id).
  func reply(to id: Int) -> FrameValue? { messages.last { $0["id"] == .integer(id) && $0["method"] == nil } }

  /// The values of the `$/progress` notifications of `token`.
  func progress(_ token: FrameValue) -> [FrameValue] {
    messages.filter { $0["method"] == "$/progress" && $0["params"]?["token"] == token }.compactMap {
      $0["params"]?["value"]
    }
  }

  /// The diagnostics the server published last.
  var diagnostics: [FrameValue] {
    messages.last { $0["method"] == "textDocument/publishDiagnostics" }?["params"]?["diagnostics"]?.elements ?? []
  }
}

/// A language server over `modules`, in this process, initialized as an editor does and with
/// `text` open at `uri`; what it sends is kept in the `Sent` returned with it.
@MainActor
func openServer(
  _ modules: [any FeatureModule] = builtInModules, runs: LanguageServerRuns = .inProcess, uri: FrameValue,
  text: String, capabilities: FrameValue = [:]
) throws -> (LanguageServer, Sent) {
  let sent = Sent()
  let server = try LanguageServer(modules: modules, runs: runs) { sent.messages.append($0) }
  send(server, ["jsonrpc": "2.0", "id": 1, "method": "initialize", "params": ["capabilities": capabilities]])
  send(
    server,
    [
      "jsonrpc": "2.0", "method": "textDocument/didOpen",
      "params": ["textDocument": ["uri": uri, "languageId": "yaml", "version": 1, "text": .string(text)]],
    ])
  return (server, sent)
}

/// Hands the server one message, as its transport would; what it returns says whether to exit.
@MainActor @discardableResult
func send(_ server: LanguageServer, _ message: FrameValue) -> ExitCode? {
  server.receive(Array(message.jsonText.utf8))
}
