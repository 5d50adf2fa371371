/// One command ready to run: resolved against the windows (its spec, module and window) and its
/// arguments bound to the spec's declarations. The resolver makes it once; the host runs it, the
/// recorder hears of it, a module's proxy sends it, and the scenario loader keeps it for each
/// step, so no layer reads the command's words again. (A class: a spec is many references, and
/// the command is handed from layer to layer on every command a session runs.)
public final class BoundCommand: Sendable {
  /// What the words named, and where it runs.
  public let resolved: ResolvedCommand
  /// The arguments, bound and checked.
  public let arguments: ParsedArguments

  /// A command `resolved` with its `arguments`.
  public init(_ resolved: ResolvedCommand, arguments: ParsedArguments) {
    self.resolved = resolved
    self.arguments = arguments
  }

  /// The command (or subcommand) whose arguments were bound.
  public var spec: CommandSpec { resolved.spec }
  /// The module that registered it; `nil` for a host command.
  public var module: String? { resolved.module }
  /// The window it runs in, if any.
  public var window: DirectoryWindow? { resolved.window }

  /// The command's full name: a subcommand's after its command's (`record start`), as the
  /// resolver names a chosen subcommand.
  public var name: String { spec.name }

  /// The command written as text, the one way the host writes a command it holds: its full
  /// name, then each argument it was given as bound (a window as its number, a word quoted
  /// where the tokenizer would otherwise split it or read it otherwise, the rest of a line as
  /// its words, each quoted so). Read back by the tokenizer and bound again, it is the same
  /// command.
  public var text: String {
    var text = name
    for argument in spec.arguments {
      guard let word = arguments.value(named: argument.name)?.textValue else { break }
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
