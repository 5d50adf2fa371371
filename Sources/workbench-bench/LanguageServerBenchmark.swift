import BuiltInModules
import WorkbenchCore
import WorkbenchScenarios

/// `workbench lsp` as an editor meets it, in process: a scenario of `steps` steps checked again
/// after each one-character edit, completion in it, and the memory of many open files.
@MainActor
enum LanguageServerBenchmark {
  static func run(steps: Int, edits: Int, files: Int) -> [String] {
    guard let server = try? LanguageServer(modules: builtInModules, send: { _ in }) else {
      return ["lsp: the modules failed to register"]
    }
    var text = "scenario: A long one\nwindows:\n  left: catalog library\nsteps:\n"
    for index in 0..<steps { text += "  - left: select \(index % 30 + 1)\n" }
    let uri: FrameValue = "file:///bench/long.yaml"
    func send(_ message: FrameValue) { _ = server.receive(Array(message.jsonText.utf8)) }
    send([
      "jsonrpc": "2.0", "method": "textDocument/didOpen",
      "params": ["textDocument": ["uri": uri, "languageId": "yaml", "version": 1, "text": .string(text)]],
    ])
    // A digit typed and taken back on a step in the middle, as typing does.
    var editTimes: [Double] = []
    let line = FrameValue.integer(4 + steps / 2)
    for index in 0..<edits {
      let typed = index % 2 == 0
      let change: FrameValue = [
        "range": [
          "start": ["line": line, "character": 17], "end": ["line": line, "character": typed ? 17 : 18],
        ],
        "text": typed ? "7" : "",
      ]
      editTimes.append(
        measure {
          send([
            "jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": ["textDocument": ["uri": uri, "version": .integer(index + 2)], "contentChanges": [change]],
          ])
        })
    }
    var completionTimes: [Double] = []
    for index in 0..<edits {
      completionTimes.append(
        measure {
          send([
            "jsonrpc": "2.0", "id": .integer(index), "method": "textDocument/completion",
            "params": ["textDocument": ["uri": uri], "position": ["line": line, "character": 12]],
          ])
        })
    }
    // Many open files of a hundred steps each: the server's whole memory, as the OS reports it.
    var small = "scenario: One of many\nwindows:\n  left: catalog library\nsteps:\n"
    for index in 0..<100 { small += "  - left: select \(index % 30 + 1)\n" }
    for index in 0..<files {
      send([
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": [
          "textDocument": [
            "uri": .string("file:///bench/many-\(index).yaml"), "languageId": "yaml", "version": 1,
            "text": .string(small),
          ]
        ],
      ])
    }
    return [
      "lsp (a \(steps)-step scenario, \(edits) one-character edits, then \(files) open files of 100 steps):",
      "  diagnostics after an edit   p50 \(format(percentile(editTimes, 50) * 1000)) ms  "
        + "p99 \(format(percentile(editTimes, 99) * 1000)) ms  (target: p99 at most 10 ms)",
      "  completion                  p50 \(format(percentile(completionTimes, 50) * 1000)) ms  "
        + "p99 \(format(percentile(completionTimes, 99) * 1000)) ms  (target: p99 at most 5 ms)",
      "  peak memory of the process  \(format(peakMemoryMB(), 1)) MB  (target: at most 100 MB with 200 files)",
    ]
  }
}
