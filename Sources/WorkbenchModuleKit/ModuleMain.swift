@_exported import WorkbenchCore
import WorkbenchModuleProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a feature module as its own process, talking to the workbench host over stdin and
/// stdout. A module author writes the same module as a built-in one and a one-line `main.swift`:
///
/// ```swift
/// import WorkbenchModuleKit
/// ModuleMain.run(GreetingModule())
/// ```
@MainActor
public enum ModuleMain {
  /// The descriptor the protocol is written to: the process's original stdout, moved to this
  /// fixed number when `run` starts (closed on exec, so programs the module starts do not get
  /// it). Module code never needs it; the kit's own tests use it to send malformed messages on
  /// purpose.
  public static let protocolDescriptor: Int32 = 63

  /// Runs `module` until the host closes the connection.
  public static func run(_ module: some FeatureModule) -> Never {
    // The protocol keeps the real stdout; anything the module prints goes to stderr.
    guard dup2(STDOUT_FILENO, protocolDescriptor) == protocolDescriptor,
      fcntl(protocolDescriptor, F_SETFD, FD_CLOEXEC) == 0
    else {
      StandardError.write("the module could not keep its protocol descriptor: \(String(cString: strerror(errno)))\n")
      exit(1)
    }
    dup2(STDERR_FILENO, STDOUT_FILENO)
    let channel = MessageChannel(input: STDIN_FILENO, output: protocolDescriptor)
    let host: Host
    do {
      host = try Host(modules: [module])
    } catch {
      _ = try? channel.send(["type": "error", "message": .string("the module failed to register: \(error.message)")])
      exit(1)
    }
    let session = ModuleSession(host: host, module: module.manifest)
    do {
      try channel.send(session.hello())
      while true {
        let request = try channel.receive(timeout: -1)
        try channel.send(session.handle(request))
      }
    } catch {
      exit(0)  // the host went away
    }
  }
}

/// Standard error, without Foundation.
enum StandardError {
  static func write(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }
}

/// The module's side of the conversation: one host with the module, and a window per host
/// window that shows one of its screens. `ModuleMain.run` drives one over the process's pipes;
/// tests and fuzzers can drive one directly, request by request.
@MainActor
public final class ModuleSession {
  let host: Host
  let manifest: ModuleManifest

  init(host: Host, module: ModuleManifest) {
    self.host = host
    self.manifest = module
  }

  /// A session for `module`, as its process would hold.
  ///
  /// - Throws: `RegistrationError` when the module's registration is inconsistent.
  public convenience init(module: some FeatureModule) throws(RegistrationError) {
    self.init(host: try Host(modules: [module]), module: module.manifest)
  }

  /// The handshake the module sends first.
  public func hello() -> FrameValue {
    var version = ModuleProtocol.version
    if let override = getenv("WORKBENCH_MODULE_PROTOCOL_OVERRIDE"), let number = Int(String(cString: override)) {
      version = number  // for the host's handshake tests
    }
    let commands = host.allCommands.filter { $0.name.hasPrefix(manifest.name + ".") }.map { SpecCoding.encode($0.spec) }
    let screens = host.screens.map { screen -> FrameValue in
      var members: [(key: String, value: FrameValue)] = [
        ("name", .string(screen.name)), ("documentKind", .string(screen.documentKind)),
      ]
      if let fields = host.frameFields(ofScreen: screen.name) {
        members.append(("fields", .list(fields.map { .string($0) })))
      }
      return .object(FrameObject(members: members))
    }
    // The module's own diagrams, drawn now and sent as nodes and edges.
    let diagrams = host.registry.drawModuleDiagrams().map { name, diagram -> FrameValue in
      [
        "name": .string(name), "title": .string(diagram.title), "stateMachine": .bool(diagram.isStateMachine),
        "start": FrameValue(diagram.start), "nodes": .list(diagram.nodes.map { .string($0) }),
        "edges": .list(
          diagram.edges.map { ["from": .string($0.from), "to": .string($0.to), "label": .string($0.label)] }),
      ]
    }
    let samples = host.documentNames.compactMap { name -> FrameValue? in
      guard let kind = host.documentKind(of: name), let json = host.documentJSON(named: name) else { return nil }
      return ["name": .string(name), "kind": .string(kind), "body": .string(json)]
    }
    return [
      "type": "hello", "protocol": .integer(version),
      "manifest": [
        "name": .string(manifest.name), "version": .string(manifest.version), "summary": .string(manifest.summary),
      ],
      "commands": .list(commands), "screens": .list(screens),
      "documentKinds": .list(host.documentKindNames.map(FrameValue.string)), "samples": .list(samples),
      "diagrams": .list(diagrams),
    ]
  }

