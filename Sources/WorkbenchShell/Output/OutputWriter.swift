import WorkbenchCore
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writes what commands produce to standard output, and errors to standard error, as text
/// (with colour on a terminal) or as JSON lines.
@MainActor
final class OutputWriter {
  /// Set from the options, and by `set json` and `set color` during the session.
  var json: Bool
  var color: Bool

  init(json: Bool, color: Bool) {
    self.json = json
    self.color = color
  }

  /// The terminal's width when standard output is one (`COLUMNS` when set), else `nil`: a pipe
  /// gets whole lines.
  static func terminalWidth() -> Int? {
    guard isatty(STDOUT_FILENO) == 1 else { return nil }
    if let columns = getenv("COLUMNS").flatMap({ Int(String(cString: $0)) }), columns > 0 { return columns }
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }

  /// Whether colour should be used on `descriptor`: only on a terminal, never with NO_COLOR.
  static func colorWanted(on descriptor: Int32, allowed: Bool) -> Bool {
    guard allowed, isatty(descriptor) == 1 else { return false }
    if let noColor = getenv("NO_COLOR"), noColor.pointee != 0 { return false }
    if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
    return true
  }

  func write(_ output: CommandOutput, host: Host) {
    switch output {
    case .frame(let id):
      guard let window = host.window(id) else { return }
      emit(json ? windowJSON(window, host: host) : styledText(of: window, host: host))
    case .frames(let ids):
      let windows = ids.compactMap(host.window)
      if json {
        windows.forEach { emit(windowJSON($0, host: host)) }
      } else {
        emit(SideBySide.join(windows.map { styledText(of: $0, host: host) }, width: Self.terminalWidth()))
      }
    case .text(let text):
      emit(json ? (["type": "text", "text": .string(text)] as FrameValue).jsonText : TerminalText.visible(text))
    case .value(let value):
      emit(json ? (["type": "value", "value": value] as FrameValue).jsonText : TerminalText.visible(value.outlineText))
    case .listing(let text, let value):
      emit(json ? value.jsonText : TerminalText.visible(text))
    case .nothing:
      break
    }
  }

  /// Writes an error to standard error as text, and with `--json` also to standard output as
  /// an object (`{"type":"error","message":...,"place":...,"column":...,"usage":false,
  /// "exit":"failure"}`), so a program reading the lines sees it in order. `exit` is the exit
  /// status the error gives the process (a command's error: `failure`, status 1, whatever the
  /// mode); `usage` says whether the line itself was wrong (a misspelt command) rather than a
  /// well-formed command refused.
  func writeError(_ message: String, place: String?, column: Int? = nil, usage: Bool = false) {
    let prefix = place.map { "\($0): " } ?? ""
    let label = color ? "\u{1B}[1;31merror:\u{1B}[0m" : "error:"
    // A message can quote text from outside (a name, a title): shown, never obeyed.
    StandardStreams.error(TerminalText.visible(prefix) + "\(label) " + TerminalText.visible(message) + "\n")
    guard json else { return }
    let object: FrameValue = [
      "type": "error", "message": .string(message), "place": FrameValue(place), "column": FrameValue(column),
      "usage": .bool(usage), "exit": "failure",
    ]
    emit(object.jsonText)
  }

  /// Writes a line as it is (JSON, or text this program made); `emitShown` for text from
  /// outside.
  func emit(_ text: String) {
    StandardStreams.out(text + "\n")
  }

  /// Writes a line of text that may hold text from outside, control characters made visible.
  func emitShown(_ text: String) {
    emit(TerminalText.visible(text))
  }

  private func windowJSON(_ window: Window, host: Host) -> String {
    let object = FrameObject([
      "type": "frame",
      "window": .integer(window.id.number),
      "name": FrameValue(window.name),
      "screen": .string(window.screen.name),
      "document": .string(window.documentName),
      "revision": FrameValue(host.document(named: window.documentName)?.revision),
      "frame": window.frame,
    ])
    return FrameValue.object(object).jsonText
  }

  private func styledText(of window: Window, host: Host) -> String {
    // What a frame shows comes from documents, modules and rows: its control characters are
    // shown, not sent to the terminal (before the colour, which is this program's own).
    let text = TerminalText.visible(host.renderText(of: window))
    guard color, let newline = text.firstIndex(of: "\n") else { return text }
    return "\u{1B}[1;36m" + text[..<newline] + "\u{1B}[0m" + text[newline...]
  }
}
