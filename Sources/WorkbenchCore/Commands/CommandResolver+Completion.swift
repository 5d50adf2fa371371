extension CommandResolver {
  /// The words that could complete the word being typed at the end of `line`.
  ///
  /// Completion follows the same specs and the same resolution as running: command names
  /// where a command goes, window labels after `@`, and each argument's own values (choices,
  /// windows, documents, screens, or the identifiers in the target window's document).
  public func completions(for line: String, in directory: some WindowDirectory) -> [String] {
    completionTarget(for: line, in: directory)?.candidates ?? []
  }

  /// What each candidate completing `line` names, for listing beside it: a book's title beside
  /// its id. Empty when the candidates are words that explain themselves (commands, windows).
  public func completionLabels(for line: String, candidates: [String], in directory: some WindowDirectory)
    -> [String: String]
  {
    guard let target = completionTarget(for: line, in: directory), case .reference(let source) = target.argument?.kind,
      let window = target.window, let model = directory.model(of: window.id)
    else { return [:] }
    var labels: [String: String] = [:]
    for candidate in candidates.prefix(1_000) {
      if let label = source.label(model, candidate) { labels[candidate] = label }
    }
    return labels
  }

  private func completionTarget(
    for line: String, in directory: some WindowDirectory
  ) -> (candidates: [String], argument: ArgumentSpec?, window: DirectoryWindow?)? {
    let commandText = line.split(separator: ";", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    var tokens =
      (try? CommandTokenizer.commands(in: commandText).last)
      ?? (try? CommandTokenizer.commands(in: commandText + "\"").last) ?? []
    let endsWithSpace = commandText.last.map { $0 == " " || $0 == "\t" } ?? true
    let partial = endsWithSpace ? "" : (tokens.popLast()?.text ?? "")
    var window = directory.focusedWindow
    let prefix = tokens.windowPrefix
    if let reference = prefix.window {
      window = directory.findWindow(named: reference)
      tokens = Array(prefix.rest)
    } else if tokens.isEmpty, CommandToken(text: partial, column: 1).windowReference != nil {
      return (directory.windowLabels.map { "@" + $0 }.filter { $0.hasPrefix(partial) }, nil, nil)
    }
    guard let nameToken = tokens.first else {
      // A qualified name is offered once a dot is typed (or with no window), and only where it
      // would run: its module's window is this one, or the only one of its kind that is open.
      let names = registry.router.names(forScreen: window?.screen).filter { name in
        guard name.hasPrefix(partial) else { return false }
        guard name.contains(".") else { return true }
        guard partial.contains(".") || window == nil else { return false }
        return (try? resolve([CommandToken(text: name, column: 1)], in: directory, window: window?.label)) != nil
      }
      return (names, nil, nil)
    }
    guard var resolved = try? resolve([nameToken], in: directory, window: window?.label) else { return nil }
    var position = tokens.count - 1
    if !resolved.spec.subcommands.isEmpty {
      // The first word picks a subcommand; the words after it are that subcommand's.
      guard position > 0, let sub = resolved.spec.subcommand(named: tokens[1].text) else {
        guard position == 0 else { return nil }
        return (resolved.spec.subcommands.map(\.name).filter { $0.hasPrefix(partial) }, nil, nil)
      }
      resolved = ResolvedCommand(
        spec: sub, module: resolved.module, window: resolved.window, nameToken: tokens[1], argumentTokens: [])
      position -= 1
    }
    guard position < resolved.spec.arguments.count else { return nil }
    let arguments = resolved.spec.arguments
    let words = tokens.dropFirst(tokens.count - position).map(\.text)
    let target = resolved.window ?? window
    let candidates = candidates(at: position, of: arguments, after: words, in: target, directory: directory)
    return (candidates.filter { $0.hasPrefix(partial) }, arguments[position], target)
  }

  /// What `arguments[position]` may be, as completion offers it, for a command in `window`
  /// whose arguments before it are `words`: a document after a screen is one of the documents
  /// that screen shows.
  public func candidates(
    at position: Int, of arguments: [ArgumentSpec], after words: [String], in window: DirectoryWindow?,
    directory: some WindowDirectory
  ) -> [String] {
    guard arguments.indices.contains(position) else { return [] }
    let screen = arguments.indices.first { index in
      if case .screen = arguments[index].kind { return index < position } else { return false }
    }.flatMap { words.indices.contains($0) ? registry.screenKind(named: words[$0]) : nil }
    return values(for: arguments[position], in: window, screen: screen, directory: directory)
  }

  private func values(
    for argument: ArgumentSpec, in window: DirectoryWindow?, screen: ScreenKind?, directory: some WindowDirectory
  ) -> [String] {
    switch argument.kind {
    case .choice(let words): return words
    case .window: return directory.windowLabels
    case .windowOr(let words): return directory.windowLabels + words
    case .document:
      let names = directory.knownDocumentNames
      guard let screen else { return names }
      return names.filter { directory.kindOfDocument(named: $0) == screen.documentKind }
    case .screen: return registry.screenKinds.keys.sorted()
    case .reference(let source):
      guard let window, let model = directory.model(of: window.id), let identifiers = source.identifiers(model)
      else { return [] }
      // Whole-number identifiers in numeric order (2 before 10).
      guard source.isInteger else { return identifiers }
      // Each read as a number once, not at every comparison; often already in order.
      let keyed = identifiers.map { (Int($0) ?? .max, $0) }
      if zip(keyed, keyed.dropFirst()).allSatisfy({ $0 <= $1 }) { return identifiers }
      return keyed.sorted { $0 < $1 }.map(\.1)
    case .duration: return ["100ms", "300ms", "1s", "2s", "10s", "1m"]
    case .integer, .word, .rest: return []
    }
  }
}
