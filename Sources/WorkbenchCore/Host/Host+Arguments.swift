extension Host {
  /// Matches argument words to the spec's arguments and validates each one.
  func bind(_ command: ResolvedCommand) throws(CommandError) -> ParsedArguments {
    let spec = command.spec
    let words = command.argumentTokens
    var parsed = ParsedArguments()
    parsed.declared = Set(spec.arguments.map(\.name))
    parsed.command = spec.name
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
      parsed.values[argument.name] = try value(of: words[index], for: argument, in: command)
      index += 1
    }
    if index < words.count {
      throw CommandError(
        "too many arguments: '\(words[index].text)' is extra. Usage: \(spec.usage)",
        column: words[index].column)
    }
    return parsed
  }

  private func missing(_ argument: ArgumentSpec, of spec: CommandSpec, at token: CommandToken) -> CommandError {
    CommandError("missing \(argument.name.uppercased()). Usage: \(spec.usage)", column: token.column)
  }

  private func value(of token: CommandToken, for argument: ArgumentSpec, in command: ResolvedCommand)
    throws(CommandError) -> ArgumentValue
  {
    let text = token.text
    let name = argument.name.uppercased()
    switch argument.kind {
    case .integer(let range):
      guard let number = Int(text) else {
        throw CommandError("\(name) must be a whole number, not '\(text)'", column: token.column)
      }
      if let range, !range.contains(number) {
        throw CommandError(
          "\(name) must be between \(range.lowerBound) and \(range.upperBound), not \(number)",
          column: token.column)
      }
      return .integer(number)
    case .word, .rest:
      return .text(text)
    case .choice(let words):
      guard words.contains(text) else {
        let hint = suggestion(text, in: words)
        throw CommandError(
          "\(name) must be one of \(words.joined(separator: ", ")), not '\(text)'\(hint)",
          column: token.column)
      }
      return .text(text)
    case .window:
      guard let window = window(named: text) else {
        throw CommandError(
          "no window '\(text)'" + suggestion(text, in: windowLabels), column: token.column)
      }
      return .window(window.id)
    case .windowOr(let words):
      if let window = window(named: text) { return .window(window.id) }
      if words.contains(text) { return .text(text) }
      throw CommandError(
        "no window '\(text)'" + suggestion(text, in: windowLabels + words), column: token.column)
    case .document:
      guard documents[text] != nil else {
        throw CommandError(
          "no document named '\(text)'" + suggestion(text, in: documents.names), column: token.column)
      }
      return .text(text)
    case .screen:
      guard screenKinds[text] != nil else {
        // A module's name where a screen is expected: name that module's screens.
        let ofModule = screenKinds.values.filter { $0.module == text }.map(\.name).sorted()
        if !ofModule.isEmpty {
          throw CommandError(
            "\(text) is a module, not a screen: \(text) has screens \(ofModule.joined(separator: ", "))",
            column: token.column)
        }
        throw CommandError(
          "unknown screen '\(text)'" + suggestion(text, in: screenKinds.keys), column: token.column)
      }
      return .text(text)
    case .reference(let source):
      if source.isInteger, Int(text) == nil {
        throw CommandError(
          "\(name) must be a \(source.noun) id (a whole number), not '\(text)'", column: token.column)
      }
      if let model = command.window?.content.model, let exists = source.contains(model, text), !exists {
        throw CommandError("no \(source.noun) with id \(text)", column: token.column)
      }
      return source.isInteger ? .integer(Int(text)!) : .text(text)
    }
  }
}
