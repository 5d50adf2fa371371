import WorkbenchCore
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Records shell commands as a scenario file: the documents and windows as they were when
/// recording started, each command that succeeded as a step, and an expectation of every
/// window's final frame, so the file passes when run.
@MainActor
final class SessionRecorder {
  let path: String
  private let header: [String]
  private var steps: [String] = []
  private var pending: [String] = []

  init(path: String, host: Host) throws(CommandError) {
    self.path = path
    let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard descriptor >= 0 else {
      throw CommandError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
    close(descriptor)
    let record = try host.sessionRecord()
    var lines = ["scenario: \(SessionRecorder.quote(SessionRecorder.title(for: path)))", "documents:"]
    for document in record.documents {
      guard document.body.hasPrefix("{") else {
        throw CommandError("document '\(document.name)' cannot be written into a scenario")
      }
      let body = document.body == "{}" ? "}" : "," + document.body.dropFirst()
      lines.append("  \(SessionRecorder.key(document.name)): {\"kind\":\(SessionRecorder.quote(document.kind))\(body)")
    }
    if !record.windows.isEmpty { lines.append("windows:") }
    for window in record.windows {
      let label = window.name ?? String(window.number)
      lines.append(
        "  \(SessionRecorder.key(label)): {\"screen\":\(SessionRecorder.quote(window.screen)),"
          + "\"document\":\(SessionRecorder.quote(window.document)),\"state\":\(window.viewState.state)}")
    }
    lines.append("steps:")
    if let focused = host.focusedWindow, focused.id != host.windows.last?.id {
      lines.append("  - do: \(SessionRecorder.quote("focus \(focused.label)"))")
    }
    header = lines
  }

  /// Keeps the steps `prepare` worked out, once their line ran without error.
  func commit() {
    steps += pending
    pending = []
  }

  /// Works out, before a line runs, which steps it becomes: `WINDOW: command` for a module
  /// command, `do: command` for a host command.
  func prepare(_ line: String, host: Host) {
    pending = []
    guard let commands = try? CommandTokenizer.commands(in: line) else { return }
    let focused = host.focusedWindow?.label
    for tokens in commands {
      var words = tokens
      var target = focused
      if let first = words.first, !first.wasQuoted, first.text.hasPrefix("@") {
        target = String(first.text.dropFirst())
        words.removeFirst()
      }
      guard let name = words.first?.text else { continue }
      if name == "record" { continue }
      let text = words.map { CommandTokenizer.quoted($0.text) }.joined(separator: " ")
      if host.hostCommandNames.contains(name) || target == nil {
        pending.append("  - do: \(SessionRecorder.quote(text))")
      } else if let target {
        pending.append("  - \(SessionRecorder.key(target)): \(SessionRecorder.quote(text))")
      }
    }
  }

  /// Writes the scenario; returns the number of steps.
  func finish(host: Host) throws(CommandError) -> Int {
    var lines = header + steps
    if !host.windows.isEmpty {
      lines.append("  - expect:")
      for window in host.windows {
        lines.append("      \(SessionRecorder.key(window.label)): \(window.frame.jsonText)")
      }
    }
    guard FileSystem.write(lines.joined(separator: "\n") + "\n", to: path) else {
      throw CommandError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
    return steps.count + (host.windows.isEmpty ? 0 : 1)
  }

  /// A scenario title from a file name: `two-windows.yaml` becomes "two windows".
  static func title(for path: String) -> String {
    let file = path.split(separator: "/").last.map(String.init) ?? path
    let stem = file.split(separator: ".").first.map(String.init) ?? file
    return stem.replacing("-", with: " ").replacing("_", with: " ")
  }

  /// A YAML double-quoted string (the same as JSON's).
  static func quote(_ text: String) -> String { FrameValue.string(text).jsonText }

  /// A mapping key, quoted unless it is a plain word.
  static func key(_ text: String) -> String {
    let plain = text.first?.isLetter == true && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    return plain ? text : quote(text)
  }
}
