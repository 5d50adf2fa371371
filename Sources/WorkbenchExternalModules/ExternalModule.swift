import Synchronization
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol
import WorkbenchSystem

/// A document of a kind an external module owns: kept as JSON by the host (stored, versioned,
/// compare-and-swap saved like any other), understood by the module.
public struct ExternalDocument: DocumentBody {
  public var value: FrameValue
  public init(value: FrameValue) { self.value = value }
  public init(from decoder: any Decoder) throws { value = try FrameValue(from: decoder) }
  /// Any JSON is a document of a module's kind to the host (the module reads it): parsed once.
  public static func decodeQuickly(_ json: [UInt8]) throws -> ExternalDocument? {
    ExternalDocument(value: try FrameValue.parse(json: json))
  }
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

/// The terminal text a module rendered for each frame it sent, for a frame shown without its
/// window (a trace's, a report's: render functions get only the frame, and the module rendered
/// it). One per module process. A window shows its model's text; so frames are only kept as
/// they come, and keyed by their JSON when a text is first asked for, not on every reply.
final class RenderedTexts: Sendable {
  private struct Cache {
    var texts: [String: String] = [:]
    var unkeyed: [(frame: FrameValue, text: String)] = []
  }
  private let cache = Mutex(Cache())

  /// The text the module rendered for `frame`, or `nil`.
  func text(for frame: FrameValue) -> String? {
    cache.withLock { cache in
      for (frame, text) in cache.unkeyed { cache.texts[frame.jsonText] = text }
      cache.unkeyed.removeAll()
      return cache.texts[frame.jsonText]
    }
  }

  /// Remembers the module's text for a frame (the cache is emptied past 10,000 frames).
  func remember(_ text: String, for frame: FrameValue) {
    cache.withLock { cache in
      if cache.texts.count + cache.unkeyed.count > 10_000 {
        cache.texts.removeAll()
        cache.unkeyed.removeAll()
      }
      cache.unkeyed.append((frame, text))
    }
  }
}

/// The host's stand-in for a module running in another process: it registers the module's
/// document kinds, screens and commands from its handshake, and forwards to the process.
public struct ExternalModule: FeatureModule {
  let process: ModuleProcess
  var rendered: RenderedTexts { process.rendered }

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
    // Kept absolute: a note that says how to load it must work from wherever the user is then.
    return KnownModule(
      name: hello.manifest.name, path: FileSystem.absolute(process.path),
      documentKinds: hello.documentKinds,
      screens: hello.screens.map(\.name))
  }

  /// Starts a new build of the module in place of the running one and opens its windows again
  /// (see `ModuleProcess.reload`); returns how many, and what of the new build's registration
  /// (commands, screens, document kinds) waits for the next start.
  @MainActor public func reload() throws(CommandError) -> (reopened: Int, needsRestart: String?) {
    try process.reload()
  }

  /// Starts a new build of the module beside the running one without waiting for it to
  /// introduce itself: the running one goes on serving until the new one has (`PendingReload`).
  @MainActor public func beginReload() throws(CommandError) -> PendingReload {
    PendingReload(module: process, candidate: try ModuleProcess(launching: process.path))
  }

  public var manifest: ModuleManifest {
    MainActor.assumeIsolated {
      let manifest = process.hello.manifest
      return ModuleManifest(
        name: manifest.name, version: manifest.version,
        summary: manifest.summary + " (process \(process.path), protocol \(process.version))")
    }
  }

