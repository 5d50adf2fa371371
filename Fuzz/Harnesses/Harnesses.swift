import BuiltInModules
import WorkbenchCore
import WorkbenchLanguageServer
import WorkbenchModuleAPI
import WorkbenchModuleKit
import WorkbenchModuleProtocol
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchSystem

/// The fuzzing harnesses: each takes arbitrary bytes to one parser or decoder of untrusted
/// input. Whatever the bytes, a harness must return (an error is a fine answer); a crash, a
/// sanitizer report, a leak or a hang is a bug. See docs/fuzzing.md.
@MainActor
enum Harness: String, CaseIterable {
  /// A scenario file through libyaml, the located tree and every check of the loader.
  case scenarioLoader = "scenario-loader"
  /// A command line through the tokenizer, the command lookup and the argument binder, run in
  /// a host with a window of every built-in screen.
  case commandLine = "command-line"
  /// Bytes from a module process as the host reads them: framing, JSON, handshake specs.
  case protocolHost = "protocol-host"
  /// A request from the host as a module's kit answers it (the first byte picks the module).
  case protocolKit = "protocol-kit"
  /// A document body as each module decodes it (the first byte picks the document kind).
  case documentDecoder = "document-decoder"
  /// Two JSON values, expected and actual, through the runner's frame matcher.
  case expectationMatcher = "expectation-matcher"
  /// Bytes from an editor to `workbench lsp`: framed messages, a message body, and the bytes as
  /// the text of an open scenario that is changed and completed at places the bytes pick.
  case languageServer = "language-server"

  static let registry = try! ModuleRegistry(modules: builtInModules)
  static let loader = try! ScenarioLoader(modules: builtInModules)
  static let runner = ScenarioRunner(registry: registry)
  static let kinds = Host(registry: registry, clock: .virtual).documentKindNames
  static let server = try! LanguageServer(modules: builtInModules) { _ in }

