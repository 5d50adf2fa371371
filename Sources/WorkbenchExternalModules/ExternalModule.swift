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
          + " (process \(process.path), protocol \(process.version))")
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
        lifetimeFields: screen["lifetimeFields"]?.elements?.compactMap(\.stringValue),
        fieldSummaries: Self.fieldSummaries(screen["fieldSummaries"]),
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
      guard let spec = Self.spec(command, module: moduleName, process: process) else { continue }
      registrar.command(spec)
    }
  }

  /// The host's spec for a command the handshake declares: running it sends the line to the
  /// module (`name`, then the subcommand's name when it has one, then the arguments).
  @MainActor static func spec(_ command: FrameValue, module: String, process: ModuleProcess, parent: String? = nil)
    -> CommandSpec?
  {
    guard let name = command["name"]?.stringValue else { return nil }
    let line = parent.map { $0 + " " + name } ?? name
    let arguments = SpecCoding.arguments(command)
    let screens = command["screens"]?.elements?.compactMap(\.stringValue)
    let scope: CommandScope = screens.map { .window(screens: $0) } ?? .anywhere
    let summary = command["summary"]?.stringValue ?? ""
    let details = command["details"]?.stringValue ?? ""
    let forward: @MainActor @Sendable (CommandContext) throws -> CommandOutput = { context in
      try ProxyScreen.run(
        line, arguments: arguments, module: module, process: process, anywhere: screens == nil, context: context)
    }
    let subcommands = (command["subcommands"]?.elements ?? []).compactMap {
      spec($0, module: module, process: process, parent: line)
    }
    guard parent == nil, !subcommands.isEmpty else {
      var spec = CommandSpec(
        name, arguments: arguments, summary: summary, details: details, scope: scope, handler: forward)
      spec.windowEffect = SpecCoding.windowEffect(command)
      return spec
    }
    let required = command["requiresSubcommand"]?.boolValue ?? true
    return CommandSpec(
      name, subcommands: subcommands, summary: summary, details: details, scope: scope,
      handler: required ? nil : forward)
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
  /// The number of the window's session among the module's (protocol 2, §16).
  let session: Int
  /// How many rows a window shows (`--rows`, a scenario's `rows:`), sent with `open` and
  /// `restore` in protocol 2 so a module pages as a built-in screen does.
  let viewportRows: Int
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
    rendered: RenderedTexts, adopting opened: FrameValue? = nil
  ) {
    self.document = document
    self.documentJSON = document.value.jsonText
    self.viewState = viewState
    self.process = process
    self.rendered = rendered
    screenName = opened?["screen"]?.stringValue ?? environment.screenName ?? ""
    documentName = environment.documentName ?? ""
    facts = environment.services.facts
    factScope = environment.factScope
    session = process?.session(of: environment.services) ?? 0
    viewportRows = environment.viewportRows
    key = opened?["key"]?.stringValue ?? process?.nextWindowKey() ?? "w0"
    process?.screens.append(ModuleProcess.ScreenBox(self))
    // A window the module opened from a command (§17) is already open there, with a frame.
    if let opened { take(opened) } else { open() }
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
    if let process, process.version >= 2 {
      object["session"] = .integer(session)
      if type == "open" || type == "restore" { object["rows"] = .integer(viewportRows) }
    }
    if let relayed = RelayedFacts.request(
      facts, scope: factScope, version: process?.version ?? 1, windows: process?.windowScopes(in: session) ?? [])
    {
      object["facts"] = relayed
    }
    return .object(object)
  }

  func takeFacts(_ reply: FrameValue) {
    guard reply["facts"] != nil || reply["divergence"] != nil else { return }
    let windows = Dictionary(
      (process?.windowScopes(in: session) ?? []).map { ($0.key, $0.scope) }, uniquingKeysWith: { first, _ in first })
    RelayedFacts.take(reply, into: facts, scope: factScope, windows: windows)
  }

  private func take(_ reply: FrameValue) {
    // The request went through: the module holds the document as it was sent.
    process?.documentsSent[documentName] = documentJSON
    takeFacts(reply)
    takeFrame(reply)
    guard let process, process.version >= 2 else { return }
    process.takeTimers(reply, in: session)
    process.takeUpdates(reply, in: session)
  }

  /// The frame, its text and the view state a reply (or one of its `updates`) carries.
  func takeFrame(_ reply: FrameValue) {
    currentFrame = reply["frame"] ?? .null
    if let text = reply["text"]?.stringValue { rendered.remember(text, for: currentFrame) }
    if let state = reply["state"]?.stringValue { viewState.json = state }
  }

  private func open() {
    guard let process else {
      currentFrame = ["error": "no module process for this screen"]
      return
    }
    // Opening a window on a module that stopped (or ended since its last request) starts it
    // again, a limited number of times in each session; the restart opens every window on it,
    // this one too.
    if !process.noticeEnd(), process.mayRestart(in: session) {
      do {
        try process.restart(in: session)
      } catch {
        currentFrame = ["error": .string(error.message)]
      }
      return
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
    // Protocol 2 gives the open window its view state (§18), as a built-in screen is restored
    // in place; protocol 1 opens the window again with it.
    guard let process, process.version >= 2, process.isRunning else { return open() }
    do {
      take(try process.call(request("restore")))
    } catch {
      currentFrame = ["error": .string(error.message)]
    }
  }

  public func windowClosed() {
    guard let process, process.isRunning else { return }
    // Closing may cancel what the window started (a load's timer) or change other windows.
    guard let reply = try? process.call(request("close")), process.version >= 2 else { return }
    process.takeTimers(reply, in: session)
    process.takeUpdates(reply, in: session)
  }

  public var frame: FrameValue {
    // A module gone since its last request shows so at once: no expectation passes on the
    // last frame it sent.
    process?.noticeEnd()
    if let reason = process?.stopReason { return ["error": .string("the module stopped: \(reason)")] }
    return currentFrame
  }

  /// Runs a module command: the line goes to the process; a document the module changed comes
  /// back and is committed here, through the workspace, like any edit.
  static func run(
    _ name: String, arguments: [ArgumentSpec], module: String, process: ModuleProcess? = nil, anywhere: Bool = false,
    context: CommandContext
  ) throws(CommandError) -> CommandOutput {
    let words = arguments.compactMap { argument -> String? in
      guard let text = context.arguments.text(named: argument.name) else { return nil }
      if case .rest = argument.kind { return text }
      return CommandTokenizer.quoted(text)
    }
    let line = ([name] + words).joined(separator: " ")
    let shown = context.window.flatMap { $0.model(as: ProxyScreen.self) }
    guard let window = context.window, let screen = shown, screen.process === process ?? screen.process else {
      // A command of the module's that runs anywhere, with none of its windows in front: it
      // runs in the module's session without one (protocol 2, §16).
      if let process, process.version >= 2, anywhere {
        return try runInNoWindow(line, process: process, context: context)
      }
      let window = try context.requireWindow()
      throw CommandError("window \(window.label) does not show a \(module) screen")
    }
    guard let process = screen.process else {
      throw CommandError("window \(window.label) does not show a \(module) screen")
    }
    // A stop anywhere in the command (its reply, the commit in it, the updates) is the command's
    // error, and its windows close.
    do {
      return try process.duringCommand { () throws(CommandError) -> CommandOutput in
        try forward(line, to: screen, in: window, process: process, module: module, name: name, context: context)
      }
    } catch {
      if !process.isRunning { closeWindows(of: process, in: context) }
      throw error
    }
  }

  /// Sends a command line to the module for `screen`'s window and takes what the reply says.
  private static func forward(
    _ line: String, to screen: ProxyScreen, in window: Window, process: ModuleProcess, module: String, name: String,
    context: CommandContext
  ) throws(CommandError) -> CommandOutput {
    let reply: FrameValue
    _ = process.takeRefusal()
    do {
      reply = try process.call(screen.request("command", extra: ["line": .string(line)]))
    } catch {
      // What the refused work learnt from outside is kept (an answer that made it fail).
      if let refusal = process.takeRefusal() { screen.takeFacts(refusal) }
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
    let opened = try adoptWindows(reply, from: screen, process: process, context: context)
    // The module's copy moved with its commit; whatever the host makes of it (saved, or refused
    // as a conflict), the next request sends the host's copy.
    if committedDocument != nil { process.documentsSent[screen.documentName] = nil }
    if let committedDocument {
      try context.commit(ExternalDocument(value: committedDocument), summary: "\(module).\(name)")
    }
    if let output = reply["output"]?.stringValue { return .text(output) }
    // A command that opened a window shows it, as the built-in `enter` does.
    return .frame(opened ?? window.id)
  }

  /// Opens here the windows the module opened from a command (`opened`, §17: a room window
  /// from a home window, on the same document), and closes the ones it closed (`closed`).
  ///
  /// - Returns: the last window opened.
  static func adoptWindows(
    _ reply: FrameValue, from screen: ProxyScreen, process: ModuleProcess, context: CommandContext
  )
    throws(CommandError) -> WindowID?
  {
    guard process.version >= 2 else { return nil }
    var last: WindowID?
    for entry in reply["opened"]?.elements ?? [] {
      guard let key = entry["key"]?.stringValue, let screenName = entry["screen"]?.stringValue,
        entry["document"]?.stringValue == screen.documentName
      else {
        throw protocolViolation(
          "a window it opened was not {key, screen, document} on the document of the window it opened from (§17)",
          process: process, context: context)
      }
      guard !process.windowScopes(in: screen.session).contains(where: { $0.key == key }) else {
        throw protocolViolation(
          "it opened a window under the key \(key), which another window of the session has (§17)", process: process,
          context: context)
      }
      let environment = context.host.screenEnvironment(for: screen.documentName)
      let model = ProxyScreen(
        document: screen.document, viewState: ExternalViewState(json: entry["state"]?.stringValue),
        environment: environment,
        process: process, rendered: screen.rendered, adopting: entry)
      let window = try context.host.openWindow(
        model, screen: screenName, document: screen.documentName, name: entry["name"]?.stringValue)
      last = window.id
    }
    for key in reply["closed"]?.elements?.compactMap(\.stringValue) ?? [] {
      for window in context.host.windows {
        guard let model = window.anyModel as? ProxyScreen, model.process === process, model.key == key,
          model.session == screen.session
        else { continue }
        context.host.closeWindow(window.id)
      }
    }
    return last
  }
}

extension ProxyScreen {
  /// Runs a command line in the module's side of the session with no window (§16): the module
  /// answers `ok`, with text to show and the windows it changed.
  static func runInNoWindow(_ line: String, process: ModuleProcess, context: CommandContext) throws(CommandError)
    -> CommandOutput
  {
    let session = process.session(of: context.host.services)
    let reply = try process.duringCommand { () throws(CommandError) -> FrameValue in
      let reply = try process.call(["type": "command", "line": .string(line), "session": .integer(session)])
      process.takeTimers(reply, in: session)
      process.takeUpdates(reply, in: session)
      return reply
    }
    // Nothing to say is nothing shown, as for a built-in command run with no window.
    if let output = reply["output"]?.stringValue { return .text(output) }
    return .nothing
  }

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

/// The facts a module's work uses, relayed through its requests (§12): asked for while the
/// session records, served from the recording while it replays, and taken from each reply
/// into the session's facts under a scope (a window's, or the module's timers in a session).
@MainActor
enum RelayedFacts {
  /// What a request carries as `facts`, or `nil` when the session neither records nor replays.
  static func request(
    _ facts: SessionFacts, scope: String, version: Int,
    windows: @autoclosure () -> [(key: String, scope: String)] = []
  ) -> FrameValue? {
    // Recording or replaying: the module reports the facts it used; a replay sends what is
    // left of the scope's recorded facts for the module to use instead of live ones, and with
    // protocol 2 what is left in the scopes the session shares (`network`).
    if facts.isRecording { return .object(FrameObject()) }
    // While a replay sets up its windows they load live, but a service made now starts in the
    // state it was recorded in (protocol 2): the recorded states alone, and `start`.
    if facts.isRelivingRecordedStart {
      let states = facts.recordedSharedStates()
      guard version >= 2, !states.isEmpty else { return nil }
      return [
        "start": true,
        "shared": .object(
          FrameObject(
            members: states.sorted { $0.key < $1.key }.map { scope, sources in
              (
                scope,
                .object(
                  FrameObject(members: sources.sorted { $0.key < $1.key }.map { ($0.key, .list($0.value)) }))
              )
            })),
      ]
    }
    guard facts.isReplaying else { return nil }
    func sources(_ remaining: [String: [FrameValue]]) -> FrameValue {
      .object(FrameObject(members: remaining.sorted { $0.key < $1.key }.map { ($0.key, .list($0.value)) }))
    }
    var relayed = FrameObject(["replay": sources(facts.remaining(in: scope))])
    guard version >= 2 else { return .object(relayed) }
    let shared = facts.remainingShared()
    if !shared.isEmpty {
      relayed["shared"] = .object(
        FrameObject(members: shared.sorted { $0.key < $1.key }.map { ($0.key, sources($0.value)) }))
    }
    // Every window of the module in the session: a timer's work may use any window's facts.
    relayed["windows"] = .object(
      FrameObject(members: windows().map { ($0.key, sources(facts.remaining(in: $0.scope))) }))
    return .object(relayed)
  }

  /// Takes the facts a reply reports into the session's facts (see `take(_:into:scope:)`),
  /// each under the window it names (`window`, protocol 2) when there is one.
  static func take(_ reply: FrameValue, into facts: SessionFacts, scope: String, windows: [String: String]) {
    take(reply, into: facts, scope: scope) { fact in fact["window"]?.stringValue.flatMap { windows[$0] } }
  }

  /// Takes the facts a module reports it used into the session's facts, in order: kept when
  /// recording, counted as used when replaying.
  static func take(
    _ reply: FrameValue, into facts: SessionFacts, scope: String, window: (FrameValue) -> String? = { _ in nil }
  ) {
    if let divergence = reply["divergence"]?.stringValue {
      facts.noteDivergence("\(scope): \(divergence)")
    }
    for fact in reply["facts"]?.elements ?? [] {
      guard let source = fact["source"]?.stringValue, let value = fact["value"] else { continue }
      // A fact that answers a question is kept with it, and a replay matches it; one of a
      // scope the session shares is kept there (a window's scope is never named this way).
      let shared = fact["scope"]?.stringValue.flatMap { SessionFacts.isWindowScope($0) ? nil : $0 }
      _ = facts.value(of: source, in: shared ?? window(fact) ?? scope, asked: fact["asked"]) { value }
    }
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

extension ExternalModule {
  /// A screen's `fieldSummaries` from a handshake: the members whose values are text (others
  /// are left out); `nil` when there are none.
  static func fieldSummaries(_ value: FrameValue?) -> [String: String]? {
    guard case .object(let object)? = value else { return nil }
    var summaries: [String: String] = [:]
    for member in object.members {
      if case .string(let text) = member.value, summaries[member.key] == nil { summaries[member.key] = text }
    }
    return summaries.isEmpty ? nil : summaries
  }
}
