import WorkbenchCore
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchSession
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Hover, go to definition, references and document symbols.
extension LanguageServer {
  // MARK: Hover, definition, symbols

  /// The word under the cursor, with where it starts and ends (in UTF-16 units).
  static func word(in line: String, at character: Int) -> (text: String, start: Int, end: Int)? {
    let units = Array(line.utf16)
    func isWord(_ unit: UInt16) -> Bool {
      guard let scalar = Unicode.Scalar(unit) else { return false }
      return scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-.".unicodeScalars.contains(scalar)
    }
    var start = min(character, units.count)
    var end = start
    while start > 0, isWord(units[start - 1]) { start -= 1 }
    while end < units.count, isWord(units[end]) { end += 1 }
    guard start < end else { return nil }
    return (String(decoding: units[start..<end], as: UTF16.self), start, end)
  }

  /// What the word under the cursor is: a command (its help, as `help COMMAND` gives it in the
  /// window it runs in), a window (its screen and document), a field of a window's frames.
  func hover(in lines: [String], at position: (line: Int, character: Int), uri: String = "file:///untitled.yaml")
    -> String?
  {
    guard position.line < lines.count, let word = Self.word(in: lines[position.line], at: position.character) else {
      return nil
    }
    // A command's name, as the loader resolved it where its step runs (after `@NAME` too).
    if let (_, command) = self.command(in: lines, uri: uri, at: position), let resolution = command.resolution,
      let name = command.tokens.windowPrefix.rest.first,
      command.location(of: name).column
        == Self.prefix(of: lines[position.line], utf16: word.start).unicodeScalars.count + 1
    {
      let window = resolution.window.flatMap { label in resolution.screen.map { (label, $0) } }
      return try? CommandHelp(registry: registry).text(for: name.text, in: window)
    }
    let line = lines[position.line]
    let windows = self.windows(in: lines, uri: uri, line: position.line)
    if let window = windows[word.text] {
      return "window \(word.text): a \(window.screen) window"
        + (registry.screen(named: window.screen).map { " on a \($0.documentKind) document" } ?? "")
    }
    // A field of a window's expectation, where the word is a key and not a value spelt like one:
    // inside a field (`left: {viewport: {anchor: 3}}`, a list's records too), from the screen's
    // field schema (a typed frame's, or a module process's `recordFields`); at the top
    // (`left: {query: ...}`), from the screen's own fields.
    guard Self.isKey(in: line, before: word.start), Self.isInExpectation(lines, line: position.line) else { return nil }
    if let nested = Self.nestedFieldPrefix(Self.prefix(of: line, utf16: word.end)), nested.typed == word.text {
      guard let screen = windows[nested.window]?.screen,
        let field = registry.nestedFields(ofScreen: screen, at: nested.path)?.first(where: { $0.name == word.text })
      else { return nil }
      let meaning = field.summary.isEmpty ? "" : ": \(field.summary)"
      return "\(word.text)\(meaning) (a field of \(nested.path.joined(separator: ".")) in \(screen) frames)"
    }
    if let match = line.firstMatch(of: /([A-Za-z0-9_.-]+):\s*\{/), let screen = windows[String(match.1)]?.screen,
      registry.frameFields(ofScreen: screen)?.contains(word.text) == true
    {
      let meaning = registry.summary(ofField: word.text, ofScreen: screen).map { ": \($0)" } ?? ""
      return "\(word.text)\(meaning) (a field of \(screen) frames)"
    }
    return nil
  }

  /// Whether the word starting at UTF-16 offset `start` of `line` stands where a key of a flow
  /// mapping does: first in its braces or after a comma.
  static func isKey(in line: String, before start: Int) -> Bool {
    let blank: Set<UInt16> = [0x20, 0x09]
    let before = line.utf16.prefix(start).last { !blank.contains($0) }
    return before == UInt16(UInt8(ascii: "{")) || before == UInt16(UInt8(ascii: ","))
  }

  /// Where the window under the cursor is declared (under `windows:`, or the step that opens
  /// it), or the file an `include:` names.
  func definition(in lines: [String], at position: (line: Int, character: Int), uri: String) -> FrameValue? {
    guard position.line < lines.count else { return nil }
    let line = lines[position.line]
    // `file: data/x.json` under a document: the data file.
    if let data = line.firstMatch(of: /\bfile:\s*([^\s#]+)/) {
      return [
        "uri": .string("file://" + Self.resolve(String(data.1), from: uri)),
        "range": Self.range(in: [], line: 0, column: 1),
      ]
    }
    if let include = line.wholeMatch(of: /\s*-?\s*include:\s+(\S+)\s*/) {
      return [
        "uri": .string("file://" + Self.resolve(String(include.1), from: uri)),
        "range": Self.range(in: [], line: 0, column: 1),
      ]
    }
    // `${name}`: where the parameter is defined (the flow's `params:`, the first example row that
    // gives it, the `repeat:` for `iteration`).
    if let word = Self.word(in: line, at: position.character), word.start >= 2,
      Array(line.utf16).dropFirst(word.start - 2).prefix(2).elementsEqual("${".utf16),
      let defined = Self.parameters(in: lines, line: position.line).first(where: { $0.name == word.text })
    {
      return ["uri": .string(uri), "range": Self.range(in: lines, line: defined.line, column: defined.column + 1)]
    }
    // A window: where the scenario declares it, or the step that first opens it.
    guard let word = Self.word(in: line, at: position.character),
      let window = windows(in: lines, uri: uri, line: position.line)[word.text],
      window.location.file == Self.path(of: uri)
    else { return nil }
    return [
      "uri": .string(uri),
      "range": Self.range(in: lines, line: window.location.line - 1, column: window.location.column),
    ]
  }

  /// Every place the window under the cursor is named: where it is declared or opened, the
  /// steps run in it (`- left: ...`), the expectations on it (`left: {...}`) and `@left`.
  func references(in lines: [String], at position: (line: Int, character: Int), uri: String) -> [FrameValue] {
    if position.line < lines.count, let included = Self.includePath(in: lines[position.line], uri: uri) {
      return includes(of: included, from: uri, lines: lines)
    }
    guard position.line < lines.count, let word = Self.word(in: lines[position.line], at: position.character),
      windows(in: lines, uri: uri, line: position.line)[word.text] != nil
    else { return [] }
    var places: [FrameValue] = []
    for (index, line) in lines.enumerated() {
      let units = Array(line.utf16)
      let name = Array(word.text.utf16)
      var start = 0
      while start + name.count <= units.count {
        defer { start += 1 }
        guard Array(units[start..<(start + name.count)]) == name else { continue }
        // A whole word: not part of a longer name.
        let before = start == 0 ? nil : Unicode.Scalar(units[start - 1])
        let after = start + name.count < units.count ? Unicode.Scalar(units[start + name.count]) : nil
        let boundary = { (scalar: Unicode.Scalar?) in
          scalar.map { !($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0)) }
            ?? true
        }
        guard boundary(before), boundary(after) else { continue }
        places.append([
          "uri": .string(uri),
          "range": [
            "start": ["line": .integer(index), "character": .integer(start)],
            "end": ["line": .integer(index), "character": .integer(start + name.count)],
          ],
        ])
      }
    }
    return places
  }

  /// Each scenario of the file (its `scenario:` line) with its steps (the items of `steps:`).
  static func symbols(in lines: [String]) -> [FrameValue] {
    var symbols: [FrameValue] = []
    var current: (name: String, line: Int, steps: [FrameValue])?
    var stepIndent: Int?
    func close(until end: Int) {
      guard let scenario = current else { return }
      let range: FrameValue = [
        "start": ["line": .integer(scenario.line), "character": 0],
        "end": ["line": .integer(max(scenario.line, end)), "character": 0],
      ]
      symbols.append([
        "name": .string(scenario.name), "kind": 5, "range": range, "selectionRange": range,
        "children": .list(scenario.steps),
      ])
      current = nil
    }
    for (index, line) in lines.enumerated() {
      if let match = line.wholeMatch(of: /(?:scenario|flow):\s*(.*)/) {
        close(until: index - 1)
        let name = match.1.trimmingPrefix(while: { $0 == "'" || $0 == "\"" })
        current = (String(name.reversed().drop { $0 == "'" || $0 == "\"" || $0 == " " }.reversed()), index, [])
        stepIndent = nil
      } else if line.hasPrefix("steps:") {
        stepIndent = -1
      } else if line.hasPrefix("---") {
        stepIndent = nil
      } else if let indent = stepIndent, let step = line.wholeMatch(of: /(\s*)-\s+(.+)/) {
        let own = step.1.count
        if indent == -1 { stepIndent = own }
        guard own == stepIndent else { continue }
        let range = Self.range(in: lines, line: index, column: own + 3)
        current?.steps.append([
          "name": .string(String(step.2)), "kind": 6, "range": range, "selectionRange": range,
        ])
      } else if !line.hasPrefix(" "), !line.isEmpty, !line.hasPrefix("#") {
        stepIndent = nil
      }
    }
    close(until: lines.count - 1)
    return symbols
  }
}
