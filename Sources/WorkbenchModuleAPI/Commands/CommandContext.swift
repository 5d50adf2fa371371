/// What a command handler gets: its arguments, the window it runs in, that window's model and
/// document, the session's services, and the session's work with the module's own documents and
/// windows. Never the host: what it can do is what a module may do.
@MainActor
public struct CommandContext {
  /// The parsed, validated arguments.
  public let arguments: ParsedArguments
  /// The window the command runs in (`@WINDOW` or the focused one); `nil` when none is open.
  public let window: Window?
  /// The session the command runs in, as its host keeps it: for the host's own commands and
  /// parts (`WorkbenchCore`), which know what it is.
  package let runtime: any CommandRuntime
  /// The command as the host resolved and bound it, for the host's own parts (a module
  /// process's proxy sends it on); `nil` for work that is not a command's.
  package let command: (any Sendable)?
  /// What the command did that the host needs to know once it returns.
  package let effects: CommandEffects

  package init(
    arguments: ParsedArguments, window: Window?, runtime: any CommandRuntime, command: (any Sendable)? = nil,
    effects: CommandEffects = CommandEffects()
  ) {
    self.arguments = arguments
    self.window = window
    self.runtime = runtime
    self.command = command
    self.effects = effects
  }

  /// The session's services (a network, a bridge, the app session), its time and its facts.
  public var services: SessionServices { runtime.services }

  /// The session's work beyond this window: the module's documents and windows.
  public var session: any SessionWork { runtime.work }

  /// What a screen on `document` is made with: the session's time, scheduler and services.
  public func environment(forDocument document: String) -> ScreenEnvironment {
    runtime.work.screenEnvironment(for: document)
  }

  /// Opens a window on a screen the command made (a room from a home window), as the command's
  /// effect: the window is the session's, focused, with its frame shown.
  public func openWindow<Model: ScreenModel>(
    _ model: Model, screen: String, document: String, name: String? = nil
  ) throws(CommandError) -> Window {
    try runtime.work.openWindow(model, screen: screen, document: document, name: name)
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
    let snapshot = try runtime.windowDocument(of: window)
    guard let body = snapshot.body as? Body else {
      throw CommandError("window \(window.label) shows a \(snapshot.kind) document, which has no such command")
    }
    return body
  }

  /// The current revision of the window's document.
  public func documentRevision() throws(CommandError) -> Int {
    try runtime.windowDocument(of: try requireWindow()).revision
  }

  /// Commits a new body for the window's document: the revision increases, the change can be
  /// undone, and every window on the document receives the new body.
  public func commit<Body: DocumentBody>(_ body: Body, summary: String) throws(CommandError) {
    try runtime.commit(body, toDocumentOf: try requireWindow(), summary: summary)
    effects.steppedHistory = true
  }
}

/// The session a command runs in, as the host gives it to a command's context: its services, the
/// work a module may do, and the window's document. The host implements it; a module only ever
/// reaches it through a `CommandContext`.
@MainActor
package protocol CommandRuntime: AnyObject {
  var services: SessionServices { get }
  /// The session's work as the module whose code runs may do it.
  var work: any SessionWork { get }
  /// The document a window shows, as it is now.
  func windowDocument(of window: Window) throws(CommandError) -> DocumentSnapshot
  /// Commits a new body for the document a window shows.
  func commit(_ body: any DocumentBody, toDocumentOf window: Window, summary: String) throws(CommandError)
}

/// What a running command did that decides how it is recorded: a command that committed a
/// document change (or moved through a history) is a step of that history, not also a step of
/// its window's view history; and what it asks of the session once it returns.
@MainActor
package final class CommandEffects {
  package var steppedHistory = false
  /// What the command asks of the session (the host's own requests: quit, relaunch, record).
  package var request: (any Sendable)?

  package init() {}
}
