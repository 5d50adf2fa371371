/// What a command handler gets: its parsed arguments, the window it runs in, and the host.
@MainActor
public struct CommandContext {
  /// The command as it runs: its spec, window and bound arguments; `nil` for work that is not a
  /// command's (a window's unsaved work saved as it is left).
  public let command: BoundCommand?
  /// The parsed, validated arguments.
  public var arguments: ParsedArguments { command?.arguments ?? ParsedArguments() }
  /// The window the command runs in (`@WINDOW` or the focused one); `nil` when none is open.
  public let window: Window?
  /// The host, for the host's own commands. A module's command gets what it needs through the
  /// members below (its window, arguments, the session's services and work, opening a window),
  /// never the whole host.
  let host: Host
  /// What the command did that the host needs to know once it returns.
  let effects: CommandEffects

  init(command: BoundCommand?, window: Window?, host: Host, effects: CommandEffects = CommandEffects()) {
    self.command = command
    self.window = window
    self.host = host
    self.effects = effects
  }

  /// The session's services (a network, a bridge, the app session), shared by its windows.
  public var services: SessionServices { host.services }

  /// The session's work outside this window: its documents, a compare-and-swap commit, opening
  /// and closing windows (what a module process's windows need).
  public var session: any SessionWork { host.work }

  /// What a screen on `document` is made with: the session's clock, scheduler and services.
  public func environment(forDocument document: String) -> ScreenEnvironment {
    host.screenEnvironment(for: document)
  }

  /// Opens a window on a screen the command made (a room from a home window), as the command's
  /// effect: the window is the session's, focused, with its frame shown.
  public func openWindow<Model: ScreenModel>(
    _ model: Model, screen: String, document: String, name: String? = nil
  ) throws(CommandError) -> Window {
    try host.openWindow(model, screen: screen, document: document, name: name)
  }

  /// Asks the session to do something once the command returns (quit, relaunch, record, ask
  /// about unsaved work); returns `.nothing`, what such a command shows.
  public func request(_ request: SessionRequest) -> CommandOutput {
    effects.request = request
    return .nothing
  }

  /// The window, or an error saying the command needs one.
  public func requireWindow() throws(CommandError) -> Window {
    guard let window else {
      throw CommandError("no window is open: open one first (see `help open`)")
    }
    return window
  }

  /// The screen model of the window, as type `Model`: a screen's class, or a protocol a
  /// module's screens share.
  public func model<Model>(_ type: Model.Type) throws(CommandError) -> Model {
    let window = try requireWindow()
    guard let model = window.model(as: type) else {
      throw CommandError("window \(window.label) shows \(window.screen.name), which has no such command")
    }
    return model
  }

  /// The window's document as it is now, as type `Body`.
  public func document<Body: DocumentBody>(_ type: Body.Type) throws(CommandError) -> Body {
    let window = try requireWindow()
    guard let entry = host.documents[window.documentName] else {
      throw CommandError("document '\(window.documentName)' no longer exists")
    }
    guard let body = try entry.load() as? Body else {
      throw CommandError("window \(window.label) shows a \(entry.kind) document, which has no such command")
    }
    return body
  }

  /// The current revision of the window's document.
  public func documentRevision() throws(CommandError) -> Int {
    let window = try requireWindow()
    return host.documents[window.documentName]?.revision ?? 0
  }

  /// Commits a new body for the window's document: the revision increases, the change can be
  /// undone, and every window on the document receives the new body.
  public func commit<Body: DocumentBody>(_ body: Body, summary: String) throws(CommandError) {
    let window = try requireWindow()
    guard let entry = host.documents[window.documentName] else {
      throw CommandError("document '\(window.documentName)' no longer exists")
    }
    try host.documents.commit(body, to: entry, summary: summary)
    effects.steppedHistory = true
  }
}

/// What a running command did that decides how it is recorded: a command that committed a
/// document change (or moved through a history) is a step of that history, not also a step of
/// its window's view history.
@MainActor
final class CommandEffects {
  var steppedHistory = false
  var request: SessionRequest?
}
