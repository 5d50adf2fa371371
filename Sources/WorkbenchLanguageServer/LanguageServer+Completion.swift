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

/// Completion: step keys, commands, arguments, parameters, includes and frame fields.
extension LanguageServer {
  // MARK: Completion

  /// What fits where the cursor is: a window's commands after `NAME: ` in a step, a screen's
  /// frame fields inside an expectation of that window.
  func completions(
    in lines: [String], at position: (line: Int, character: Int), uri: String = "file:///untitled.yaml"
  ) -> [FrameValue] {
    guard position.line < lines.count else { return [] }
    let prefix = Self.prefix(of: lines[position.line], utf16: position.character)
    // `ste` at the start of a line: a key of the scenario format (a flow's in a flow file);
    // `  - ex` at the start of a step: a kind of step, or a window of the file.
    if let typed = Self.keyPrefix(prefix) {
      let isFlow = outline(lines, uri: uri).document(holding: position.line + 1)?.isFlow ?? false
      let keys = isFlow ? ScenarioLoader.flowKeys : ScenarioLoader.scenarioKeys
      return keys.filter { $0.hasPrefix(typed) }.map { key in
        ["label": .string(key), "kind": 14, "insertText": .string(key + ": "), "detail": "a key of the file"]
      }
    }
    if let typed = Self.stepKeyPrefix(prefix) {
      let windows = self.windows(in: lines, uri: uri, line: position.line).keys.sorted()
      return (ScenarioLoader.stepKinds + windows).filter { $0.hasPrefix(typed) }.map { key in
        [
          "label": .string(key), "kind": 14, "insertText": .string(key + ": "),
          "detail": .string(ScenarioLoader.stepKinds.contains(key) ? "a kind of step" : "a command in this window"),
        ]
      }
    }
    // `${que`: a parameter the text can use here (a flow's, an example row's, `iteration`).
    if let typed = Self.parameterPrefix(prefix) {
      return outline(lines, uri: uri).parameters(at: position.line + 1).map(\.name).filter { $0.hasPrefix(typed) }.map {
        name in
        ["label": .string(name), "kind": 6, "detail": "a parameter"]
      }
    }
    // `- include: flo`: the scenario files beside this one.
    if let typed = Self.includePrefix(prefix) {
      return Self.includableFiles(from: Self.path(of: uri)).filter { $0.hasPrefix(typed) }.map { file in
        ["label": .string(file), "kind": 17, "detail": "a file to include"]
      }
    }
    // `  with: {bo`: a parameter of the flow the step above includes, not given yet.
    if let typed = Self.withPrefix(prefix), let flow = includedFile(at: position.line, in: lines, uri: uri),
      let bytes = try? FileSystem.read(flow)
    {
      let given = Set(
        prefix.split(whereSeparator: { "{, ".contains($0) }).compactMap { part in
          part.firstIndex(of: ":").map { String(part[..<$0]) }
        })
      let declared = loader.loadKeepingShape(bytes: bytes, path: flow).outline.documents.first?.parameters ?? []
      return declared.map(\.name).filter { $0.hasPrefix(typed) && !given.contains($0) }
        .map { name in ["label": .string(name), "kind": 6, "detail": .string("a parameter of \(flow)")] }
    }
    let windows = self.windows(in: lines, uri: uri, line: position.line).mapValues(\.screen)
    // `  - left: que`, `  - do: cl`, `  - left: sort ti`: what the word being typed is, as the
    // resolver reads the command as far as it goes, on the windows the file has open there: a
    // command's name, a subcommand, or one of its arguments (nothing inside an open quote).
    if var step = Self.stepText(prefix) {
      // After `- do: `, a command of a window is written `@WINDOW COMMAND`, quoted (`@` cannot
      // start a plain YAML value): `- do: '@left sel` completes as `- left: sel` does, and
      // `@le` (quoted or not) completes to the windows the file has open there.
      var quoted = false
      if step.window == "do", let first = step.text.first, first == "'" || first == "\"" {
        quoted = true
        step.text.removeFirst()
      }
      let inWindow = step.window == "do" ? nil : step.window
      guard inWindow == nil || inWindow.flatMap({ windows[$0] }) != nil else { return [] }
      var planned = PlannedWindows()
      for (name, shows) in windows.sorted(by: { $0.key < $1.key }) { planned.open(name, screen: shows) }
      planned.current = inWindow.flatMap { planned.findWindow(named: $0) }
      let resolver = CommandResolver(registry: registry)
      let partial = resolver.partial(step.text, in: planned, window: inWindow)
      // The window the command runs in: the step's, or the one its `@WINDOW` names.
      let screen = partial.window?.screen ?? inWindow.flatMap { windows[$0] }
      let windowItems = {
        Self.windowItems(
          resolver.completions(for: step.text.isEmpty ? "@" : step.text, in: planned), windows: windows,
          replacing: step.text, line: position.line, cursor: position.character, quoted: quoted)
      }
      switch partial.place {
      case .nothing:
        return []
      case .window:
        return inWindow == nil ? windowItems() : []
      case .command:
        // The resolver's completion, on the windows as the steps before the cursor leave them:
        // what a session without the shell offers there (the shell's own commands, `quit`,
        // `record`, are not among them: `check` refuses them), and nothing `check` would refuse.
        var names =
          resolverCompletions(in: lines, line: position.line, uri: uri, window: step.window, step.text)
          ?? registry.router.names(forScreen: screen).filter { name in
            name.hasPrefix(partial.typing) && (!name.contains(".") || partial.typing.contains("."))
          }
        if inWindow == nil, partial.window == nil {
          // A host step (`do:`) runs what needs no window, and a module's command named with
          // its module (`catalog.select`): a window's own command is refused there.
          let runnable = Set(registry.router.names(forScreen: nil))
          names = names.filter(runnable.contains)
          if !partial.typing.contains(".") {
            let modules = Set(runnable.compactMap { name in name.firstIndex(of: ".").map { String(name[..<$0]) } })
            names += modules.sorted().map { $0 + "." }.filter { $0.hasPrefix(partial.typing) && !names.contains($0) }
          } else {
            names += runnable.filter { $0.hasPrefix(partial.typing) && !names.contains($0) }.sorted()
          }
        }
        let commands: [FrameValue] = names.map { name in
          [
            "label": .string(name), "kind": 2,
            "detail": .string(screen.map { "a command in a \($0) window" } ?? "a command"),
          ]
        }
        // Nothing typed after `- do: `: a window's commands run there as `@WINDOW COMMAND`.
        guard inWindow == nil, step.text.isEmpty else { return commands }
        return commands + windowItems()
      case .subcommand(let command):
        return command.spec.subcommands.filter { $0.name.hasPrefix(partial.typing) }.map {
          ["label": .string($0.name), "kind": 2, "detail": .string($0.summary)]
        }
      case .argument(let command, let index, let before):
        guard let argument = partial.argument else { return [] }
        if case .reference = argument.kind {
          return identifiers(in: lines, line: position.line, uri: uri, window: step.window, text: step.text)
        }
        if let names = resolverCompletions(in: lines, line: position.line, uri: uri, window: step.window, step.text) {
          return names.map { ["label": .string($0), "kind": 12, "detail": .string(argument.name)] }
        }
        // Without a session (the file does not run that far): what the specs and the file say.
        var values = resolver.completions(of: partial, in: planned)
        if case .document = argument.kind {
          // After a screen, only the samples of the kind it shows (and the file's own documents).
          let shown = zip(command.spec.arguments.prefix(index), before).first { pair in
            if case .screen = pair.0.kind { return true } else { return false }
          }.flatMap { registry.screen(named: $0.1)?.documentKind }
          values =
            ((outline(lines, uri: uri).document(holding: position.line + 1)?.documents.map(\.name) ?? [])
            + registry.sampleDocuments.filter { shown == nil || $0.kind == shown }.map(\.name))
            .filter { $0.hasPrefix(partial.typing) }
        }
        return values.map { value in
          ["label": .string(value), "kind": 12, "detail": .string(argument.name)]
        }
      }
    }
    // `      left: {sta` or `      left: {query: x, sta`: a field of the window's frame.
    // `      left: {viewport: {anc`: a field inside a field, from the screen's field schema (a
    // typed frame's table, or a module process's `recordFields`), or else from the window's frame
    // as the steps before leave it (a module process that declares only its top-level fields).
    if let nested = Self.nestedFieldPrefix(prefix), isInExpectation(lines, uri: uri, line: position.line),
      let screen = windows[nested.window]
    {
      let place = nested.path.joined(separator: ".")
      if let fields = registry.nestedFields(ofScreen: screen, at: nested.path) {
        return fields.filter { $0.name.hasPrefix(nested.typed) }.map { field in
          Self.fieldItem(field.name, detail: field.summary.isEmpty ? "a field of \(place)" : field.summary)
        }
      }
      var value = liveSession(in: lines, line: position.line, uri: uri)?.host.window(named: nested.window)?.frame
      for key in nested.path { value = value?[key] }
      if case .list(let items)? = value { value = items.first }
      guard case .object(let object)? = value else { return [] }
      return object.members.map(\.key).filter { $0.hasPrefix(nested.typed) }.map { name in
        Self.fieldItem(name, detail: "a field of \(place)")
      }
    }
    if let field = Self.flowFieldPrefix(prefix), isInExpectation(lines, uri: uri, line: position.line) {
      guard let screen = windows[field.window], let fields = registry.frameFields(ofScreen: screen) else {
        return []
      }
      return fields.filter { $0.hasPrefix(field.typed) }.map { name in
        Self.fieldItem(name, detail: "a field of \(screen) frames")
      }
    }
    return []
  }

