import FoundationEssentials
import Synchronization
import WorkbenchCore
import WorkbenchModuleProtocol

/// A document of a kind an external module owns: kept as JSON by the host (stored, versioned,
/// compare-and-swap saved like any other), understood by the module.
public struct ExternalDocument: DocumentBody {
  public var value: FrameValue
  public init(value: FrameValue) { self.value = value }
  public init(from decoder: any Decoder) throws { value = try FrameValue(from: decoder) }
  public func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

/// A window's view state on an external screen: the module's view state, kept as its JSON and
/// stored as that same JSON (so `state` and the workspace show the module's own fields).
public struct ExternalViewState: ViewStateValue {
  public var json: String?
  public init() {}
  init(json: String?) { self.json = json }

  public init(from decoder: any Decoder) throws {
    let value = try FrameValue(from: decoder)
    json = value == .null ? nil : value.jsonText
  }

  public func encode(to encoder: any Encoder) throws {
    let value = json.flatMap { try? FrameValue.parse(json: Array($0.utf8)) } ?? .null
    try value.encode(to: encoder)
  }
}

/// The terminal text a module rendered for each frame it sent (render functions get only the
/// frame, and the module rendered it). One per module process.
final class RenderedTexts: Sendable {
  private let texts = Mutex<[String: String]>([:])

  /// The text the module rendered for `frame`, or `nil`.
  func text(for frame: FrameValue) -> String? { texts.withLock { $0[frame.jsonText] } }

  /// Remembers the module's text for a frame (the cache is emptied past 10,000 frames).
  func remember(_ text: String, for frame: FrameValue) {
    let key = frame.jsonText
    texts.withLock { cache in
      if cache.count > 10_000 { cache.removeAll() }
      cache[key] = text
    }
  }
}

/// The host's stand-in for a module running in another process: it registers the module's
/// document kinds, screens and commands from its handshake, and forwards to the process.
public struct ExternalModule: FeatureModule {
  let process: ModuleProcess
  let rendered = RenderedTexts()

  /// Starts the module at `path` and reads its handshake.
  @MainActor public init(path: String) throws(CommandError) {
    process = try ModuleProcess(path: path)
  }

  /// Ends the module's process group, as the host does before it exits.
  @MainActor public func shutdown() { process.shutdown() }

  /// The executable.
  public var path: String { process.path }

  /// The module as a workspace remembers it: its name, executable, document kinds and screens.
  @MainActor public var known: KnownModule {
    let hello = process.hello
    return KnownModule(
      name: hello["manifest"]?["name"]?.stringValue ?? "external", path: process.path,
      documentKinds: hello["documentKinds"]?.elements?.compactMap(\.stringValue) ?? [],
      screens: hello["screens"]?.elements?.compactMap { $0["name"]?.stringValue } ?? [])
  }

  /// Starts a new build of the module in place of the running one and opens its windows again
  /// (see `ModuleProcess.reload`); returns how many, and what of the new build's registration
  /// (commands, screens, document kinds) waits for the next start.
  @MainActor public func reload() throws(CommandError) -> (reopened: Int, needsRestart: String?) {
    try process.reload()
  }

  public var manifest: ModuleManifest {
    MainActor.assumeIsolated {
      let manifest = process.hello["manifest"] ?? .null
      return ModuleManifest(
        name: manifest["name"]?.stringValue ?? "external", version: manifest["version"]?.stringValue ?? "?",
        summary: (manifest["summary"]?.stringValue ?? "")
          + " (process \(process.path), protocol \(ModuleProtocol.version))")
    }
  }

