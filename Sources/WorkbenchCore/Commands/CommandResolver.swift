/// A command resolved against a window directory: which spec (the subcommand, when its first
/// word picks one), which window it runs in, and its argument words.
public struct ResolvedCommand: Sendable {
  /// The command (or subcommand) whose arguments the words fill.
  public let spec: CommandSpec
  /// The module that registered it; `nil` for a host command.
  public let module: String?
  /// The window it runs in: the one `@WINDOW` names, the focused one, or the only window of
  /// the screen a module's command needs.
  public let window: DirectoryWindow?
  /// The word that named the command (or the subcommand), for errors about the whole command.
  public let nameToken: CommandToken
  /// The words after it.
  public let argumentTokens: [CommandToken]
}

/// What a command does to the windows when it succeeds, as its spec declares it.
public enum WindowChange: Equatable, Sendable {
  /// A window opens showing `screen`, with `name` or its number.
  case opens(screen: String, name: String?)
  /// The window numbered `id` closes.
  case closes(WindowID)
}

/// The one way a command line becomes something to run: a line (with or without `@WINDOW`)
/// against a `WindowDirectory` gives the spec, the window, the bound arguments and the window
/// change, or the reason it cannot run with the column it is about. Running a line, checking a
/// scenario before it runs, completion, help and recording all go through it.
@MainActor
public struct CommandResolver {
  /// The modules whose commands it resolves.
  public let registry: ModuleRegistry

  /// A resolver over `registry`'s commands and the host's.
  public init(registry: ModuleRegistry) { self.registry = registry }

  /// Resolves one tokenized command: its `@WINDOW` prefix, its name (through the router), the
  /// window it runs in and the subcommand its first word picks.
  ///
  /// - Throws: `CommandError` saying why, at the column of the word it is about.
  ///
  /// - Parameter named: the window to run in when the words do not name one (`@NAME`): a
  ///   scenario step's window, given as a value rather than written into the command.
  public func resolve(_ tokens: [CommandToken], in directory: some WindowDirectory, window named: String? = nil)
    throws(CommandError) -> ResolvedCommand
  {
    var rest = tokens[...]
    let window: DirectoryWindow?
    if let first = tokens.first, let reference = first.windowReference {
      guard let target = directory.findWindow(named: reference) else {
        throw CommandError(directory.missingWindowMessage(reference), column: first.column)
      }
      window = target
      rest = rest.dropFirst()
    } else if let named {
      guard let target = directory.findWindow(named: named) else {
        throw CommandError(directory.missingWindowMessage(named), column: 1)
      }
      window = target
    } else {
      window = directory.focusedWindow
    }
    guard let nameToken = rest.first else {
      throw CommandError("a window reference needs a command after it", column: tokens.first?.column ?? 1)
    }
    let arguments = Array(rest.dropFirst())
    let name = nameToken.text
    switch registry.router.route(name, screen: window?.screen) {
    case .success(let route):
      var runsIn = window
      if let module = route.module {
        runsIn = try self.window(for: route.spec, module: module, preferred: window, token: nameToken, in: directory)
      }
      return try choosingSubcommand(
        ResolvedCommand(
          spec: route.spec, module: route.module, window: runsIn, nameToken: nameToken, argumentTokens: arguments))
    case .failure(let refusal):
      // A command of one module whose window is not open says which window it needs.
      if case .otherModules(_, let owners) = refusal, owners.count == 1,
        let spec = registry.commands(ofModule: owners[0])?[name], case .window(let screens) = spec.scope,
        !directory.openWindows.contains(where: { screens.contains($0.screen) })
      {
        _ = try self.window(for: spec, module: owners[0], preferred: nil, token: nameToken, in: directory)
      }
      var message = refusal.message(place: directory.place(of: window))
      if case .unknown = refusal { message += directory.unknownCommandHint }
      throw CommandError(message, column: nameToken.column)
    }
  }

  /// The subcommand the first argument word names, for a command made of subcommands.
  private func choosingSubcommand(_ command: ResolvedCommand) throws(CommandError) -> ResolvedCommand {
    let spec = command.spec
    guard !spec.subcommands.isEmpty, let word = command.argumentTokens.first else { return command }
    guard let named = spec.chosenSubcommand(word.text) else {
      let names = spec.subcommands.map(\.name)
      throw CommandError(
        "\(spec.name) has no subcommand '\(word.text)'" + Suggestions.didYouMean(word.text, in: names) + " (it has "
          + names.joined(separator: ", ") + "). Usage: \(spec.usage)",
        column: word.column)
    }
    return ResolvedCommand(
      spec: named, module: command.module, window: command.window, nameToken: word,
      argumentTokens: Array(command.argumentTokens.dropFirst()))
  }

  /// The window a module command runs in: the preferred one when its screen fits, else the
  /// only open window that fits.
  private func window(
    for spec: CommandSpec, module: String, preferred: DirectoryWindow?, token: CommandToken,
    in directory: some WindowDirectory
  ) throws(CommandError) -> DirectoryWindow? {
    guard case .window(let screens) = spec.scope else { return preferred }
    if let preferred, screens.contains(preferred.screen) { return preferred }
    let fitting = directory.openWindows.filter { screens.contains($0.screen) }
    let wanted = screens.joined(separator: " or ")
    if preferred == nil, fitting.count == 1 { return fitting[0] }
    if fitting.isEmpty {
      throw CommandError(
        "\(module).\(spec.name) needs a \(wanted) window, and none is open: open one with "
          + "`open \(screens[0]) DOCUMENT`",
        column: token.column)
    }
    let labels = fitting.map { "@" + $0.label }.joined(separator: ", ")
    throw CommandError(
      "\(module).\(spec.name) needs a \(wanted) window: put one of \(labels) in front",
      column: token.column)
  }

  /// What the command will do to the windows when it succeeds, with these arguments.
  public func windowChange(of bound: BoundCommand) -> WindowChange? {
    let command = bound.resolved
    let values = bound.arguments.values
    switch command.spec.windowEffect {
    case .opens(let screenArgument, let nameArgument)?:
      guard let screen = values[screenArgument]?.textValue else { return nil }
      return .opens(screen: screen, name: values[nameArgument]?.textValue)
    case .opensFrom(let screens, let nameArgument)?:
      guard let screen = command.window?.screen, let opened = screens[screen] else { return nil }
      return .opens(screen: opened, name: values[nameArgument]?.textValue)
    case .closes(let argument)?:
      if case .window(let id)? = values[argument] { return .closes(id) }
      return command.window.map { .closes($0.id) }
    case nil:
      return nil
    }
  }
}
