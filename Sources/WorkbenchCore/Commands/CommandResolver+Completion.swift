import WorkbenchModuleAPI

/// A command as far as it is typed, read by the resolver that reads whole commands: what the
/// word at the end of the line is (a window, a command's name, a subcommand, or one of a spec's
/// arguments) and the word typed so far. The shell's Tab, the language server's completion and
/// explore's arguments complete from it, so a word means the same to all of them as it does
/// when the command runs.
public struct PartialCommand: Sendable {
  /// What the word being typed is.
  public enum Place: Sendable {
    /// Nothing can be offered here (inside a quote, in a comment, past the last argument, or a
    /// command that does not resolve).
    case nothing
    /// An `@WINDOW` prefix.
    case window
    /// A command's name, in the window the command would run in.
    case command
    /// The subcommand of `command`.
    case subcommand(of: ResolvedCommand)
    /// Argument `position` of `command`'s spec, after the words `before` it.
    case argument(of: ResolvedCommand, position: Int, before: [String])
  }

  /// What the word being typed is.
  public var place: Place
  /// The word typed so far (empty after a space).
  public var typing: String
  /// The window the command runs in, as far as the words before tell.
  public var window: DirectoryWindow?

  /// The argument being typed, when it is one.
  public var argument: ArgumentSpec? {
    guard case .argument(let command, let position, _) = place else { return nil }
    return command.spec.arguments.indices.contains(position) ? command.spec.arguments[position] : nil
  }
}

extension CommandResolver {
  /// The command at the end of `line`, as far as it is typed (see `PartialCommand`).
  ///
  /// - Parameter named: the window the command runs in unless its words name one (a scenario
  ///   step's window), given as a value rather than written into the line.
  public func partial(_ line: String, in directory: some WindowDirectory, window named: String? = nil)
    -> PartialCommand
  {
    let typed = CommandTokenizer.typing(line)
    let partial = typed.typing.text
    var window = named.flatMap { directory.findWindow(named: $0) } ?? directory.focusedWindow
    // Inside an open quote or a comment the word is text: nothing is completed past the quote.
    guard !typed.inQuote, !typed.inComment else { return PartialCommand(place: .nothing, typing: partial) }
    var words = typed.words
    let prefix = words.windowPrefix
    if let reference = prefix.window {
      window = directory.findWindow(named: reference)
      words = Array(prefix.rest)
    } else if words.isEmpty, typed.typing.windowReference != nil {
      return PartialCommand(place: .window, typing: partial)
    }
    guard let nameToken = words.first else { return PartialCommand(place: .command, typing: partial, window: window) }
    guard var resolved = try? resolve([nameToken], in: directory, window: window?.label) else {
      return PartialCommand(place: .nothing, typing: partial, window: window)
    }
    var position = words.count - 1
    if !resolved.spec.subcommands.isEmpty {
      // The first word picks a subcommand; the words after it are that subcommand's.
      guard position > 0, let sub = resolved.spec.subcommand(named: words[1].text) else {
        guard position == 0 else { return PartialCommand(place: .nothing, typing: partial, window: window) }
        return PartialCommand(place: .subcommand(of: resolved), typing: partial, window: window)
      }
      resolved = resolved.choosing(sub, namedBy: words[1], arguments: [])
      position -= 1
    }
    guard position < resolved.spec.arguments.count else {
      return PartialCommand(place: .nothing, typing: partial, window: window)
    }
    let before = words.suffix(position).map(\.text)
    return PartialCommand(
      place: .argument(of: resolved, position: position, before: before), typing: partial,
      window: resolved.window ?? window)
  }

  /// `call` as far as its argument `position`, where it runs: what completion offers for that
  /// argument after the ones before it (explore draws its values from it).
  public func partial(_ call: CommandCall, at position: Int, in directory: some WindowDirectory) -> PartialCommand {
    var label: String?
    if case .label(let named) = call.target { label = named }
    guard let resolved = try? resolve(path: call.path, in: directory, window: label) else {
      return PartialCommand(place: .nothing, typing: "")
    }
    let before = call.spec.arguments.prefix(position).map { call.arguments[$0.name]?.textValue ?? "" }
    return PartialCommand(
      place: .argument(of: resolved, position: position, before: before), typing: "",
      window: resolved.window ?? label.flatMap { directory.findWindow(named: $0) })
  }