  @MainActor public func register(into registrar: Registrar) {
    let hello = process.hello
    var samples: [String: [String: ExternalDocument]] = [:]
    for sample in hello["samples"]?.elements ?? [] {
      guard let name = sample["name"]?.stringValue, let kind = sample["kind"]?.stringValue,
        let body = sample["body"]?.stringValue,
        let value = try? FrameValue.parse(json: Array(body.utf8))
      else { continue }
      samples[kind, default: [:]][name] = ExternalDocument(value: value)
    }
    for kind in hello["documentKinds"]?.elements?.compactMap(\.stringValue) ?? [] {
      registrar.documentKind(
        ExternalDocument.self, name: kind, summary: "a document of the \(manifest.name) module",
        samples: samples[kind] ?? [:])
    }
    let process = self.process
    let rendered = self.rendered
    for screen in hello["screens"]?.elements ?? [] {
      guard let name = screen["name"]?.stringValue, let kind = screen["documentKind"]?.stringValue else { continue }
      registrar.screen(
        name: name, documentKind: kind, summary: "a screen of the \(manifest.name) module",
        render: { frame in rendered.text(for: frame) ?? frame.outlineText },
        frameFields: screen["fields"]?.elements.map { $0.compactMap(\.stringValue) },
        make: { document, viewState, environment in
          ProxyScreen(
            document: document, viewState: viewState, environment: environment, process: process, rendered: rendered)
        })
    }
    let moduleName = manifest.name
    // Diagrams the module draws from its own code, as it sent them in its handshake.
    for entry in hello["diagrams"]?.elements ?? [] {
      guard let name = entry["name"]?.stringValue else { continue }
      let diagram = Diagram(
        title: entry["title"]?.stringValue ?? name, isStateMachine: entry["stateMachine"] == .bool(true),
        start: entry["start"]?.stringValue,
        nodes: entry["nodes"]?.elements?.compactMap(\.stringValue) ?? [],
        edges: (entry["edges"]?.elements ?? []).compactMap { edge in
          guard let from = edge["from"]?.stringValue, let to = edge["to"]?.stringValue else { return nil }
          return Diagram.Edge(from: from, to: to, label: edge["label"]?.stringValue ?? "")
        })
      registrar.diagram(name) { diagram }
    }
    registrar.restart { try process.restart() }
    for command in hello["commands"]?.elements ?? [] {
      guard let name = command["name"]?.stringValue else { continue }
      let arguments = SpecCoding.arguments(command)
      let screens = command["screens"]?.elements?.compactMap(\.stringValue)
      registrar.command(
        CommandSpec(
          name, arguments: arguments, summary: command["summary"]?.stringValue ?? "",
          details: command["details"]?.stringValue ?? "",
          scope: screens.map { .window(screens: $0) } ?? .anywhere
        ) { context in
          try ProxyScreen.run(name, arguments: arguments, module: moduleName, context: context)
        })
    }
  }
}

/// A window on an external screen: the module renders and keeps the real state; this screen
/// forwards and remembers the last frame and view state it was sent.
@MainActor
public final class ProxyScreen: ScreenModel {
  public private(set) var document: ExternalDocument {
    didSet { documentJSON = document.value.jsonText }
  }
  public private(set) var viewState: ExternalViewState
  /// The document as sent with every request, encoded once per change.
  private var documentJSON: String
  let process: ModuleProcess?
  let rendered: RenderedTexts
  let screenName: String
  let documentName: String
  let key: String
  /// The session's facts, and this window's scope among them.
  let facts: SessionFacts
  let factScope: String
  private(set) var currentFrame: FrameValue = .null
  private var revision = 1

  /// A screen with no module behind it: it shows an error (the registration builds proxies
  /// with their process).
  public convenience init(document: ExternalDocument, viewState: ExternalViewState, environment: ScreenEnvironment) {
    self.init(
      document: document, viewState: viewState, environment: environment, process: nil, rendered: RenderedTexts())
  }

  init(
    document: ExternalDocument, viewState: ExternalViewState, environment: ScreenEnvironment, process: ModuleProcess?,
    rendered: RenderedTexts
  ) {
    self.document = document
    self.documentJSON = document.value.jsonText
    self.viewState = viewState
    self.process = process
    self.rendered = rendered
    screenName = environment.screenName ?? ""
    documentName = environment.documentName ?? ""
    facts = environment.services.facts
    factScope = environment.factScope
    key = process?.nextWindowKey() ?? "w0"
    process?.screens.append(ModuleProcess.ScreenBox(self))
    open()
  }

  /// Opens the window again on a process that just replaced the one it was on (a reload),
  /// with its document and its view state as they are.
  func reopen() {
    open()
  }

  private var kind: String {
    process?.hello["screens"]?.elements?.first { $0["name"]?.stringValue == screenName }?["documentKind"]?.stringValue
      ?? ""
  }

  private func request(_ type: String, extra: KeyValuePairs<String, FrameValue> = [:]) -> FrameValue {
    var object = FrameObject([
      "type": .string(type), "key": .string(key), "screen": .string(screenName), "document": .string(documentName),
      "kind": .string(kind), "revision": .integer(revision), "state": FrameValue(viewState.json),
    ])
    // The body only when the module does not hold it as it is now: a command on a big document
    // costs what the command costs, not a copy of the document each time.
    if process?.documentsSent[documentName] != documentJSON { object["body"] = .string(documentJSON) }
    for (name, value) in extra { object[name] = value }
    // Recording or replaying: the module reports the facts it used; a replay sends what is
    // left of this window's recorded facts for the module to use instead of live ones.
    if facts.isRecording {
      object["facts"] = .object(FrameObject())
    } else if facts.isReplaying, !facts.isRelivingRecordedStart {
      let remaining = facts.remaining(in: factScope)
      object["facts"] = [
        "replay": .object(FrameObject(members: remaining.sorted { $0.key < $1.key }.map { ($0.key, .list($0.value)) }))
      ]
    }
    return .object(object)
  }

  /// Takes the facts a module reports it used into the session's facts, in order: kept when
  /// recording, counted as used when replaying.
  private func takeFacts(_ reply: FrameValue) {
    if let divergence = reply["divergence"]?.stringValue {
      facts.noteDivergence("window \(factScope.dropFirst("window ".count)): \(divergence)")
    }
    for fact in reply["facts"]?.elements ?? [] {
      guard let source = fact["source"]?.stringValue, let value = fact["value"] else { continue }
      // A fact that answers a question is kept with it, and a replay matches it.
      _ = facts.value(of: source, in: factScope, asked: fact["asked"]) { value }
    }
  }