  /// The reply to one request from the host: a result, `ok`, or an error with a message.
  public func handle(_ request: FrameValue) -> FrameValue {
    // The reply carries the request's id (§7), so the host can tell it from any other message.
    var answered = answerWithFacts(request)
    if let id = request["id"], case .object(var object) = answered {
      object["id"] = id
      answered = .object(object)
    }
    return answered
  }

  private func answerWithFacts(_ request: FrameValue) -> FrameValue {
    // A request that carries `facts` is being recorded or replayed: the facts the module's
    // effects use are served from it (on replay) and reported back in the reply.
    guard let facts = request["facts"] else { return reply(to: request) }
    var replay: [String: [FrameValue]]? = nil
    if case .object(let sources)? = facts["replay"] {
      replay = [:]
      for member in sources.members { replay?[member.key] = member.value.elements ?? [] }
    }
    host.services.facts.beginRelay(replaying: replay)
    var result = reply(to: request)
    let relayed = host.services.facts.endRelay()
    if case .object(var object) = result {
      // A fact that answers a question is reported with it (`asked`), and its answer as the value.
      object["facts"] = .list(
        relayed.used.map { fact in
          guard let asked = SessionFacts.question(of: fact.value) else {
            return .object(FrameObject(["source": .string(fact.source), "value": fact.value]))
          }
          return .object(
            FrameObject([
              "source": .string(fact.source), "asked": asked, "value": SessionFacts.answer(of: fact.value),
            ]))
        })
      if let divergence = relayed.divergence { object["divergence"] = .string(divergence) }
      result = .object(object)
    }
    return result
  }

  private func reply(to request: FrameValue) -> FrameValue {
    do {
      return try answer(request)
    } catch {
      return ["type": "error", "message": .string(error.message)]
    }
  }

  private func answer(_ request: FrameValue) throws(CommandError) -> FrameValue {
    let key = request["key"]?.stringValue ?? ""
    switch request["type"]?.stringValue {
    case "validate":
      try host.replaceDocument(
        named: "validation", kind: request["kind"]?.stringValue ?? "", json: request["body"]?.stringValue ?? "",
        revision: 1)
      return ["type": "ok"]
    case "open":
      try sync(request)
      if let existing = host.window(named: key) { host.closeWindow(existing.id) }
      let window = try host.openWindow(
        screen: request["screen"]?.stringValue ?? "", document: request["document"]?.stringValue ?? "", name: key)
      if let state = request["state"]?.stringValue, let version = host.viewStateVersion(of: window.id) {
        _ = host.restoreViewState(of: window.id, from: ViewStateRecord(version: version, state: state))
      }
      return try reply(for: window, text: nil, commit: nil)
    case "refresh":
      try sync(request)
      guard let window = host.window(named: key) else { throw CommandError("no window \(key) in the module") }
      return try reply(for: window, text: nil, commit: nil)
    case "command":
      try sync(request)
      guard let window = host.window(named: key) else { throw CommandError("no window \(key) in the module") }
      let document = window.documentName
      let before = host.document(named: document)?.revision
      var text: String? = nil
      for output in try host.run(line: "@\(key) " + (request["line"]?.stringValue ?? "")) {
        if case .text(let value) = output { text = value }
      }
      let committed = host.document(named: document)?.revision != before ? host.documentJSON(named: document) : nil
      return try reply(for: window, text: text, commit: committed)
    case "close":
      if let window = host.window(named: key) { host.closeWindow(window.id) }
      return ["type": "ok"]
    default:
      throw CommandError("unknown request '\(request["type"]?.stringValue ?? "")'")
    }
  }

  /// Takes in the host's copy of the document before acting on it.
  private func sync(_ request: FrameValue) throws(CommandError) {
    guard let name = request["document"]?.stringValue, let body = request["body"]?.stringValue,
      let kind = request["kind"]?.stringValue
    else { return }
    if host.documentJSON(named: name) != body {
      try host.replaceDocument(named: name, kind: kind, json: body, revision: request["revision"]?.integerValue ?? 1)
    }
  }

  private func reply(for window: Window, text: String?, commit: String?) throws(CommandError) -> FrameValue {
    let state: String
    do {
      state = try window.viewStateJSON()
    } catch {
      throw CommandError("the view state cannot be encoded: \(error)")
    }
    return [
      "type": "result", "frame": window.frame, "text": .string(window.screen.render(window.frame)),
      "state": .string(state), "output": FrameValue(text), "commit": FrameValue(commit),
    ]
  }
}