  @MainActor public func register(into registrar: Registrar) {
    let hello = process.hello
    var samples: [String: [String: ExternalDocument]] = [:]
    for sample in hello.samples {
      guard let value = try? FrameValue.parse(json: Array(sample.body.utf8)) else { continue }
      samples[sample.kind, default: [:]][sample.name] = ExternalDocument(value: value)
    }
    for kind in hello.documentKinds {
      registrar.documentKind(
        ExternalDocument.self, name: kind, summary: "a document of the \(manifest.name) module",
        samples: samples[kind] ?? [:])
    }
    // Changes the module sends unasked (§19) come from its live sources.
    if hello.liveSources == true { registrar.liveSource("\(manifest.name) changes") }
    let process = self.process
    let rendered = self.rendered
    for screen in hello.screens {
      registrar.screen(
        name: screen.name, documentKind: screen.documentKind, summary: "a screen of the \(manifest.name) module",
        render: { frame in rendered.text(for: frame) ?? frame.outlineText },
        frameFields: screen.fields, lifetimeFields: screen.lifetimeFields, refusalFields: screen.refusalFields,
        ownFields: screen.ownFields,
        fieldSummaries: Self.fieldSummaries(screen.fieldSummaries), fieldSchema: Self.fieldSchema(of: screen),
        text: { $0.text },
        make: { document, viewState, environment in
          ProxyScreen(
            document: document, viewState: viewState, environment: environment, process: process, rendered: rendered)
        })
    }
    let moduleName = manifest.name
    // Diagrams the module draws from its own code, as it sent them in its handshake.
    for entry in hello.diagrams ?? [] {
      let diagram = Diagram(
        title: entry.title ?? entry.name, isStateMachine: entry.stateMachine ?? false, start: entry.start,
        nodes: entry.nodes ?? [],
        edges: (entry.edges ?? []).map { Diagram.Edge(from: $0.from, to: $0.to, label: $0.label ?? "") })
      registrar.diagram(entry.name) { diagram }
    }
    registrar.restart { try process.restart() }
    for command in hello.commands {
      registrar.command(Self.spec(command, module: moduleName, process: process))
    }
  }

  /// The host's spec for a command the handshake declares: running it sends the line to the
  /// module (`name`, then the subcommand's name when it has one, then the arguments), with the
  /// arguments as bound.
  @MainActor static func spec(
    _ command: WireCommandSpec, module: String, process: ModuleProcess, parent: String? = nil
  ) -> CommandSpec {
    let path = parent.map { [$0, command.name] } ?? [command.name]
    let line = path.joined(separator: " ")
    let arguments = SpecCoding.arguments(command)
    let scope: CommandScope = command.screens.map { .window(screens: $0) } ?? .anywhere
    let anywhere = command.screens == nil
    let forward: @MainActor @Sendable (CommandContext) throws -> CommandOutput = { context in
      try ProxyScreen.run(
        path, arguments: arguments, module: module, process: process, anywhere: anywhere, context: context)
    }
    let subcommands = (command.subcommands ?? []).map { spec($0, module: module, process: process, parent: line) }
    guard parent == nil, !subcommands.isEmpty else {
      var spec = CommandSpec(
        command.name, arguments: arguments, summary: command.summary ?? "", details: command.details ?? "",
        scope: scope, handler: forward)
      spec.windowEffect = SpecCoding.windowEffect(command)
      return spec
    }
    return CommandSpec(
      command.name, subcommands: subcommands, summary: command.summary ?? "", details: command.details ?? "",
      scope: scope, handler: command.requiresSubcommand ?? true ? nil : forward)
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
  /// A screen's fields with the records inside them, from a handshake that declares its
  /// `recordFields` (§3): its top-level fields, each with its summary and, where it holds a
  /// record, that record's fields; `nil` without them (an editor then reads a window's frame).
  static func fieldSchema(of screen: WireScreen) -> [FrameFieldSchema]? {
    guard let records = screen.recordFields else { return nil }
    let summaries = fieldSummaries(screen.fieldSummaries) ?? [:]
    let names = screen.fields ?? records.map(\.name)
    return names.map { name in
      let record = records.first { $0.name == name }?.schema
      return FrameFieldSchema(
        name: name, summary: summaries[name] ?? record?.summary ?? "", fields: record?.fields ?? [])
    }
  }

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

/// A new build of a module started beside the running one, not yet introduced (see
/// `ExternalModule.beginReload`): the running process serves its windows until the new one says
/// hello, and keeps serving them if it never does.
@MainActor
public final class PendingReload {
  private let module: ModuleProcess
  private let candidate: ModuleProcess

  init(module: ModuleProcess, candidate: ModuleProcess) {
    self.module = module
    self.candidate = candidate
  }

  /// The descriptor the new build's handshake arrives on (to wait on beside others).
  public var descriptor: Int32? { candidate.readDescriptor }

  /// Looks for the new build's handshake, waiting at most `milliseconds`: `nil` while it has not
  /// introduced itself and has time left; the reload done (the windows opened again on it, and
  /// what of its registration changed) once it has; the error once it cannot (the running
  /// process goes on).
  public func poll(waiting milliseconds: Int = 1) -> Result<(reopened: Int, needsRestart: String?), CommandError>? {
    do {
      guard try candidate.handshake(waiting: milliseconds) else { return nil }
      return .success(module.adopt(candidate))
    } catch {
      return .failure(error)
    }
  }

  /// Ends the new build's process (a newer build replaces it before it said hello).
  public func abandon() { candidate.stop("a newer build replaced it") }
}
