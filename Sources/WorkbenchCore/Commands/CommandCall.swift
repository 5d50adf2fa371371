import WorkbenchModuleAPI

/// A command given as values and not yet bound: a spec by its path, how it names its window, and
/// its arguments by name. It is bound where it runs, against the session's windows then, and a
/// value the spec refuses is refused there as its word would be: what explore draws (numbers
/// across their range, ids that may not exist) and shrinks by each argument's kind.
public struct CommandCall: Sendable {
  /// The spec's path: the command's name, then each subcommand's (`["clock", "advance"]`).
  public var path: [String]
  /// The command or subcommand the path leads to, for its arguments' order and kinds.
  public var spec: CommandSpec {
    get { held.spec }
    set { held = HeldSpec(newValue) }
  }
  /// The spec, held by reference: a call is copied from step to step, and a spec is many
  /// references.
  private var held: HeldSpec
  /// How the command names its window.
  public var target: WindowReference
  /// The arguments given, by name; a left-out optional one is absent.
  public var arguments: [String: ArgumentValue]

  /// A call of `spec` at `path`, in the window `target` names, with `arguments`.
  public init(
    path: [String], spec: CommandSpec, target: WindowReference = .focused, arguments: [String: ArgumentValue] = [:]
  ) {
    self.path = path
    self.held = HeldSpec(spec)
    self.target = target
    self.arguments = arguments
  }

  /// The call written as text, as a bound command is written (its path, then its arguments in the
  /// spec's order up to the first one not given).
  public var text: String {
    CommandText.write(path.joined(separator: " "), spec.arguments) { arguments[$0.name]?.textValue }
  }

  /// `text` with the window in front (`@w2 select 3`) when the call names one.
  public var textNamingWindow: String {
    guard case .label(let label) = target else { return text }
    return "@" + CommandTokenizer.quoted(label) + " " + text
  }

  /// Whether it is the host's command at `path` (`["undo"]`).
  public func isHostCommand(_ path: String...) -> Bool { self.path == path }
}

/// A spec behind one reference.
private final class HeldSpec: Sendable {
  let spec: CommandSpec
  init(_ spec: CommandSpec) { self.spec = spec }
}
