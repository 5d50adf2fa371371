import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// What the checks read in a reply, and the requests they make.
extension ModuleCheck {
  /// A wait status in words.
  static func describe(status: Int32) -> String {
    status & 0x7f == 0 ? "status \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
  }

  /// What is missing or wrong in a handshake.
  static func helloProblems(_ greeting: FrameValue) -> [String] {
    let hello: WireHello
    do throws(WireProblems) {
      guard greeting["type"]?.stringValue == "hello" else { return ["type \"hello\""] }
      hello = try WireHello(wire: greeting)
    } catch {
      return error.problems
    }
    guard ModuleProtocol.versions.contains(hello.protocol) else {
      return [
        "protocol \(ModuleProtocol.versions.map(String.init).joined(separator: " or ")), got \(hello.protocol)"
      ]
    }
    return []
  }

  /// What is wrong with a reply, or that there was none.
  static func problems(_ answer: Result<FrameValue, ChannelError>, _ check: (FrameValue) -> [String]) -> [String] {
    switch answer {
    case .success(let reply): return check(reply)
    case .failure(let error): return ["a reply; \(error)"]
    }
  }

  /// `value` (an object) with `key` set to `new`.
  static func setting(_ value: FrameValue, _ key: String, _ new: FrameValue) -> FrameValue {
    guard case .object(var object) = value else { return value }
    object[key] = new
    return .object(object)
  }

  static func keysText(_ frame: FrameValue) -> String {
    guard case .object(let object) = frame else { return "?" }
    return "{" + object.keys.joined(separator: ", ") + "}"
  }

  /// §12: asked for the facts it uses, does the command report them well formed; replayed
  /// with them, does it take them without a divergence; and replayed with an answer recorded
  /// for another question, does it say so (a `divergence`) rather than use it? Nothing for a
  /// command that uses no facts.
  static func factChecks(_ peer: Peer, _ command: CommandRequest, command name: String) -> [Check] {
    let line = command.line
    var asking = command
    asking.facts = WireFactsRequest()
    guard case .success(let raw) = peer.reply(to: HostMessage.command(asking).wire), raw["type"] == "result",
      let facts = raw["facts"]?.elements, !facts.isEmpty
    else { return [] }
    var problems: [String] = []
    var replay: [(key: String, value: FrameValue)] = []
    var otherQuestions: [(key: String, value: FrameValue)] = []
    var questions = 0
    func append(_ value: FrameValue, for source: String, to list: inout [(key: String, value: FrameValue)]) {
      if let index = list.firstIndex(where: { $0.key == source }) {
        list[index].value = .list((list[index].value.elements ?? []) + [value])
      } else {
        list.append((source, [value]))
      }
    }
    for (index, entry) in facts.enumerated() {
      guard let fact = try? WireFact(wire: entry) else {
        problems.append("facts[\(index)] with a source (text) and a value")
        continue
      }
      if let asked = fact.asked {
        questions += 1
        append(["asked": asked, "answer": fact.value], for: fact.source, to: &replay)
        append(
          ["asked": ["module-check asks instead": asked], "answer": fact.value], for: fact.source, to: &otherQuestions)
      } else {
        append(fact.value, for: fact.source, to: &replay)
        append(fact.value, for: fact.source, to: &otherQuestions)
      }
    }
    var checks = [
      Check(
        id: "facts \(name)", section: "§12", passed: problems.isEmpty,
        detail: problems.isEmpty
          ? "`\(line)` reported \(facts.count) fact(s), \(questions) with the question it answers"
          : "`\(line)`: expected " + problems.joined(separator: "; "))
    ]
    guard problems.isEmpty else { return checks }
    func replaying(_ values: [(key: String, value: FrameValue)]) -> WireResult? {
      var request = command
      var facts = WireFactsRequest()
      facts.replay = .object(FrameObject(members: values))
      request.facts = facts
      return (try? peer.reply(to: HostMessage.command(request).wire).get()).flatMap { try? WireResult(wire: $0) }
    }
    let same = replaying(replay)
    let replayed = same != nil && same?.divergence == nil
    checks.append(
      Check(
        id: "replay \(name)", section: "§12", passed: replayed,
        detail: replayed
          ? "`\(line)` took the facts it reported, with no divergence"
          : "`\(line)` replayed with the facts it reported: expected a result with no divergence, got "
            + String((same?.wire.jsonText ?? "no result").prefix(120))))
    if questions > 0 {
      let divergence = replaying(otherQuestions)?.divergence ?? ""
      let noticed = !divergence.isEmpty
      checks.append(
        Check(
          id: "replay \(name) to another question", section: "§12", passed: noticed,
          detail: noticed
            ? "a divergence: \(divergence)"
            : "`\(line)` given answers recorded for other questions: expected a `divergence` naming both, "
              + "but it used them (a replay must serve an answer only to the question it answered)"))
    }
    return checks
  }

  /// A command request in a window, with a value for each argument as a user would type one
  /// (in its line, and bound in `arguments`); an optional one only when `always`. With protocol 2
  /// it names the command by its spec's path, and a `window` argument is the window it runs in,
  /// by its key (§5).
  static func command(
    _ name: String, _ arguments: [WireArgument], in window: WindowRequest, always: Bool, speaksTwo: Bool = true
  ) -> CommandRequest {
    var words = [name]
    var bound: [(key: String, value: FrameValue)] = []
    var keys: [(key: String, value: FrameValue)] = []
    for argument in arguments {
      guard let value = sampleArgument(argument, always: always) else { continue }
      words.append(value)
      bound.append(
        (argument.name, ["integer", "window"].contains(argument.kind) ? .integer(Int(value) ?? 1) : .string(value)))
      if argument.kind == "window" { keys.append((argument.name, .string(window.key))) }
    }
    var request = CommandRequest(
      words.joined(separator: " "), arguments: .object(FrameObject(members: bound)), in: window)
    if speaksTwo {
      request.command = name
      request.path = [name]
      request.windows = keys.isEmpty ? nil : .object(FrameObject(members: keys))
    }
    return request
  }

  /// A value for an argument of each kind, as a user would type one; nothing for an optional
  /// unless `always`.
  static func sampleArgument(_ argument: WireArgument, always: Bool = false) -> String? {
    if argument.optional == true, !always { return nil }
    switch argument.kind {
    case "integer": return "1"
    case "choice": return argument.extra?.elements?.first?.stringValue ?? "x"
    case "rest": return "checked by module-check"
    default: return "1"
    }
  }
}
