import WorkbenchModuleAPI

/// How a command names the window it runs in, kept with the command so that it finds its window
/// again wherever it runs: in the session it was typed in, in a scenario's session after the
/// loader planned it, in a session replayed from the start.
public enum WindowReference: Hashable, Sendable {
  /// No window named: the focused one (for a module's command, the only open window of its
  /// screens when the focused one is not one of them).
  case focused
  /// The window with this label (its name, else its number): `@left`, a scenario step's
  /// `left:`, the window a recording or a replay keeps.
  case label(String)
}

/// A command resolved against a window directory: which spec (the subcommand, when its first
/// word picks one), which window it runs in, and its argument words. (A class: it is handed on
/// whole, to the bound command, the step, the report of what ran, and a spec is many
/// references.)
public final class ResolvedCommand: Sendable {
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
  /// How the window was named: where the command runs again, it looks for its window so.
  public let target: WindowReference
  /// The column of the `@WINDOW` word that named the window, when one did.
  public let targetColumn: Int?
  /// The spec's path as its module registered it: the command's own name (never qualified),
  /// then each subcommand's (`["network", "fail"]`): what a module process is told.
  public var path: [String] { subcommandPath ?? [spec.name] }
  /// The path of a chosen subcommand; `nil` for a command (its path is its name, made when asked).
  let subcommandPath: [String]?
  /// The word that named the command (for a subcommand, its command's word, before `nameToken`).
  public let commandToken: CommandToken

  /// A command `spec` of `module`, run in `window` (named as `target` says), named by `nameToken`
  /// with `argumentTokens` after it.
  public init(
    spec: CommandSpec, module: String?, window: DirectoryWindow?, nameToken: CommandToken,
    argumentTokens: [CommandToken], target: WindowReference, targetColumn: Int? = nil, path: [String]? = nil,
    commandToken: CommandToken? = nil
  ) {
    self.subcommandPath = path
    self.commandToken = commandToken ?? nameToken
    self.spec = spec
    self.module = module
    self.window = window
    self.nameToken = nameToken
    self.argumentTokens = argumentTokens
    self.target = target
    self.targetColumn = targetColumn
  }

  /// Each argument word with the argument of the spec it fills, in order: the one reading of
  /// which argument a word is, for binding, coverage and an editor. The rest of a line takes
  /// every word left (its first word stands for it); words past the last argument fill none.
  public var wordsByArgument: [(argument: ArgumentSpec, word: CommandToken)] {
    var pairs: [(argument: ArgumentSpec, word: CommandToken)] = []
    for (argument, word) in zip(spec.arguments, argumentTokens) {
      pairs.append((argument, word))
      if case .rest = argument.kind { break }
    }
    return pairs
  }

  /// The same command with another spec (a subcommand its first word chose) named by `token`,
  /// the words after it its arguments.
  func choosing(_ spec: CommandSpec, namedBy token: CommandToken, arguments: [CommandToken]) -> ResolvedCommand {
    // A subcommand's full name is its command's and its own (`clock advance`).
    let own =
      spec.name.hasPrefix(self.spec.name + " ") ? String(spec.name.dropFirst(self.spec.name.count + 1)) : spec.name
    return ResolvedCommand(
      spec: spec, module: module, window: window, nameToken: token, argumentTokens: arguments, target: target,
      targetColumn: targetColumn, path: path + [own], commandToken: commandToken)
  }
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
    let target: WindowReference
    var targetColumn: Int?
    if let first = tokens.first, let reference = first.windowReference {
      window = try self.window(.label(reference), column: first.column, in: directory)
      target = .label(CommandToken.bareWindowReference(reference))
      targetColumn = first.column
      rest = rest.dropFirst()
    } else if let named {
      window = try self.window(.label(named), column: 1, in: directory)
      target = .label(named)
    } else {
      window = directory.focusedWindow
      target = .focused
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
          spec: route.spec, module: route.module, window: runsIn, nameToken: nameToken, argumentTokens: arguments,
          target: target, targetColumn: targetColumn))
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

  /// Resolves a command given by its spec's path (`["network", "fail"]`: the command's name,
  /// then each subcommand's), as a module's kit is handed it: the names are routed as a line's
  /// would be, and nothing is read from text.
  ///
  /// - Throws: `CommandError` when the path names no command where it runs.
  public func resolve(path: [String], in directory: some WindowDirectory, window named: String? = nil)
    throws(CommandError) -> ResolvedCommand
  {
    guard let first = path.first, !first.isEmpty else {
      throw CommandError("the command has no name", isUsageError: true)
    }
    var resolved = try resolve([CommandToken(text: first, column: 1)], in: directory, window: named)
    for name in path.dropFirst() {
      guard let sub = resolved.spec.chosenSubcommand(name) else {
        let names = resolved.spec.subcommands.map(\.name)
        throw CommandError(
          "\(resolved.spec.name) has no subcommand '\(name)'" + Suggestions.didYouMean(name, in: names),
          isUsageError: true)
      }
      resolved = resolved.choosing(sub, namedBy: CommandToken(text: name, column: 1), arguments: [])
    }
    return resolved
  }

  /// `command` where it runs now, against `directory` (the session it runs in): its window
  /// found again as it was named (for a module's command, the only window of its screens when
  /// that one is not one of them).
  ///
  /// - Throws: `CommandError` when the window is not open, or shows no screen the command
  ///   runs on.
  public func relocate(_ command: ResolvedCommand, in directory: some WindowDirectory) throws(CommandError)
    -> ResolvedCommand
  {
    let named = try window(command.target, column: command.targetColumn ?? 1, in: directory)
    var runsIn = named
    if let module = command.module {
      runsIn = try window(for: command.spec, module: module, preferred: named, token: command.nameToken, in: directory)
    }
    return ResolvedCommand(
      spec: command.spec, module: command.module, window: runsIn, nameToken: command.nameToken,
      argumentTokens: command.argumentTokens, target: command.target, targetColumn: command.targetColumn,
      path: command.subcommandPath, commandToken: command.commandToken)
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
    return command.choosing(named, namedBy: word, arguments: Array(command.argumentTokens.dropFirst()))
  }

  /// The window `reference` names in `directory` (`nil` for the focused one when none is).
  ///
  /// - Throws: `CommandError` at `column` when no open window has the label.
  func window(_ reference: WindowReference, column: Int, in directory: some WindowDirectory) throws(CommandError)
    -> DirectoryWindow?
  {
    switch reference {
    case .focused: return directory.focusedWindow
    case .label(let label):
      guard let window = directory.findWindow(named: label) else {
        throw CommandError(directory.missingWindowMessage(label), column: column)
      }
      return window
    }
  }

  /// The window a module command runs in: the preferred one when its screen fits, else the
  /// only open window that fits.
  func window(
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