  /// The windows open at a `- do: ` step, as the resolver offers them after `@` (`labels`:
  /// `@left`), for `typed` (nothing, or `@` and the start of a name). Unquoted, taking one
  /// turns the step into the window's own (`- do: @le` becomes `- left: `, as `@` cannot start
  /// a plain YAML value); inside quotes it writes `@left `.
  static func windowItems(
    _ labels: [String], windows: [String: String], replacing typed: String, line: Int, cursor: Int, quoted: Bool
  ) -> [FrameValue] {
    // The text the item replaces: `@le` inside the quotes, or all of `do: @le` without them.
    let replaced = typed.utf16.count + (quoted ? 0 : "do: ".utf16.count)
    let range: FrameValue = [
      "start": ["line": .integer(line), "character": .integer(max(0, cursor - replaced))],
      "end": ["line": .integer(line), "character": .integer(cursor)],
    ]
    // By the names the file gives its windows (not also by their numbers).
    return labels.compactMap { label in
      let name = CommandToken.bareWindowReference(label)
      guard let shows = windows[name] else { return nil }
      return [
        "label": .string(label), "kind": 6,
        "detail": .string("window \(name) (\(shows)): run a command there" + (quoted ? "" : ", as `- \(name): `")),
        "filterText": .string(quoted ? label : "do: " + label),
        "textEdit": ["range": range, "newText": .string(quoted ? label + " " : name + ": ")],
      ]
    }
  }