  private func take(_ reply: FrameValue) {
    // The request went through: the module holds the document as it was sent.
    process?.documentsSent[documentName] = documentJSON
    takeFacts(reply)
    currentFrame = reply["frame"] ?? .null
    if let text = reply["text"]?.stringValue { rendered.remember(text, for: currentFrame) }
    if let state = reply["state"]?.stringValue { viewState.json = state }
  }

  private func open() {
    guard let process else {
      currentFrame = ["error": "no module process for this screen"]
      return
    }
    // Opening a window on a module that stopped starts it again, a limited number of times.
    if !process.isRunning, process.restarts < ModuleProcess.automaticRestartLimit {
      try? process.restart()
    }
    do {
      take(try process.call(request("open")))
    } catch {
      currentFrame = ["error": .string(error.message)]
    }
  }

  public func documentReplaced(_ document: ExternalDocument) {
    self.document = document
    guard let process, process.isRunning else { return }
    if let reply = try? process.call(request("refresh")) { take(reply) }
  }

  public func documentRevisionChanged(_ revision: Int) { self.revision = revision }

  public func restore(_ viewState: ExternalViewState) {
    self.viewState = viewState
    open()
  }

  public func windowClosed() {
    guard let process, process.isRunning else { return }
    _ = try? process.call(request("close"))
  }

  public var frame: FrameValue {
    if let reason = process?.stopReason { return ["error": .string("the module stopped: \(reason)")] }
    return currentFrame
  }

  /// Runs a module command: the line goes to the process; a document the module changed comes
  /// back and is committed here, through the workspace, like any edit.
  static func run(_ name: String, arguments: [ArgumentSpec], module: String, context: CommandContext)
    throws(CommandError) -> CommandOutput
  {
    let window = try context.requireWindow()
    guard let screen = window.model(as: ProxyScreen.self), let process = screen.process else {
      throw CommandError("window \(window.label) does not show a \(module) screen")
    }
    let words = arguments.compactMap { argument -> String? in
      guard let text = context.arguments.text(named: argument.name) else { return nil }
      if case .rest = argument.kind { return text }
      return CommandTokenizer.quoted(text)
    }
    let line = ([name] + words).joined(separator: " ")
    let reply: FrameValue
    do {
      reply = try process.call(screen.request("command", extra: ["line": .string(line)]))
    } catch {
      if !process.isRunning { closeWindows(of: process, in: context) }
      throw error
    }
    // A document that comes back malformed is a protocol violation, not "nothing to save":
    // the command fails and the module is stopped, as for any other garbage it sends.
    var committedDocument: FrameValue?
    if let commit = reply["commit"], commit != .null {
      guard let text = commit.stringValue else {
        throw protocolViolation("its `commit` was not a string of JSON text", process: process, context: context)
      }
      do {
        committedDocument = try FrameValue.parse(json: Array(text.utf8))
      } catch {
        throw protocolViolation("its `commit` was not valid JSON (\(error))", process: process, context: context)
      }
    }
    screen.take(reply)
    // The module's copy moved with its commit; whatever the host makes of it (saved, or refused
    // as a conflict), the next request sends the host's copy.
    if committedDocument != nil { process.documentsSent[screen.documentName] = nil }
    if let committedDocument {
      try context.commit(ExternalDocument(value: committedDocument), summary: "\(module).\(name)")
    }
    if let output = reply["output"]?.stringValue { return .text(output) }
    return .frame(window.id)
  }
}

extension ProxyScreen {
  /// Closes every window on a module that stopped.
  static func closeWindows(of process: ModuleProcess, in context: CommandContext) {
    for other in context.host.windows where (other.anyModel as? ProxyScreen)?.process === process {
      context.host.closeWindow(other.id)
    }
  }

  /// Stops a module that broke the protocol, closes its windows, and says what it did.
  static func protocolViolation(_ what: String, process: ModuleProcess, context: CommandContext) -> CommandError {
    process.stop("it sent a malformed reply: \(what)")
    closeWindows(of: process, in: context)
    return process.stoppedError(process.stopReason ?? what)
  }
}

/// Starts the modules at `paths`; the ones that fail are reported, not fatal.
@MainActor
public enum ExternalModules {
  /// Ends the processes of every external module in `modules`, with whatever they started.
  public static func shutdown(_ modules: [any FeatureModule]) {
    for case let module as ExternalModule in modules { module.shutdown() }
  }

  public static func load(_ paths: [String]) -> (modules: [any FeatureModule], errors: [String]) {
    var modules: [any FeatureModule] = []
    var errors: [String] = []
    for path in paths {
      do {
        modules.append(try ExternalModule(path: path))
      } catch {
        errors.append(error.message)
      }
    }
    return (modules, errors)
  }
}
