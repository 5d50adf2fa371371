/// What a module's code may do to its session beyond the window a command runs in: read and
/// commit documents of its own kinds, and open and close windows on its own screens. The host
/// knows whose code is running (the module that registered the command, the timer or the live
/// source), so nothing here says who writes, and another module's documents and windows are
/// out of reach. A command reaches it as `context.session`, a timer or a live event as
/// `services.work`.
@MainActor
public protocol SessionWork: AnyObject {
  /// The module's windows in the session, in the order they were opened.
  var windows: [Window] { get }
  /// A document of one of the module's kinds as it is now; `nil` when there is none of that
  /// name, or it is another module's.
  func document(named name: String) -> DocumentSnapshot?
  /// Commits `body` to the document `name`, one of the module's kinds, if it is still at
  /// `revision` (compare-and-swap, as a command's commit is against other processes): a new
  /// revision, undoable, in every window on it.
  ///
  /// - Throws: `CommandError` saying why it was not saved (the document moved on, is gone, or
  ///   is not the module's).
  func commit(_ body: any DocumentBody, toDocument name: String, ifAt revision: Int, summary: String)
    throws(CommandError)
  /// The environment a screen on the document is made in.
  func screenEnvironment(for documentName: String) -> ScreenEnvironment
  /// Opens a window on one of the module's screens, named `name` (numbered when `nil`).
  func openWindow(screen: String, document: String, name: String?) throws(CommandError) -> Window
  /// Opens a window on `model`, one of the module's screens, named `name` (numbered when `nil`).
  func openWindow<Model: ScreenModel>(_ model: Model, screen: String, document: String, name: String?)
    throws(CommandError) -> Window
  /// Closes one of the module's windows (another's is left open).
  func closeWindow(_ id: WindowID)
}