  /// A field's completion: its name as the label, and as the key YAML reads back as that name
  /// where the two differ (a module's field named `a: b` or `#c` goes in quoted).
  static func fieldItem(_ name: String, detail: String) -> FrameValue {
    let key = YAMLWriter.key(name)
    guard key != name else { return ["label": .string(name), "kind": 5, "detail": .string(detail)] }
    return ["label": .string(name), "kind": 5, "detail": .string(detail), "insertText": .string(key)]
  }

  /// What the resolver completes for the command `text` (its last word being typed) in `window`
  /// (`do`: a step in no window), on the session the steps before `line` leave; `nil` when the
  /// file cannot be run that far (it is mid-edit), where the spec-only completion stands in.
  func resolverCompletions(in lines: [String], line: Int, uri: String, window: String, _ text: String)
    -> [String]?
  {
    guard let session = liveSession(in: lines, line: line, uri: uri) else { return nil }
    if window != "do", session.host.window(named: window) == nil { return nil }
    return session.host.completions(for: text, in: window == "do" ? nil : window)
  }

  /// The identifiers an argument takes (a book's id), with what each names (its title): read
  /// from the window as the steps before the line leave it, run as `run FILE:LINE --shell` runs
  /// them, so the documents the scenario declares or loads, and what its steps did to them,
  /// are what is offered.
  func identifiers(in lines: [String], line: Int, uri: String, window: String, text: String) -> [FrameValue] {
    guard let session = liveSession(in: lines, line: line, uri: uri) else { return [] }
    let host = session.host
    let inWindow = window == "do" ? nil : window
    let candidates = host.completions(for: text, in: inWindow)
    let labels = host.completionLabels(for: text, candidates: candidates, in: inWindow)
    let width = String(candidates.count).count
    return candidates.enumerated().map { index, candidate in
      let order = String(index)
      var members: [(key: String, value: FrameValue)] = [
        ("label", .string(candidate)), ("kind", 12),
        ("sortText", .string(String(repeating: "0", count: width - order.count) + order)),
      ]
      if let label = labels[candidate] { members.append(("detail", .string(label))) }
      return .object(FrameObject(members: members))
    }
  }

  // MARK: Parameters and includes

  /// A partial key at the very start of a line (`ste`): what is typed.
  static func keyPrefix(_ prefix: Substring) -> String? {
    guard let first = prefix.first, first.isLetter, isName(prefix) else { return nil }
    return String(prefix)
  }

