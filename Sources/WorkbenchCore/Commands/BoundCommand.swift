import WorkbenchModuleAPI

/// One command ready to run: resolved against the windows (its spec, module and window, and how
/// the window was named) and its arguments bound to the spec's declarations, each with the word
/// it was read from. The resolver makes it once; the host runs it (`Host.run(commands:)`), the
/// recorder and the journal keep it, a module's proxy sends it, the scenario loader keeps it for
/// each step and explore draws it, so no layer reads the command's words again. Its `text` is the
/// one way a command is written. (A class: a spec is many references, and the command is handed
/// from layer to layer on every command a session runs.)
public final class BoundCommand: Sendable {
  /// What the words named, and where it runs.
  public let resolved: ResolvedCommand
  /// The arguments, bound and checked.
  public let arguments: ParsedArguments
  /// The label of the window each `window` argument named, by the argument's name: what the
  /// command's text writes, and what finds the window again where the command runs again.
  public let windowLabels: [String: String]

  /// A command `resolved` with its `arguments`.
  public init(_ resolved: ResolvedCommand, arguments: ParsedArguments, windowLabels: [String: String] = [:]) {
    self.resolved = resolved
    self.arguments = arguments
    self.windowLabels = windowLabels
  }

  /// The word `argument` was bound from, with its column (the rest of a line: its first word);
  /// `nil` for a command given as values, or an argument left out.
  public func source(of argument: ArgumentSpec) -> CommandToken? {
    resolved.wordsByArgument.first { $0.argument.name == argument.name }?.word
  }

  /// The command (or subcommand) whose arguments were bound.
  public var spec: CommandSpec { resolved.spec }
  /// The module that registered it; `nil` for a host command.
  public var module: String? { resolved.module }
  /// The window it runs in, if any, as it was when the command was bound.
  public var window: DirectoryWindow? { resolved.window }
  /// How the command names its window.
  public var target: WindowReference { resolved.target }
  /// The spec's path as its module registered it (`["network", "fail"]`).
  public var path: [String] { resolved.path }

  /// The command as values, unbound: what it was given, to bind again elsewhere.
  public var call: CommandCall {
    var values = arguments.values
    for (name, label) in windowLabels { values[name] = .text(label) }
    return CommandCall(path: path, spec: spec, target: target, arguments: values)
  }

  /// The command's full name: a subcommand's after its command's (`record start`), as the
  /// resolver names a chosen subcommand.
  public var name: String { spec.name }

  /// The command written as text, the one way the host writes a command it holds: its full
  /// name, then each argument it was given as bound (a window by its label, a word quoted where
  /// the tokenizer would otherwise split it or read it otherwise, the rest of a line as its
  /// words, each quoted so). Read back by the tokenizer and bound again, it is the same command.
  public var text: String {
    CommandText.write(name, spec.arguments) { argument in
      if case .window(let id)? = arguments.value(named: argument.name) {
        return windowLabels[argument.name] ?? String(id.number)
      }
      return arguments.value(named: argument.name)?.textValue
    }
  }

  /// `text` with the window in front (`@left select 2`) when the command names one: a step of a
  /// script with no window of its own that runs a command in one.
  public var textNamingWindow: String {
    guard case .label(let label) = target else { return text }
    return "@" + CommandTokenizer.quoted(label) + " " + text
  }

  /// The same command, found in the window labelled `label` wherever it runs again (the window
  /// it ran in, kept by a recording or a replay).
  public func naming(window label: String) -> BoundCommand {
    let resolved = self.resolved
    if case .label(label) = resolved.target { return self }
    return BoundCommand(
      ResolvedCommand(
        spec: resolved.spec, module: resolved.module, window: resolved.window, nameToken: resolved.nameToken,
        argumentTokens: resolved.argumentTokens, target: .label(label), targetColumn: nil,
        path: resolved.subcommandPath,
        commandToken: resolved.commandToken),
      arguments: arguments, windowLabels: windowLabels)
  }

  /// The same command with `value` for the first argument it was not given that takes it (a
  /// question's answer, `close main save`); `nil` when no argument left takes it.
  public func adding(_ value: String) -> BoundCommand? {
    // As the word written after the others would be bound: to the next argument, which must
    // take it.
    guard let argument = spec.arguments.first(where: { arguments.value(named: $0.name) == nil }) else { return nil }
    switch argument.kind {
    case .choice(let words), .windowOr(let words):
      guard words.contains(value) else { return nil }
    default:
      return nil
    }
    var given = arguments
    given.values[argument.name] = .text(value)
    return BoundCommand(resolved, arguments: given, windowLabels: windowLabels)
  }

  /// The argument whose word covers `column` of the line the command was read from, with the
  /// word: what an editor's hover and go-to read, from the binding rather than by counting words.
  public func argument(atColumn column: Int) -> (argument: ArgumentSpec, word: CommandToken)? {
    for (argument, word) in resolved.wordsByArgument {
      // The rest of a line runs to the end of the command.
      if case .rest = argument.kind, column >= word.column { return (argument, word) }
      let end = word.column + word.text.count + (word.wasQuoted ? 2 : 0)
      if column >= word.column, column < end { return (argument, word) }
    }
    return nil
  }
}

/// How a command is written as text: one place, for a bound command and for a call explore draws
/// that may not bind.
public enum CommandText {
  /// `name`, then each argument's text in the spec's order up to the first one not given (a
  /// word quoted where the tokenizer would read it otherwise, the rest of a line as its words).
  public static func write(_ name: String, _ arguments: [ArgumentSpec], value: (ArgumentSpec) -> String?) -> String {
    var text = name
    for argument in arguments {
      guard let word = value(argument) else { break }
      if case .rest = argument.kind {
        // The rest is its words joined by single spaces, so it is written as those words.
        for part in word.split(separator: " ", omittingEmptySubsequences: false) {
          text += " " + CommandTokenizer.quoted(String(part))
        }
      } else {
        text += " " + CommandTokenizer.quoted(word)
      }
    }
    return text
  }
}
