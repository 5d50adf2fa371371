import Testing
import WorkbenchCore
import WorkbenchLanguageServer
import WorkbenchModuleAPI
import WorkbenchSystem
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench lsp` watches the modules it loaded: a rebuilt one is started beside the running
/// one and taken in once it has introduced itself, while the editor is answered from the
/// registration before it. (The new build was started on the thread that answers the editor: one
/// that never says hello froze completion, hover and diagnostics for the 10 s handshake limit.)
struct LanguageServerWatchTests {
  /// A `workbench lsp` process, with the editor's side of its pipes.
  final class Server {
    let process: SpawnedProcess
    var transport = LanguageServerTransport()
    var received: [FrameValue] = []

    init(arguments: [String], environment: [String: String?]) throws {
      process = try SpawnedProcess(
        ChildProcess.workbenchPath, arguments: ["lsp"] + arguments,
        environment: ChildProcess.environment(ChildProcess.isolated(environment)), input: .pipe, output: .pipe,
        error: .null)
    }

    func send(_ message: FrameValue) { process.write(LanguageServerTransport.framed(message)) }

    /// The reply to request `id`, read for at most `milliseconds`; `nil` when none came by then.
    func reply(to id: Int, within milliseconds: Int) -> FrameValue? {
      let deadline = SpawnedProcess.monotonicMilliseconds() + milliseconds
      while true {
        if let found = received.first(where: { $0["id"] == .integer(id) && $0["method"] == nil }) { return found }
        let left = deadline - SpawnedProcess.monotonicMilliseconds()
        guard left > 0, let output = process.output else { return nil }
        guard case .ready = Descriptors.wait(for: output, .readable, milliseconds: left) else { continue }
        guard let bytes = process.readOutput() else { return nil }
        transport.append(bytes[...])
        while let event = transport.next() {
          if case .message(let body) = event, let message = try? FrameValue.parse(json: body) {
            received.append(message)
          }
        }
      }
    }

    func end() {
      process.closeInput()
      process.signal(SIGKILL)
      process.wait()
    }
  }

  static func completion(_ id: Int, line: Int, character: Int) -> FrameValue {
    [
      "jsonrpc": "2.0", "id": .integer(id), "method": "textDocument/completion",
      "params": [
        "textDocument": ["uri": "file:///watched.yaml"],
        "position": ["line": .integer(line), "character": .integer(character)],
      ],
    ]
  }

  static func labels(_ reply: FrameValue?) -> [String] {
    let items = reply?["result"]?["items"]?.elements ?? reply?["result"]?.elements ?? []
    return items.compactMap { $0["label"]?.stringValue }
  }

  @Test func aRebuildThatNeverSaysHelloHoldsUpNoAnswer() throws {
    let folder = makeTemporaryFolder()
    let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
    let module = folder + "/fixture-module"
    // Executables are written by `cp` (an open descriptor another test's child inherits would make
    // exec fail with ETXTBSY), then moved into place, as a build does.
    func install(_ source: String) {
      _ = ChildProcess.run("/bin/cp", [source, module + ".new"], input: [], environment: ChildProcess.environment([:]))
      rename(module + ".new", module)
    }
    install(fixture)
    writeTextFile("#!/bin/sh\nexec sleep 60\n", to: folder + "/silent")
    chmod(folder + "/silent", 0o755)
    let server = try Server(
      arguments: ["-m", module], environment: ["WORKBENCH_FIXTURE_EXTRA_FILE": folder + "/newer"])
    defer { server.end() }
    server.send(["jsonrpc": "2.0", "id": 1, "method": "initialize", "params": ["capabilities": [:]]])
    #expect(server.reply(to: 1, within: 10_000) != nil)
    server.send(["jsonrpc": "2.0", "method": "initialized", "params": [:]])
    let text = "scenario: Watched\nwindows:\n  t: tally pokes\nsteps:\n  - t: \n"
    server.send([
      "jsonrpc": "2.0", "method": "textDocument/didOpen",
      "params": [
        "textDocument": ["uri": "file:///watched.yaml", "languageId": "yaml", "version": 1, "text": .string(text)]
      ],
    ])
    var id = 10
    func complete() -> (labels: [String], milliseconds: Int) {
      id += 1
      let start = SpawnedProcess.monotonicMilliseconds()
      server.send(Self.completion(id, line: 4, character: 7))
      let reply = server.reply(to: id, within: 20_000)
      return (Self.labels(reply), SpawnedProcess.monotonicMilliseconds() - start)
    }
    #expect(complete().labels.contains("poke"))
    // A build that never introduces itself: every answer comes at once, from the registration
    // before it, through more than the watcher's two looks (the build is started at the second).
    install(folder + "/silent")
    for _ in 0..<6 {
      let (labels, milliseconds) = complete()
      #expect(milliseconds < 5000, "an answer took \(milliseconds) ms while a rebuilt module started")
      #expect(labels.contains("poke") && !labels.contains("stamp"), "\(labels)")
      usleep(200_000)
    }
    // A good build with a new command replaces it, and is taken in once it said hello.
    writeTextFile("", to: folder + "/newer")
    install(fixture)
    var taken = false
    for _ in 0..<50 where !taken {
      taken = complete().labels.contains("stamp")
      usleep(100_000)
    }
    #expect(taken, "the newer build's command was never offered")
  }
}
