import WorkbenchCore
import WorkbenchModuleAPI
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
  /// How output is printed: text for a person, JSON lines for programs, or (for lists) CSV or
  /// an aligned table, as sqlite3's `.mode` does.
  enum Mode: String, CaseIterable {
    case text, json, csv, table
  }

  /// Set from the options, and by `set output`, `set json` and `set color` during the session.
  var mode: Mode
  var color: Bool

  /// Whether output is JSON lines (`--json`, `set json on`, `set output json`).
  var json: Bool {
    get { mode == .json }
    set { mode = newValue ? .json : (mode == .json ? .text : mode) }
  }

  init(json: Bool, color: Bool, mode: Mode? = nil) {
    self.mode = mode ?? (json ? .json : .text)
    self.color = color
  }

  /// The terminal's width when standard output is one: `COLUMNS` when the user set it, else
  /// the terminal's size now, asked at each draw so a resize counts at once (readline is told
  /// not to export a `COLUMNS` of its own, which a resize would leave stale); `nil` for a pipe,
  /// which gets whole lines.
  static func terminalWidth() -> Int? {
    guard isatty(STDOUT_FILENO) == 1 else { return nil }
    if let columns = getenv("COLUMNS").flatMap({ Int(String(cString: $0)) }), columns > 0 { return columns }
    guard let size = terminalSize(), size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }

  /// The size of the terminal standard output is, asked now; `nil` when it is not one.
  nonisolated static func terminalSize() -> winsize? {
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 else { return nil }
    return size
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
      if json { return emit((["type": "text", "text": .string(text)] as FrameValue).jsonText) }
      emitPaged(TerminalText.visible(text))
    case .textWithFrames(let text, let ids):
      write(.text(text), host: host)
      if !ids.isEmpty { write(.frames(ids), host: host) }
    case .value(let value):
      switch mode {
      case .json: emit((["type": "value", "value": value] as FrameValue).jsonText)
      case .text: emit(TerminalText.visible(value.outlineText))
      case .csv, .table:
        // A window's frame (`frame`) gives its rows (`refusal` turned away what has none).
        guard let rows = Self.frameRows(of: value), !rows.header.isEmpty else { return }
        emit(mode == .csv ? Self.csv(rows) : Self.table(rows))
      }
    case .listing(let text, let value):
      switch mode {
      case .json: emit(value.jsonText)
      case .text: emitPaged(TerminalText.visible(text))
      case .csv, .table:
        guard let rows = Self.rows(of: value) else { return emit(TerminalText.visible(text)) }
        emit(mode == .csv ? Self.csv(rows) : Self.table(rows))
      }
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

  // MARK: Lists as CSV and tables

  /// A list's rows: the objects of its one list (`documents`, `windows`, `modules`), as a
  /// header and cells; `nil` for output that is no list of objects.
  static func rows(of value: FrameValue) -> (header: [String], cells: [[String]])? {
    guard case .object(let object) = value,
      let list = object.members.first(where: { if case .list = $0.value { return true } else { return false } }),
      case .list(let items) = list.value
    else { return nil }
    // An empty list still has its header, for a program reading the columns by name.
    if items.isEmpty, let type = value["type"]?.stringValue, let columns = Self.emptyListColumns[type] {
      return (columns, [])
    }
    var header: [String] = []
    for item in items {
      guard case .object(let fields) = item else { return nil }
      for member in fields.members where !header.contains(member.key) { header.append(member.key) }
    }
    let cells = items.map { item in header.map { key in cell(item[key] ?? .null) } }
    return (header, cells)
  }

  /// Why `output` cannot be printed in this mode, when it cannot: a value with no rows (an
  /// editor's frame, a view state) in CSV or a table, which would mix text into the rows.
  func refusal(for output: CommandOutput) -> String? {
    guard mode == .csv || mode == .table, case .value(let value) = output, Self.frameRows(of: value) == nil else {
      return nil
    }
    return "this has no rows to print as \(mode.rawValue) (a window's `frame` prints the rows it shows); "
      + "`set output text` or `set output json` shows it"
  }

  /// A frame's rows: its `rows` list, or else its first list of objects (a room's `lights`);
  /// `nil` when it has none. An empty list has no columns to name.
  static func frameRows(of value: FrameValue) -> (header: [String], cells: [[String]])? {
    guard case .object(let object) = value else { return nil }
    let lists = object.members.compactMap { member -> (key: String, items: [FrameValue])? in
      guard case .list(let items) = member.value,
        items.allSatisfy({ if case .object = $0 { return true } else { return false } })
      else { return nil }
      return (member.key, items)
    }
    guard let chosen = lists.first(where: { $0.key == "rows" }) ?? lists.first else { return nil }
    return rows(of: .object(FrameObject(members: [(key: chosen.key, value: .list(chosen.items))])))
  }

  /// The columns of the host's listings, for one that lists nothing (their rows name them
  /// otherwise).
  static let emptyListColumns: [String: [String]] = [
    "windows": ["number", "name", "screen", "document", "focused"],
    "documents": ["name", "kind", "revision", "windows"],
    "modules": ["name", "version", "summary"],
  ]

  /// A value in one cell: text as it is, lists as their items separated by spaces.
  static func cell(_ value: FrameValue) -> String {
    switch value {
    case .null: return ""
    case .string(let text): return text
    case .list(let items): return items.map(cell).joined(separator: " ")
    case .object: return value.jsonText
    default: return value.jsonText
    }
  }

  /// RFC 4180: a header line, then a line a row; a cell with a comma, a quote or a line break is
  /// quoted, its quotes doubled.
  static func csv(_ rows: (header: [String], cells: [[String]])) -> String {
    func field(_ text: String) -> String {
      guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
      return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }
    return ([rows.header] + rows.cells).map { $0.map(field).joined(separator: ",") }.joined(separator: "\n")
  }

  /// Columns aligned under a header, two spaces apart; cells shown, never obeyed.
  static func table(_ rows: (header: [String], cells: [[String]])) -> String {
    let lines = [rows.header] + rows.cells.map { $0.map(TerminalText.visible) }
    var widths = [Int](repeating: 0, count: rows.header.count)
    for line in lines { for (index, text) in line.enumerated() { widths[index] = max(widths[index], text.count) } }
    return lines.map { line in
      line.enumerated().map { index, text in
        index == line.count - 1 ? text : text + String(repeating: " ", count: widths[index] - text.count)
      }.joined(separator: "  ")
    }.joined(separator: "\n")
  }

  /// Writes a line as it is (JSON, or text this program made); `emitShown` for text from
  /// outside.
  /// The pager for text taller than the terminal (the interactive shell's; `nil`: none).
  var pager: Pager?

  /// Writes `text`, through the pager when there is one and the text is taller than the
  /// terminal; a pager that cannot show it leaves it printed here, with why.
  func emitPaged(_ text: String) {
    guard captured == nil, let pager, let rows = Pager.terminalRows(), Pager.isTaller(text, than: rows) else {
      return emit(text)
    }
    guard let problem = pager.show(text) else { return }
    emit(text)
    writeError(problem, place: nil)
  }

  func emit(_ text: String) {
    if captured != nil {
      captured?.append(text)
      return
    }
    StandardStreams.out(text + "\n")
  }

  /// What `emit` writes while capturing (`watch` compares one run's output with the last).
  private var captured: [String]?

  /// Runs `body`, keeping what it writes to standard output instead of writing it; returns it.
  func capturing(withoutColor: Bool = false, _ body: () -> Void) -> String {
    let outer = captured
    let wasColored = color
    if withoutColor { color = false }
    captured = []
    body()
    let text = (captured ?? []).joined(separator: "\n")
    captured = outer
    color = wasColored
    return text
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
