import WorkbenchModuleAPI

/// What `Host.admitWrite` decided about a module's write.
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
/// `SessionServices.work`): the documents of its own kinds, and the windows on its own screens.
/// Whose code runs is the host's to know (`Host.acting`); with none (the host's own code) the
/// whole session is reached. It is not the host, so a cast gets a module no further.
@MainActor
final class HostWork: SessionWork {
  unowned let host: Host

  init(host: Host) { self.host = host }

  var windows: [Window] { host.windows.filter { host.isActing(on: $0) } }

  func document(named name: String) -> DocumentSnapshot? {
    guard let snapshot = host.document(named: name), host.isActing(onKind: snapshot.kind) else { return nil }
    return snapshot
  }

  func commit(_ body: any DocumentBody, toDocument name: String, ifAt revision: Int, summary: String)
    throws(CommandError)
  {
    if let kind = host.documentKind(of: name), !host.isActing(onKind: kind) {
      throw CommandError(
        "the \(host.acting ?? "") module may not write the document \(name), a \(kind) document of another module")
    }
    try host.commit(body, toDocument: name, ifAt: revision, summary: summary)
  }

  func screenEnvironment(for documentName: String) -> ScreenEnvironment { host.screenEnvironment(for: documentName) }

  func openWindow(screen: String, document: String, name: String?) throws(CommandError) -> Window {
    try host.checkActing(onScreen: screen)
    return try host.openWindow(screen: screen, document: document, name: name)
  }

  func openWindow<Model: ScreenModel>(_ model: Model, screen: String, document: String, name: String?)
    throws(CommandError) -> Window
  {
    try host.checkActing(onScreen: screen)
    return try host.openWindow(model, screen: screen, document: document, name: name)
  }

  func closeWindow(_ id: WindowID) {
    guard let window = host.window(id), host.isActing(on: window) else { return }
    host.closeWindow(id)
  }
}

extension Host {
  /// The module whose code runs now (the one that registered the command, the timer or the live
  /// source being run); `nil` while the host's own code runs.
  package var acting: String? {
    get { clock.acting }
    set { clock.acting = newValue }
  }

  /// Runs `body` as the code of `module` (`nil`: the host's own).
  package func acting<Result, Failure>(as module: String?, _ body: () throws(Failure) -> Result) throws(Failure)
    -> Result
  {
    let outer = acting
    acting = module
    defer { acting = outer }
    return try body()
  }

  /// Whether the code running now may reach documents of `kind`: the host's own may reach any;
  /// a module's, only its own kinds'.
  func isActing(onKind kind: String) -> Bool {
    guard let acting else { return true }
    return registry.owner(ofKind: kind) == acting
  }

  /// Whether the code running now may reach `window`: one on a screen of the module's own.
  func isActing(on window: Window) -> Bool {
    guard let acting else { return true }
    return window.screen.module == acting
  }

  /// Refuses a window on a screen another module registered, for the module whose code runs.
  func checkActing(onScreen screen: String) throws(CommandError) {
    guard let acting, let owner = registry.module(ofScreen: screen), owner != acting else { return }
    throw CommandError("the \(acting) module may not open a window on \(owner)'s screen \(screen)")
  }

  /// Checks a module's write before anything is stored: the one place that says who may write
  /// what (docs/protocol.md, "Who may write what"). The writer is the module whose code runs
  /// (`acting`), never a name a caller passes: it writes only documents of the kinds it
  /// registered, and only a body the kind's own decoder reads.
  ///
  /// - Returns: the body as the document's kind reads it, or why the write is refused.
  package func admitWrite(_ json: [UInt8], toDocument name: String) -> WriteAdmission {
    guard let entry = documents[name] else { return .noDocument }
    let owner = registry.owner(ofKind: entry.kind)
    guard let module = acting, owner == module else {
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

extension SessionServices {
  /// The host of the session, for the host's own parts (a module process's proxy, which does
  /// its module's work as the module); `nil` outside a host.
  package var host: Host? { (work as? HostWork)?.host }
}
