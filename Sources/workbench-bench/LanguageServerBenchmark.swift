import BuiltInModules
import WorkbenchCore
import WorkbenchLanguageServer
import WorkbenchModuleAPI
import WorkbenchScenarios

/// `workbench lsp` as an editor meets it, in process: a scenario of `steps` steps checked again
/// after each one-character edit, completion in it, and the memory of many open files.
@MainActor
enum LanguageServerBenchmark {
  static func run(steps: Int, edits: Int, files: Int) -> [String] {
    // The process's peak so far: a section before this one (a million books) may have set it,
    // and then the server's own peak cannot be read from it.
    let peakBefore = peakMemoryMB()
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
    let line = FrameValue.integer(4 + steps / 2)
    var version = 1
    /// Types `character` at `column` of the line (an even round) or takes it back (an odd one).
    func edit(round: Int, column: Int, character: String) {
      let typed = round % 2 == 0
      version += 1
      send([
        "jsonrpc": "2.0", "method": "textDocument/didChange",
        "params": [
          "textDocument": ["uri": uri, "version": .integer(version)],
          "contentChanges": [
            [
              "range": [
                "start": ["line": line, "character": .integer(column)],
                "end": ["line": line, "character": .integer(typed ? column : column + 1)],
              ],
              "text": .string(typed ? character : ""),
            ]
          ],
        ],
      ])
    }
    var editTimes: [Double] = []
    for index in 0..<edits {
      editTimes.append(measure { edit(round: index, column: 17, character: "7") })
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
    // A character typed, then completion where it was typed: what an editor asks at each
    // keystroke (the file read again, and what completion needs of it made again).
    var typedTimes: [Double] = []
    for index in 0..<edits {
      let typed = index % 2 == 0
      edit(round: index, column: 12, character: "l")
      typedTimes.append(
        measure {
          send([
            "jsonrpc": "2.0", "id": .integer(edits + index), "method": "textDocument/completion",
            "params": ["textDocument": ["uri": uri], "position": ["line": line, "character": typed ? 13 : 12]],
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
      "  completion after typing     p50 \(format(percentile(typedTimes, 50) * 1000)) ms  "
        + "p99 \(format(percentile(typedTimes, 99) * 1000)) ms",
      peakMemoryMB() > peakBefore
        ? "  peak memory of the process  \(format(peakMemoryMB(), 1)) MB  (target: at most 100 MB with 200 files)"
        : "  peak memory: not measured (an earlier section peaked at \(format(peakBefore, 1)) MB; run "
          + "`workbench-bench lsp` alone)",
    ] + transport(megabytes: 40)
  }

  /// The framing under garbage: a header `megabytes` long that never ends, read in 64 KB
  /// chunks, then a request (it was kept whole and scanned from the start after every read: 18 s
  /// and 93 MB for 40 MB); and 10,000 requests with a bad header before every tenth.
  static func transport(megabytes: Int) -> [String] {
    let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 65536)
    let request = LanguageServerTransport.framed([
      "jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
      "params": ["textDocument": ["uri": "file:///x.yaml"], "position": ["line": 0, "character": 0]],
    ])
    var transport = LanguageServerTransport()
    var held = 0
    var read = 0
    let garbage = measure {
      for _ in 0..<(megabytes * 16) {
        transport.append(chunk)
        while transport.next() != nil {}
        held = max(held, transport.retainedBytes)
      }
      transport.append(request)
      while let event = transport.next() { if case .message = event { read += 1 } }
    }
    var stream: [UInt8] = []
    for index in 0..<10_000 {
      if index % 10 == 0 { stream += Array("Content-Length: -1\r\n\r\n{}".utf8) }
      stream += request
    }
    var messages = 0
    let mixed = measure {
      var transport = LanguageServerTransport()
      var offset = 0
      while offset < stream.count {
        transport.append(stream[offset..<min(stream.count, offset + 65536)])
        offset += 65536
        while let event = transport.next() { if case .message = event { messages += 1 } }
      }
    }
    return [
      "  a \(megabytes) MB header that never ends, then a request: \(format(garbage * 1000)) ms, "
        + "at most \(held / 1024) KB held, \(read) request read (it took 18 s and 93 MB)",
      "  10,000 requests, a bad header before every tenth: \(format(mixed * 1000)) ms, \(messages) read",
    ]
  }
}
