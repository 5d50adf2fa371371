import WorkbenchModuleAPI

extension CommandResolver {
  /// Matches argument words to the spec's arguments and validates each one against the
  /// directory: windows must be open, documents must exist (where the directory can know),
  /// ids must be in the window's model (where it is live).
  ///
  /// - Throws: `CommandError` at the column of the word that is wrong, or of the command's
  ///   name for a missing argument.
  public func bind(_ command: ResolvedCommand, in directory: some WindowDirectory) throws(CommandError)
    -> BoundCommand
  {
    let spec = command.spec
    let words = command.argumentTokens
    var parsed = ParsedArguments()
    parsed.declared = Set(spec.arguments.map(\.name))
    parsed.command = spec.name
    var labels: [String: String] = [:]
    var index = 0
    for argument in spec.arguments {
      if case .rest = argument.kind {
        let remaining = words[index...]
        if remaining.isEmpty {
          if argument.isOptional { break }
          throw missing(argument, of: spec, at: command.nameToken)
        }
        let text = remaining.map(\.text).joined(separator: " ")
        parsed.values[argument.name] = .text(text)
        index = words.count
        break
      }
      guard index < words.count else {
        if argument.isOptional { break }
        throw missing(argument, of: spec, at: command.nameToken)
      }
      let bound = try value(of: words[index], for: argument, in: command, directory: directory)
      parsed.values[argument.name] = bound.value
      if let label = bound.label { labels[argument.name] = label }
      index += 1
    }
    if index < words.count {
      throw CommandError(
        "too many arguments: '\(words[index].text)' is extra. Usage: \(spec.usage)",
        column: words[index].column)
    }
    return BoundCommand(command, arguments: parsed, windowLabels: labels)
  }

  /// Binds arguments given as values by name (what a module's kit is handed by the host that
  /// bound them from its line), checked as words are: a number in its range, a choice among its
  /// words, a window open, a document there. The spec's order holds as on a line: an optional
  /// argument given after one left out, or a name the spec lacks, is refused.
  public func bind(
    _ command: ResolvedCommand, values: [String: ArgumentValue], in directory: some WindowDirectory
  ) throws(CommandError) -> BoundCommand {
    let spec = command.spec
    var parsed = ParsedArguments()
    parsed.declared = Set(spec.arguments.map(\.name))
    parsed.command = spec.name
    var labels: [String: String] = [:]
    // Counted without a closure (this runs for every command a kit or explore gives); named in
    // order only when one is not the spec's (the message names the first).
    var known = 0
    for argument in spec.arguments where values[argument.name] != nil { known += 1 }
    if known < values.count, let unknown = values.keys.sorted().first(where: { !parsed.declared.contains($0) }) {
      throw CommandError(
        "\(spec.name) has no argument '\(unknown)'. Usage: \(spec.usage)", column: command.nameToken.column)
    }
    var leftOut: ArgumentSpec?
    for argument in spec.arguments {
      guard let given = values[argument.name] else {
        guard argument.isOptional else { throw missing(argument, of: spec, at: command.nameToken) }
        leftOut = leftOut ?? argument
        continue
      }
      if let leftOut {
        throw CommandError(
          "\(argument.name.uppercased()) is given but \(leftOut.name.uppercased()) before it is not. Usage: \(spec.usage)",
          column: command.nameToken.column)
      }
      // A whole number given as one is checked as one, not written out and read again.
      if case .integer(let number) = given, case .integer(let range) = argument.kind {
        try Self.check(number, in: range, of: argument, column: command.nameToken.column)
        parsed.values[argument.name] = given
        continue
      }
      guard let text = given.textValue else { continue }
      if case .rest = argument.kind {
        parsed.values[argument.name] = .text(text)
        continue
      }
      let word = CommandToken(text: text, column: command.nameToken.column)
      let bound = try value(of: word, for: argument, in: command, directory: directory)
      parsed.values[argument.name] = bound.value
      if let label = bound.label { labels[argument.name] = label }
    }
    return BoundCommand(command, arguments: parsed, windowLabels: labels)
  }

  /// `command`'s arguments bound again where it runs now (`here`, the command relocated against
  /// `directory`, the session it runs in): each argument that names something the session has
  /// is checked again from the word it was read from (a window open, a document there, an id in
  /// the window's rows). What does not depend on the session (numbers, choices, words) stands as
  /// bound: the host runs a command bound elsewhere (a scenario's plan, a replayed step) this
  /// way, re-checking only what is live.
  ///
  /// - Throws: `CommandError` at the column of the word whose target is gone.
  public func rebind(_ command: BoundCommand, at here: ResolvedCommand, in directory: some WindowDirectory)
    throws(CommandError) -> BoundCommand
  {
    let resolved = command.resolved
    var parsed = command.arguments
    var labels = command.windowLabels
    for argument in resolved.spec.arguments {
      guard let given = parsed.value(named: argument.name) else { continue }
      switch (argument.kind, given) {
      case (.window, _), (.windowOr, .window), (.document, _), (.reference, _): break
      default: continue
      }
      let word =
        command.source(of: argument)
        ?? CommandToken(
          text: labels[argument.name] ?? given.textValue ?? "", column: resolved.nameToken.column)
      let bound = try value(of: word, for: argument, in: here, directory: directory)
      parsed.values[argument.name] = bound.value
      if let label = bound.label { labels[argument.name] = label }
    }
    return BoundCommand(here, arguments: parsed, windowLabels: labels)
  }

