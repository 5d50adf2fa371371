import BuiltInModules
import WorkbenchCore
import WorkbenchModuleKit
import WorkbenchModuleProtocol
import WorkbenchScenarios

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

  static let registry = try! ModuleRegistry(modules: builtInModules)
  static let loader = try! ScenarioLoader(modules: builtInModules)
  static let kinds = Host(registry: registry, clock: .virtual).documentKindNames

  func run(_ bytes: [UInt8]) {
    switch self {
    case .scenarioLoader:
      _ = try? Self.loader.load(bytes: bytes, path: "/nonexistent/fuzz/input.yaml")
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
    case .protocolHost:
      var buffer = bytes
      while let message = try? MessageChannel.nextMessage(in: &buffer) {
        for command in message["commands"]?.elements ?? [] { _ = SpecCoding.arguments(command) }
      }
    case .protocolKit:
      guard let first = bytes.first, let request = try? FrameValue.parse(json: Array(bytes.dropFirst())) else { return }
      let module = builtInModules[Int(first) % builtInModules.count]
      guard let session = try? ModuleSession(module: module) else { return }
      _ = session.hello()
      _ = session.handle(request)
    case .documentDecoder:
      guard let first = bytes.first else { return }
      let kind = Self.kinds[Int(first) % Self.kinds.count]
      let host = Host(registry: Self.registry, clock: .virtual)
      _ = try? host.decodeDocument(kind: kind, json: Array(bytes.dropFirst()))
    case .expectationMatcher:
      let parts = bytes.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2, let expected = try? FrameValue.parse(json: Array(parts[0])),
        let actual = try? FrameValue.parse(json: Array(parts[1]))
      else { return }
      _ = FrameMatcher.differences(expected: expected, actual: actual)
    }
  }
}
