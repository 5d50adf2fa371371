import WorkbenchCore
import WorkbenchModuleAPI
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
    let line = lines[position.line]
    let windows = self.windows(in: lines, uri: uri, line: position.line)
    func windowText(_ name: String) -> String? {
      guard let window = windows[name] else { return nil }
      return "window \(name): a \(window.screen) window"
        + (registry.screen(named: window.screen).map { " on a \($0.documentKind) document" } ?? "")
    }
    // Inside a command, the word is what the loader's reading of the command says it is: its
    // name (its help, in the window it runs in), its `@WINDOW`, or one of its arguments (a window
    // only where the argument takes one: `query left` is a query).
    let wordColumn = Self.prefix(of: line, utf16: word.start).unicodeScalars.count + 1
    if let (_, command) = self.command(in: lines, uri: uri, at: position), let resolved = command.resolved {
      let column = wordColumn - command.lineStart.column + 1
      if resolved.commandToken.column == column || resolved.nameToken.column == column {
        let window = resolved.window.map { ($0.label, $0.screen) }
        // A subcommand's help is its command's, which lists it.
        return try? CommandHelp(registry: registry).text(for: resolved.path[0], in: window)
      }
      if let at = resolved.targetColumn, at == column - 1 || at == column, case .label(let label) = resolved.target {
        return windowText(label)
      }
      let argument =
        command.resolution?.command.argument(atColumn: column)
        ?? resolved.wordsByArgument.first { column >= $0.word.column && column < $0.word.column + $0.word.text.count }
      guard let (spec, given) = argument else { return nil }
      // An argument that takes a window, or names the window the command opens (`open ... side`).
      let namesWindow: Bool
      switch (spec.kind, resolved.spec.windowEffect) {
      case (.window, _), (.windowOr, _): namesWindow = true
      case (_, .opens(_, let name)?), (_, .opensFrom(_, let name)?): namesWindow = name == spec.name
      default: namesWindow = false
      }
      if namesWindow, let text = windowText(CommandToken.bareWindowReference(given.text)) { return text }
      let help = spec.help.isEmpty ? "" : ": \(spec.help)"
      return "\(spec.name.uppercased())\(help) (an argument of `\(resolved.spec.usage)`)"
    }
    if let text = windowText(word.text) { return text }
    // A field of a window's expectation, where the word is a key as YAML read it (not a value
    // spelt like one): inside a field (`left: {viewport: {anchor: 3}}`, a list's records too),
    // from the screen's field schema (a typed frame's, or a module process's `recordFields`); at
    // the top (`left: {query: ...}`), from the screen's own fields.
    let column = wordColumn
    guard let step = outline(lines, uri: uri).steps(holding: position.line + 1).last,
      let field = step.expectedField(line: position.line + 1, column: column), field.key == word.text,
      let screen = windows[field.window]?.screen
    else { return nil }
    if field.path.isEmpty {
      guard registry.frameFields(ofScreen: screen)?.contains(field.key) == true else { return nil }
      let meaning = registry.summary(ofField: field.key, ofScreen: screen).map { ": \($0)" } ?? ""
      return "\(field.key)\(meaning) (a field of \(screen) frames)"
    }
    guard let nested = registry.nestedFields(ofScreen: screen, at: field.path)?.first(where: { $0.name == field.key })
    else { return nil }
    let meaning = nested.summary.isEmpty ? "" : ": \(nested.summary)"
    return "\(field.key)\(meaning) (a field of \(field.path.joined(separator: ".")) in \(screen) frames)"
  }

  /// Where the window under the cursor is declared (under `windows:`, or the step that opens
  /// it), or the file an `include:` names.
  func definition(in lines: [String], at position: (line: Int, character: Int), uri: String) -> FrameValue? {
    guard position.line < lines.count else { return nil }
    let line = lines[position.line]
    // `file: data/x.json` under a document: the data file; `include: flow.yaml`: the flow.
    let data = outline(lines, uri: uri).document(holding: position.line + 1)?.dataFiles.first {
      $0.location.line == position.line + 1
    }
    if let named = data.map({ Self.resolve($0.name, from: uri) })
      ?? includedFile(at: position.line, in: lines, uri: uri, onItsKey: true)
    {
      return ["uri": .string("file://" + named), "range": Self.range(in: [], line: 0, column: 1)]
    }
    // `${name}`: where the parameter is defined (the flow's `params:`, the first example row that
    // gives it, the `repeat:` for `iteration`).
    if let word = Self.word(in: line, at: position.character), word.start >= 2,
      Array(line.utf16).dropFirst(word.start - 2).prefix(2).elementsEqual("${".utf16),
      let defined = outline(lines, uri: uri).parameters(at: position.line + 1).first(where: { $0.name == word.text })
    {
      let place = defined.location
      return ["uri": .string(uri), "range": Self.range(in: lines, line: place.line - 1, column: place.column)]
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

  /// Every place the window under the cursor is named in its scenario, as the loader read the
  /// file: where it is declared or opened, the steps run in it (`- left: ...`), the expectations
  /// and snapshots on it, `@left` before a command, and a command's window argument
  /// (`focus left`). Another scenario's window of the same name, and the word in other text
  /// (`query left`), are not it.
  func references(in lines: [String], at position: (line: Int, character: Int), uri: String) -> [FrameValue] {
    if position.line < lines.count, let included = includedFile(at: position.line, in: lines, uri: uri, onItsKey: true)
    {
      return includes(of: included, from: uri, lines: lines)
    }
    guard position.line < lines.count, let word = Self.word(in: lines[position.line], at: position.character),
      let scenario = scenario(in: lines, uri: uri, line: position.line),
      scenario.declaredWindows.contains(where: { $0.name == word.text })
    else { return [] }
    let name = word.text
    let path = Self.path(of: uri)
    var places = scenario.declaredWindows.filter { $0.name == name }.map(\.location)
    func visit(_ steps: [ScenarioOutline.StepPlace]) {
      for step in steps {
        places += step.windows.filter { $0.name == name }.map(\.location)
        visit(step.steps)
      }
    }
    visit(outline(lines, uri: uri).document(holding: scenario.location.line)?.steps ?? [])
    for step in scenario.steps {
      for command in step.commands {
        guard let resolved = command.resolved else { continue }
        // `@left` in front of the command: the name after the `@`.
        if case .label(name) = resolved.target, let column = resolved.targetColumn {
          var place = command.location(of: CommandToken(text: "", column: column))
          place.column += 1
          places.append(place)
        }
        // Its arguments that take a window and name this one.
        for (argument, word) in resolved.wordsByArgument where !word.wasQuoted && word.text == name {
          switch argument.kind {
          case .window, .windowOr: places.append(command.location(of: word))
          default: continue
          }
        }
      }
    }
    // Each place once (a repeat's steps and each example row's scenario repeat them), in order.
    var seen: Set<SourceLocation> = []
    let unique = places.filter { $0.file == path && seen.insert($0).inserted }.sorted {
      ($0.line, $0.column) < ($1.line, $1.column)
    }
    return unique.map { place in
      let line = place.line - 1
      let text = line < lines.count ? Array(lines[line].unicodeScalars) : []
      let start = min(max(0, place.column - 1), text.count)
      let end = min(start + name.unicodeScalars.count, text.count)
      func utf16(_ count: Int) -> Int { text.prefix(count).reduce(0) { $0 + $1.utf16.count } }
      return [
        "uri": .string(uri),
        "range": [
          "start": ["line": .integer(line), "character": .integer(utf16(start))],
          "end": ["line": .integer(line), "character": .integer(utf16(end))],
        ],
      ]
    }
  }

  /// Each scenario and flow of the file (from its `scenario:` or `flow:` key to the next one's
  /// document), with its steps (the items of its `steps:`, each named by its text), from the
  /// loader's outline.
  func symbols(_ lines: [String], uri: String) -> [FrameValue] {
    let documents = outline(lines, uri: uri).documents
    let last = max(0, lines.count - 1)
    return documents.indices.compactMap { index in
      guard let name = documents[index].name else { return nil }
      let start = min(name.location.line - 1, last)
      let next = documents.dropFirst(index + 1).first { $0.name != nil }?.location.line
      let end = max(start, min(next.map { $0 - 2 } ?? last, last))
      let range: FrameValue = [
        "start": ["line": .integer(start), "character": 0], "end": ["line": .integer(end), "character": 0],
      ]
      let steps: [FrameValue] = documents[index].steps.compactMap { step in
        let line = step.location.line - 1
        guard line < lines.count else { return nil }
        let text = lines[line].unicodeScalars.dropFirst(step.location.column - 1)
        var name = String(String.UnicodeScalarView(text))
        while name.last == " " { name.removeLast() }
        let range = Self.range(in: lines, line: line, column: step.location.column)
        return ["name": .string(name), "kind": 6, "range": range, "selectionRange": range]
      }
      return [
        "name": .string(name.name), "kind": 5, "range": range, "selectionRange": range, "children": .list(steps),
      ]
    }
  }
}
