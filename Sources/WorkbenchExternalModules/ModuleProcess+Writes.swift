import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol

/// Who may write what (docs/protocol.md, "Who may write what"): every document a module process
/// commits, from a command, a timer, a live event or a `sync`, passes here before it is stored.
extension ModuleProcess {
  /// A document the module committed, checked: it must be of a kind the module registered, read
  /// by that kind's decoder, and (for work outside a window's command) one the session has
  /// open on the module or handed to it. A write outside that is a violation (§9): the module is
  /// stopped and nothing is stored.
  ///
  /// - Returns: the body to commit, or `nil` when the document is gone (the caller says so).
  /// - Throws: `CommandError` naming the violation, once the module is stopped.
  /// `what` names the write in a violation's message (`its \`commit\``).
  func admittedBody(
    _ json: String, toDocument name: String, in session: Int, host: Host, what: String
  ) throws(CommandError) -> (any DocumentBody)? {
    let body: any DocumentBody
    // The host checks it as this module's write: the proxy stands in for the module's code.
    switch host.acting(as: self.name, { host.admitWrite(Array(json.utf8), toDocument: name) }) {
    case .admitted(let admitted): body = admitted
    case .noDocument: return nil
    case .notJSON(let problem):
      throw ProxyScreen.protocolViolation("\(what) was not valid JSON (\(problem))", process: self, host: host)
    case .refused(let what):
      throw ProxyScreen.protocolViolation(TerminalText.visible(what) + " (§9)", process: self, host: host)
    }
    guard isHeld(name, in: session) else {
      throw ProxyScreen.protocolViolation(
        "it wrote the document \(TerminalText.visible(name)), which no window of its in the session shows and no "
          + "request handed it (§9)", process: self, host: host)
    }
    return body
  }

  /// Whether the session has `name` open on one of this module's windows, or a request about it
  /// went to the module in the session.
  func isHeld(_ name: String, in session: Int) -> Bool {
    documentsHanded.contains(SentDocument(session: session, name: name))
      || screens.contains { $0.screen.map { $0.session == session && $0.documentName == name } ?? false }
  }
}