  /// `  - part` (the cursor in a step's first key, before its colon): what is typed.
  static func stepKeyPrefix(_ prefix: Substring) -> String? {
    let rest = prefix.drop { $0 == " " }
    guard rest.first == "-", rest.dropFirst().first == " " else { return nil }
    let typed = rest.dropFirst().drop { $0 == " " }
    guard typed.isEmpty || isName(typed) else { return nil }
    return String(typed)
  }

  /// `...${part` at the cursor: what is typed of a parameter's name.
  static func parameterPrefix(_ prefix: Substring) -> String? {
    guard let dollar = prefix.lastIndex(of: "$"), prefix[dollar...].hasPrefix("${") else { return nil }
    let typed = prefix[prefix.index(dollar, offsetBy: 2)...]
    guard typed.isEmpty || isName(typed) else { return nil }
    return String(typed)
  }

  /// `  - include: part` at the cursor: what is typed of the path.
  static func includePrefix(_ prefix: Substring) -> String? {
    let rest = prefix.drop { $0 == " " || $0 == "-" }
    guard rest.hasPrefix("include:") else { return nil }
    let path = rest.dropFirst("include:".count).drop { $0 == " " }
    guard !path.contains(" ") else { return nil }
    return String(path)
  }

  /// `  with: {name: x, part` at the cursor: what is typed of the next key.
  static func withPrefix(_ prefix: Substring) -> String? {
    let rest = prefix.drop { $0 == " " }
    guard rest.hasPrefix("with:"), let brace = rest.firstIndex(of: "{") else { return nil }
    let last = rest[rest.index(after: brace)...].split(separator: ",", omittingEmptySubsequences: false).last ?? ""
    let typed = last.drop { $0 == " " }
    guard !typed.contains(":"), typed.isEmpty || isName(typed) else { return nil }
    return String(typed)
  }

  /// Every `include:` of `target` in the scenario files beside the open file (the open file as
  /// the editor has it; the others as YAML, nothing loaded): the references of an included file.
  func includes(of target: String, from uri: String, lines: [String]) -> [FrameValue] {
    let path = Self.path(of: uri)
    let folder = FileSystem.folder(of: path)
    var places: [FrameValue] = []
    let files = [path] + Self.includableFiles(from: path).map { folder + "/" + $0 }
    for file in files {
      let steps: [ScenarioOutline.StepPlace]
      var text = lines
      if file == path {
        steps = outline(lines, uri: uri).allSteps
      } else {
        guard let bytes = try? FileSystem.read(file) else { continue }
        steps = ScenarioOutline(bytes: bytes, path: file).allSteps
        text = Self.lines(String(decoding: bytes, as: UTF8.self))
      }
      for step in steps where step.key == "include" {
        guard let named = step.text, Self.resolve(named, from: "file://" + file) == target else { continue }
        places.append([
          "uri": .string("file://" + file),
          "range": Self.range(in: text, line: step.keyLocation.line - 1, column: step.keyLocation.column),
        ])
      }
    }
    return places
  }

  /// The file the include step holding `line` (0-based) names, as a path: anywhere in the step
  /// (its `with:` too), or `onItsKey` only on the line of its `include:`.
  func includedFile(at line: Int, in lines: [String], uri: String, onItsKey: Bool = false) -> String? {
    guard let step = outline(lines, uri: uri).steps(holding: line + 1).last, step.key == "include",
      !onItsKey || step.keyLocation.line == line + 1, let named = step.text, !named.isEmpty
    else { return nil }
    return Self.resolve(named, from: uri)
  }

  /// A path a file names (`include:`, `file:`), relative to the file at `uri`, made whole.
  static func resolve(_ named: String, from uri: String) -> String {
    FileSystem.resolve(named, from: FileSystem.folder(of: path(of: uri)))
  }

  /// The scenario files under the folder of `path` (four levels deep, snapshot and data folders
  /// left out), relative to it, the file itself excepted: what an `include:` can name.
  static func includableFiles(from path: String) -> [String] {
    let folder = FileSystem.folder(of: path)
    guard FileSystem.isDirectory(folder) else { return [] }
    // Four levels down at most, 2,000 files at most: a scenario in a home folder does not walk it.
    let files = FileSystem.walk(folder, maximumDepth: 4, limit: 2_000).files.filter { file in
      (file.hasSuffix(".yaml") || file.hasSuffix(".yml")) && file != path && !file.contains("/__snapshots__/")
        && !file.contains("/data/")
    }
    return files.map { String($0.dropFirst(folder.count + 1)) }.sorted()
  }

