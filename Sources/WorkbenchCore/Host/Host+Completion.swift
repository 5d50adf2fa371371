extension Host {
  /// The words that could complete the word being typed at the end of `line`.
  ///
  /// Completion follows the same specs as parsing: command names where a command goes,
  /// window labels after `@`, and each argument's own values (choices, windows, documents,
  /// screens, or the identifiers in the target window's document).
  public func completions(for line: String) -> [String] {
    completionTarget(for: line)?.candidates ?? []
  }

  /// What each candidate completing `line` names, for listing beside it: a book's title beside
  /// its id. Empty when the candidates are words that explain themselves (commands, windows).
  public func completionLabels(for line: String, candidates: [String]) -> [String: String] {
    guard let target = completionTarget(for: line), case .reference(let source) = target.argument?.kind,
      let model = target.window?.content.model
    else { return [:] }
    var labels: [String: String] = [:]
    for candidate in candidates.prefix(1_000) {
      if let label = source.label(model, candidate) { labels[candidate] = label }
    }
    return labels
  }

  private func completionTarget(
    for line: String
  ) -> (candidates: [String], argument: ArgumentSpec?, window: Window?)? {
    let commandText = line.split(separator: ";", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    var tokens =
      (try? CommandTokenizer.commands(in: commandText).last)
      ?? (try? CommandTokenizer.commands(in: commandText + "\"").last) ?? []
    let endsWithSpace = commandText.last.map { $0 == " " || $0 == "\t" } ?? true
    let partial = endsWithSpace ? "" : (tokens.popLast()?.text ?? "")
    var window = focusedWindow
    if let reference = tokens.windowPrefix.window {
      window = self.window(named: reference)
      tokens.removeFirst()
    } else if tokens.isEmpty, partial.hasPrefix("@") {
      return (windowLabels.map { "@" + $0 }.filter { $0.hasPrefix(partial) }, nil, nil)
    }
    guard let nameToken = tokens.first else {
      let names = router.names(forScreen: window?.screen.name).filter { name in
        name.hasPrefix(partial) && (!name.contains(".") || partial.contains(".") || window == nil)
      }
      return (names, nil, nil)
    }
    guard var resolved = try? resolve([nameToken]) else { return nil }
    var position = tokens.count - 1
    if !resolved.spec.subcommands.isEmpty {
      // The first word picks a subcommand; the words after it are that subcommand's.
      guard position > 0, let sub = resolved.spec.subcommand(named: tokens[1].text) else {
        guard position == 0 else { return nil }
        return (resolved.spec.subcommands.map(\.name).filter { $0.hasPrefix(partial) }, nil, nil)
      }
      resolved = ResolvedCommand(spec: sub, window: resolved.window, nameToken: tokens[1], argumentTokens: [])
      position -= 1
    }
    guard position < resolved.spec.arguments.count else { return nil }
    // A document after a screen: only the documents that screen shows.
    let arguments = resolved.spec.arguments
    let words = Array(tokens.dropFirst(tokens.count - position))
    let screen = arguments.indices.first { index in
      if case .screen = arguments[index].kind { return index < position } else { return false }
    }.flatMap { words.indices.contains($0) ? screenKinds[words[$0].text] : nil }
    let target = resolved.window ?? window
    let candidates = values(for: arguments[position], in: target, screen: screen)
    return (candidates.filter { $0.hasPrefix(partial) }, arguments[position], target)
  }

  private func values(for argument: ArgumentSpec, in window: Window?, screen: ScreenKind?) -> [String] {
    switch argument.kind {
    case .choice(let words): return words
    case .window: return windowLabels
    case .windowOr(let words): return windowLabels + words
    case .document:
      guard let screen else { return documentNames }
      return documentNames.filter { documents[$0]?.kind == screen.documentKind }
    case .screen: return screenKinds.keys.sorted()
    case .reference(let source):
      guard let model = window?.content.model, let identifiers = source.identifiers(model) else { return [] }
      // Whole-number identifiers in numeric order (2 before 10).
      guard source.isInteger else { return identifiers }
      return identifiers.sorted { (Int($0) ?? .max, $0) < (Int($1) ?? .max, $1) }
    case .integer, .word, .rest: return []
    }
  }
}