  func run(_ bytes: [UInt8]) {
    switch self {
    case .scenarioLoader:
      // What loads is run too (a few steps of it), so values the loader lets through (an id or
      // revision at the ends of Int, a recorded counter) meet the code that computes with them.
      guard let file = try? Self.loader.load(bytes: bytes, path: "/nonexistent/fuzz/input.yaml") else { return }
      for scenario in file.scenarios.prefix(2) where scenario.steps.count <= 64 { _ = Self.runner.run(scenario) }
    case .commandLine:
      let host = Host(registry: Self.registry, clock: .virtual)
      _ = try? host.run(
        line: "open catalog library c; open goal reading g; open editor notes e; open lights home l; "
          + "open room home r; open feed account f")
      // The line as typed: a line that is not UTF-8 is refused before it gets here.
      guard let line = String(validating: bytes, as: UTF8.self) else { return }
      for part in line.split(separator: "\n", omittingEmptySubsequences: true).prefix(8) {
        _ = try? host.run(line: String(part))
      }
    case .languageServer:
      // The bytes as a stream (headers, lengths, garbage between) in two reads split where the
      // second byte says, then as one message's body.
      var transport = LanguageServerTransport()
      let split = min(bytes.count, Int(bytes.dropFirst().first ?? 0) * 4)
      for part in [bytes[..<split], bytes[split...]] {
        transport.append(part)
        while let event = transport.next() {
          if case .message(let body) = event { _ = Self.server.receive(body) }
        }
      }
      _ = Self.server.receive(bytes)
      guard let text = String(validating: bytes, as: UTF8.self) else { return }
      let uri: FrameValue = "file:///nonexistent/fuzz/input.yaml"
      // Small lines mostly; now and then one at the ends of what LSP and Int allow.
      let lines = [0, 1, 2, 3, 4, 5, Int(Int32.max), Int.max, Int.min, -1, Int(Int32.max) + 1]
      let line = FrameValue.integer(lines[Int(bytes.first ?? 0) % lines.count])
      let character = FrameValue.integer((bytes.last ?? 0) == 255 ? Int.max : Int(bytes.last ?? 0) % 40)
      let messages: [FrameValue] = [
        [
          "jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": ["textDocument": ["uri": uri, "languageId": "yaml", "version": 1, "text": .string(text)]],
        ],
        [
          "jsonrpc": "2.0", "id": 1, "method": "textDocument/completion",
          "params": ["textDocument": ["uri": uri], "position": ["line": line, "character": character]],
        ],
        [
          "jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
          "params": ["textDocument": ["uri": uri], "position": ["line": line, "character": character]],
        ],
        [
          "jsonrpc": "2.0", "id": 3, "method": "textDocument/definition",
          "params": ["textDocument": ["uri": uri], "position": ["line": line, "character": character]],
        ],
        [
          "jsonrpc": "2.0", "id": 4, "method": "textDocument/references",
          "params": ["textDocument": ["uri": uri], "position": ["line": line, "character": character]],
        ],
        [
          "jsonrpc": "2.0", "id": 5, "method": "textDocument/codeAction",
          "params": [
            "textDocument": ["uri": uri],
            "range": ["start": ["line": line, "character": 0], "end": ["line": line, "character": 0]],
          ],
        ],
        [
          "jsonrpc": "2.0", "id": 6, "method": "workspace/executeCommand",
          "params": ["command": "workbench.runTo", "arguments": [uri, line]],
        ],
        [
          "jsonrpc": "2.0", "id": 7, "method": "workspace/executeCommand",
          "params": ["command": "workbench.run", "arguments": [uri, line]],
        ],
        [
          "jsonrpc": "2.0", "method": "textDocument/didChange",
          "params": [
            "textDocument": ["uri": uri, "version": 2],
            "contentChanges": [
              [
                "range": [
                  "start": ["line": line, "character": character], "end": ["line": 2, "character": character],
                ],
                "text": .string(String(text.prefix(16))),
              ]
            ],
          ],
        ],
      ]
      for message in messages { _ = Self.server.receive(Array(message.jsonText.utf8)) }
    case .protocolHost:
      var buffer = InputBuffer(bytes)
      while let frame = try? buffer.nextFrame(maximum: ModuleProtocol.maximumMessage) {
        // Read straight from its text, a reply is the one the long way reads, or nothing.
        let text = Array(frame)
        let parsed = try? FrameValue.parse(json: text)
        if let straight = ModuleMessage(json: text), straight != parsed.flatMap({ try? ModuleMessage(wire: $0) }) {
          fatalError("read straight, a reply differs from the long way's")
        }
        guard let message = parsed else { continue }
        // A handshake as the host reads it, and each command in it alone (one bad command must
        // not hide what the others would do).
        _ = try? WireHello(wire: message)
        for element in message["commands"]?.elements ?? [] {
          guard let command = try? WireCommandSpec(wire: element) else { continue }
          _ = SpecCoding.arguments(command)
          _ = SpecCoding.windowEffect(command)
          for subcommand in command.subcommands ?? [] { _ = SpecCoding.arguments(subcommand) }
        }
        _ = ReplyRules.changeProblems(message)
        // Every kind of reply the host checks, protocol 2's included (timers, updates, changes).
        for request in [
          "open", "command", "refresh", "restore", "timer", "close", "capture", ReplyRules.commandInNoWindow,
        ] {
          _ = ReplyRules.problems(with: message, toRequest: request)
        }
      }
    case .protocolKit:
      // The first byte picks the module and, with its high bit, protocol 2 (sessions, timers,
      // the end of a session).
      let text = Array(bytes.dropFirst())
      let parsed = try? FrameValue.parse(json: text)
      if let straight = HostMessage(json: text), straight != parsed.flatMap({ try? HostMessage(wire: $0) }) {
        fatalError("read straight, a request differs from the long way's")
      }
      guard let first = bytes.first, let request = parsed else { return }
      let module = builtInModules[Int(first & 0x7f) % builtInModules.count]
      guard let session = try? ModuleSession(module: module, version: first & 0x80 != 0 ? 2 : 1) else { return }
      _ = session.hello()
      _ = session.handle(request)
      // What the request set up is then used: a timer due, the session ended.
      // (at the request's time, which may be at the ends of a 64-bit number)
      _ = session.handle([
        "type": "timer", "timer": "t1", "session": request["session"] ?? 1, "now": request["now"] ?? 0,
      ])
      _ = session.handle(["type": "end", "session": request["session"] ?? 1])
    case .documentDecoder:
      guard let first = bytes.first else { return }
      let kind = Self.kinds[Int(first) % Self.kinds.count]
      let host = Host(registry: Self.registry, clock: .virtual)
      // A body that decodes is then edited in a window, so ids and values at the ends of Int
      // meet the arithmetic of adding, renaming and removing.
      guard (try? host.importDocument(named: "fuzzed", kind: kind, json: Array(bytes.dropFirst()))) != nil,
        let screen = host.screens.first(where: { $0.documentKind == kind })?.name
      else { return }
      _ = try? host.run(line: "open \(screen) fuzzed w")
      for line in ["add Fuzzed", "rename 1 Fuzzed", "remove 1", "undo", "send 1 bob r1", "complete"] {
        _ = try? host.run(line: line)
      }
    case .expectationMatcher:
      let parts = bytes.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2, let expected = try? FrameValue.parse(json: Array(parts[0])),
        let actual = try? FrameValue.parse(json: Array(parts[1]))
      else { return }
      _ = FrameMatcher.differences(expected: expected, actual: actual)
    }
  }
}