  /// A whole number in its argument's range, or the error that says it is not.
  private static func check(_ number: Int, in range: ClosedRange<Int>?, of argument: ArgumentSpec, column: Int)
    throws(CommandError)
  {
    guard let range, !range.contains(number) else { return }
    throw CommandError(
      "\(argument.name.uppercased()) must be between \(range.lowerBound) and \(range.upperBound), not \(number)",
      column: column)
  }

  private func missing(_ argument: ArgumentSpec, of spec: CommandSpec, at token: CommandToken) -> CommandError {
    CommandError("missing \(argument.name.uppercased()). Usage: \(spec.usage)", column: token.column)
  }

  /// An argument's value from its word, with the label of the window it names, for a window.
  private func value(
    of token: CommandToken, for argument: ArgumentSpec, in command: ResolvedCommand, directory: some WindowDirectory
  ) throws(CommandError) -> (value: ArgumentValue, label: String?) {
    switch argument.kind {
    case .window, .windowOr:
      if let window = directory.findWindow(named: token.text) { return (.window(window.id), window.label) }
    default: break
    }
    return (try checkedValue(of: token, for: argument, in: command, directory: directory), nil)
  }

  private func checkedValue(
    of token: CommandToken, for argument: ArgumentSpec, in command: ResolvedCommand, directory: some WindowDirectory
  ) throws(CommandError) -> ArgumentValue {
    let text = token.text
    let name = argument.name.uppercased()
    switch argument.kind {
    case .integer(let range):
      guard let number = Int(text) else {
        throw CommandError("\(name) must be a whole number, not '\(text)'", column: token.column)
      }
      try Self.check(number, in: range, of: argument, column: token.column)
      return .integer(number)
    case .word, .rest, .file, .command:
      return .text(text)
    case .duration:
      guard SessionClock.parseDuration(text) != nil else {
        throw CommandError(
          "\(name) must be a length of time with its unit (300ms, 2s, 1.5s, 1m, 2h, 1d), not '\(text)'",
          column: token.column)
      }
      return .text(text)
    case .choice(let words):
      guard words.contains(text) else {
        let hint = Suggestions.didYouMean(text, in: words)
        throw CommandError(
          "\(name) must be one of \(words.joined(separator: ", ")), not '\(text)'\(hint)",
          column: token.column)
      }
      return .text(text)
    case .window:
      guard let window = directory.findWindow(named: text) else {
        throw CommandError(directory.missingWindowMessage(text), column: token.column)
      }
      return .window(window.id)
    case .windowOr(let words):
      if let window = directory.findWindow(named: text) { return .window(window.id) }
      if words.contains(text) { return .text(text) }
      throw CommandError(
        "no window '\(text)'" + Suggestions.didYouMean(text, in: directory.windowLabels + words), column: token.column)
    case .document:
      guard directory.hasDocument(named: text) != false else {
        throw CommandError(
          "no document named '\(text)'" + Suggestions.didYouMean(text, in: directory.knownDocumentNames),
          column: token.column)
      }
      return .text(text)
    case .screen:
      guard registry.screenKind(named: text) != nil else {
        if let failure = registry.failure(ofScreen: text) { throw CommandError(failure, column: token.column) }
        // A module's name where a screen is expected: name that module's screens.
        let ofModule = registry.screenKinds.values.filter { $0.module == text }.map(\.name).sorted()
        if !ofModule.isEmpty {
          throw CommandError(
            "\(text) is a module, not a screen: \(text) has screens \(ofModule.joined(separator: ", "))",
            column: token.column)
        }
        throw CommandError(
          "unknown screen '\(text)'" + Suggestions.didYouMean(text, in: registry.screenKinds.keys)
            + directory.hint(forScreen: text), column: token.column
        )
      }
      return .text(text)
    case .reference(let source):
      if source.isInteger, Int(text) == nil {
        throw CommandError(
          "\(name) must be a \(source.noun) id (a whole number), not '\(text)'", column: token.column)
      }
      if let window = command.window, let model = directory.model(of: window.id),
        let exists = source.contains(model, text), !exists
      {
        throw CommandError("no \(source.noun) with id \(text)", column: token.column)
      }
      return source.isInteger ? .integer(Int(text)!) : .text(text)
    }
  }
}