  /// The words that could complete the word being typed at the end of `line`.
  ///
  /// Completion follows the same specs and the same resolution as running: command names
  /// where a command goes, window labels after `@`, and each argument's own values (choices,
  /// windows, documents, screens, or the identifiers in the target window's document).
  public func completions(for line: String, in directory: some WindowDirectory, window: String? = nil) -> [String] {
    completions(of: partial(line, in: directory, window: window), in: directory)
  }

  /// The words that could complete `partial`'s word.
  public func completions(of partial: PartialCommand, in directory: some WindowDirectory) -> [String] {
    let typed = partial.typing
    switch partial.place {
    case .nothing:
      return []
    case .window:
      return directory.windowLabels.map { "@" + $0 }.filter { $0.hasPrefix(typed) }
    case .command:
      // A qualified name is offered once a dot is typed (or with no window), and only where it
      // would run: its module's window is this one, or the only one of its kind that is open.
      let window = partial.window
      return registry.router.names(forScreen: window?.screen).filter { name in
        guard name.hasPrefix(typed) else { return false }
        guard name.contains(".") else { return true }
        guard typed.contains(".") || window == nil else { return false }
        return (try? resolve([CommandToken(text: name, column: 1)], in: directory, window: window?.label)) != nil
      }
    case .subcommand(let command):
      return command.spec.subcommands.map(\.name).filter { $0.hasPrefix(typed) }
    case .argument(let command, let position, let before):
      let values = candidates(
        at: position, of: command.spec.arguments, after: before, in: partial.window, directory: directory)
      let matching = values.filter { $0.hasPrefix(typed) }
      guard matching.isEmpty, !typed.isEmpty else { return matching }
      return byLabel(values, typed: typed, partial: partial, directory: directory)
    }
  }

  /// The identifiers whose label (a book's title) has a word starting with `typed`, ignoring
  /// case: `select dun` offers the ids of "Dune" and "Children of Dune". At most 1,000.
  private func byLabel(
    _ identifiers: [String], typed: String, partial: PartialCommand, directory: some WindowDirectory
  ) -> [String] {
    guard case .reference(let source) = partial.argument?.kind, let window = partial.window,
      let model = directory.model(of: window.id)
    else { return [] }
    let wanted = typed.lowercased()
    var found: [String] = []
    for identifier in identifiers {
      guard let label = source.label(model, identifier)?.lowercased() else { continue }
      if label.hasPrefix(wanted) || label.contains(" " + wanted) {
        found.append(identifier)
        if found.count == 1_000 { break }
      }
    }
    return found
  }

  /// Whether the word being typed at the end of `line` is a file name (`source FILE`): the
  /// front end completes it from the file system.
  public func completesFileName(_ line: String, in directory: some WindowDirectory, window: String? = nil) -> Bool {
    if case .file? = partial(line, in: directory, window: window).argument?.kind { return true }
    return false
  }

  /// What each candidate completing `line` names, for listing beside it: a book's title beside
  /// its id. Empty when the candidates are words that explain themselves (commands, windows).
  public func completionLabels(
    for line: String, candidates: [String], in directory: some WindowDirectory, window: String? = nil
  ) -> [String: String] {
    let partial = partial(line, in: directory, window: window)
    guard case .reference(let source) = partial.argument?.kind, let window = partial.window,
      let model = directory.model(of: window.id)
    else { return [:] }
    var labels: [String: String] = [:]
    for candidate in candidates.prefix(1_000) {
      if let label = source.label(model, candidate) { labels[candidate] = label }
    }
    return labels
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
    case .command:
      // Plain names only: a qualified one is for a window that is not the one it runs in.
      // and the modules' names (`help MODULE` lists a module's commands).
      let modules = registry.manifests.map(\.name).filter { registry.moduleCommands[$0]?.isEmpty == false }
      return registry.router.names(forScreen: window?.screen).filter { !$0.contains(".") } + modules
    // A file name is the front end's to complete (the shell asks readline, which knows the
    // file system and its quoting); nothing else offers files.
    case .integer, .word, .rest, .file: return []
    }
  }
}