  /// The session as the steps before `line` leave it, run as `run FILE:LINE --shell` runs them
  /// (kept while the lines above the step being typed stay the same, as they do while a word is
  /// typed).
  func liveSession(in lines: [String], line: Int, uri: String) -> WorkbenchSession? {
    // The file as the loader read it (a step with a problem left out, as a step being typed
    // often is), not an earlier text's: its steps are where this text has them.
    let loaded = loaded(lines, uri: uri)
    guard !loaded.isStale, let file = loaded.file,
      let scenario = file.scenarios.last(where: { $0.location.line <= line + 1 })
    else { return nil }
    // The steps written above the step the cursor is in (the outermost, for a repeat's): the
    // step being typed changes nothing yet, even when it already reads as a whole step.
    let above = outline(lines, uri: uri).steps(holding: line + 1).first.map { $0.location.line - 1 } ?? line
    let count = ScenarioRunner.stepCount(reaching: above, of: loaded.path, in: scenario)
    let key = CompletionSessionKey(
      path: loaded.path, scenario: scenario.location.line, steps: count, lines: lines.prefix(above))
    if let kept = completionSession, kept.key == key { return kept.session }
    guard let opened = try? ScenarioRunner(registry: registry).open(scenario, steps: count) else { return nil }
    completionSession?.session.end()
    completionSession = (key, opened.session)
    return opened.session
  }

  /// `      NAME: {key: {part` (the cursor inside a field's own `{...}`): the window, the path
  /// of fields down to where the cursor is, and what is typed.
  static func nestedFieldPrefix(_ prefix: Substring) -> (window: String, path: [String], typed: String)? {
    let rest = prefix.drop { $0 == " " }
    guard let colon = rest.firstIndex(of: ":"), isName(rest[..<colon]) else { return nil }
    var path: [String] = []
    var key = ""
    var lastKey = ""
    var depth = 0
    for character in rest[rest.index(after: colon)...] {
      switch character {
      case "{":
        if depth > 0 { path.append(lastKey) }
        depth += 1
        key = ""
      case "}":
        depth -= 1
        if depth > 0, !path.isEmpty { path.removeLast() }
        key = ""
      case ",":
        key = ""
        lastKey = ""
      case ":":
        lastKey = String(key.filter { $0 != " " })
        key = ""
      default: key.append(character)
      }
      if depth < 0 { return nil }
    }
    let typed = key.drop { $0 == " " }
    guard depth >= 2, !path.isEmpty, typed.isEmpty || isName(typed) else { return nil }
    return (String(rest[..<colon]), path, String(typed))
  }

  /// A word of names: letters, digits and `_.-`.
  static func isName<S: StringProtocol>(_ text: S) -> Bool {
    !text.isEmpty
      && text.unicodeScalars.allSatisfy {
        $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0)
      }
  }

  /// `  - NAME: COMMAND...` (the cursor in a step's command): the step's window (`do` for none)
  /// and the command's text as typed up to the cursor, which the resolver reads as far as it goes.
  static func stepText(_ prefix: Substring) -> (window: String, text: String)? {
    let rest = prefix.drop { $0 == " " }
    guard rest.first == "-", rest.dropFirst().first == " " else { return nil }
    let item = rest.dropFirst().drop { $0 == " " }
    guard let colon = item.firstIndex(of: ":"), isName(item[..<colon]) else { return nil }
    let line = item[item.index(after: colon)...]
    guard line.first == " " else { return nil }
    return (String(item[..<colon]), String(line.dropFirst()))
  }

  /// `      NAME: {field: x, part` (the cursor on a key of a flow mapping): the window and what
  /// is typed of the key.
  static func flowFieldPrefix(_ prefix: Substring) -> (window: String, typed: String)? {
    let rest = prefix.drop { $0 == " " }
    guard let colon = rest.firstIndex(of: ":"), isName(rest[..<colon]) else { return nil }
    let value = rest[rest.index(after: colon)...].drop { $0 == " " }
    guard value.first == "{", !value.contains("}") else { return nil }
    let lastItem = value.split(separator: ",", omittingEmptySubsequences: false).last ?? value
    let typed = lastItem.drop { $0 == "{" || $0 == " " }
    guard typed.isEmpty || isName(typed) else { return nil }
    return (String(rest[..<colon]), String(typed))
  }
}

/// What a completion session was run from: kept while it stays the same.
struct CompletionSessionKey: Equatable {
  var path: String
  /// The scenario's line, and how many of its steps ran.
  var scenario: Int
  var steps: Int
  /// The lines above the step being typed (the same array while nothing above it is edited,
  /// compared at once).
  var lines: ArraySlice<String>
}
