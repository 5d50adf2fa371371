/// What work that runs outside a command (a module's timer, a live source's event) may do to
/// its session: commit a document and open and close windows, as a command may. The host of the
/// session is the one (`SessionServices.work`); nothing else reaches the host from there.
@MainActor
public protocol SessionWork: AnyObject {
  /// The session's open windows, in the order they were opened.
  var windows: [Window] { get }
  /// A document as it is now, or `nil` when there is none of that name.
  func document(named name: String) -> DocumentSnapshot?
  /// Commits `body` to the document `name` if it is still at `revision` (compare-and-swap, as
  /// a command's commit is against other processes): a new revision, undoable, in every window.
  ///
  /// - Throws: `CommandError` saying why it was not saved (the document moved on, or is gone).
  func commit(_ body: any DocumentBody, toDocument name: String, ifAt revision: Int, summary: String)
    throws(CommandError)
  /// Checks a module's write before anything is stored: the one place that says who may write
  /// what (docs/protocol.md, "Who may write what"). A module writes only documents of the kinds
  /// it registered, and only a body the kind's own decoder reads.
  ///
  /// - Returns: the body as the document's kind reads it, or why the write is refused.
  func admitWrite(_ json: [UInt8], toDocument name: String, by module: String) -> WriteAdmission
  /// The environment a screen on the document is made in.
  func screenEnvironment(for documentName: String) -> ScreenEnvironment
  /// Opens a window on a screen of the module's, named `name` (numbered when `nil`).
  func openWindow(screen: String, document: String, name: String?) throws(CommandError) -> Window
  /// Opens a window on `model`, named `name` (numbered when `nil`).
  func openWindow<Model: ScreenModel>(_ model: Model, screen: String, document: String, name: String?)
    throws(CommandError) -> Window
  /// Closes a window.
  func closeWindow(_ id: WindowID)
}

/// What `SessionWork.admitWrite` decided about a module's write.
public enum WriteAdmission {
  /// The body, as the document's kind decoded it: it may be committed.
  case admitted(any DocumentBody)
  /// The document is gone: nothing to write (the module is told, not blamed).
  case noDocument
  /// The body is not JSON at all: a malformed reply (§9), said as such.
  case notJSON(String)
  /// The module wrote what is not its own, or a body its kind refuses: a violation that
  /// changes nothing. The text says what it did.
  case refused(String)
}

/// The session's work as a module's code reaches it (`CommandContext.session`,
/// `SessionServices.work`): what `SessionWork` says and nothing more. It is not the host, so a
/// cast gets a module no further.
@MainActor
final class HostWork: SessionWork {
  unowned let host: Host

  init(host: Host) { self.host = host }

  var windows: [Window] { host.windows }
  func document(named name: String) -> DocumentSnapshot? { host.document(named: name) }
  func commit(_ body: any DocumentBody, toDocument name: String, ifAt revision: Int, summary: String)
    throws(CommandError)
  {
    try host.commit(body, toDocument: name, ifAt: revision, summary: summary)
  }
  func admitWrite(_ json: [UInt8], toDocument name: String, by module: String) -> WriteAdmission {
    host.admitWrite(json, toDocument: name, by: module)
  }
  func screenEnvironment(for documentName: String) -> ScreenEnvironment { host.screenEnvironment(for: documentName) }
  func openWindow(screen: String, document: String, name: String?) throws(CommandError) -> Window {
    try host.openWindow(screen: screen, document: document, name: name)
  }
  func openWindow<Model: ScreenModel>(_ model: Model, screen: String, document: String, name: String?)
    throws(CommandError) -> Window
  {
    try host.openWindow(model, screen: screen, document: document, name: name)
  }
  func closeWindow(_ id: WindowID) { host.closeWindow(id) }
}

extension Host {
  public func admitWrite(_ json: [UInt8], toDocument name: String, by module: String) -> WriteAdmission {
    guard let entry = documents[name] else { return .noDocument }
    let owner = registry.owner(ofKind: entry.kind)
    guard owner == module else {
      return .refused(
        "it wrote the document \(name), a \(entry.kind) document"
          + (owner.map { " of the module \($0)" } ?? "") + ": a module writes only documents of its own kinds")
    }
    do {
      return .admitted(try registry.decodeDocument(kind: entry.kind, json: json))
    } catch {
      // Parsed once more only when it failed, to say which of the two it was.
      do {
        _ = try FrameValue.parse(json: json)
      } catch {
        return .notJSON("\(error)")
      }
      return .refused(
        "it wrote the document \(name) with a body its kind \(entry.kind) does not read (\(error.message))")
    }
  }

  public func commit(_ body: any DocumentBody, toDocument name: String, ifAt revision: Int, summary: String)
    throws(CommandError)
  {
    guard let entry = documents[name] else { throw CommandError("document '\(name)' no longer exists") }
    guard entry.revision == revision else {
      throw CommandError(
        "document '\(name)' is at revision \(entry.revision), and the change was made to revision \(revision): "
          + "it was not saved (the windows show the document as it is)")
    }
    try documents.commit(body, to: entry, summary: summary)
  }
}
