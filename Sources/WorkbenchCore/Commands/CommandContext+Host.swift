import WorkbenchModuleAPI

/// The host is what a command's context runs on: its services, the work a module may do, and
/// the window's document.
extension Host: CommandRuntime {
  package func windowDocument(of window: Window) throws(CommandError) -> DocumentSnapshot {
    guard let entry = documents[window.documentName] else {
      throw CommandError("document '\(window.documentName)' no longer exists")
    }
    return DocumentSnapshot(name: entry.name, kind: entry.kind, revision: entry.revision, body: try entry.load())
  }

  package func commit(_ body: any DocumentBody, toDocumentOf window: Window, summary: String) throws(CommandError) {
    guard let entry = documents[window.documentName] else {
      throw CommandError("document '\(window.documentName)' no longer exists")
    }
    if !isActing(onKind: entry.kind) {
      throw CommandError(
        "the \(acting ?? "") module may not write the document \(entry.name), a \(entry.kind) document of another module"
      )
    }
    try documents.commit(body, to: entry, summary: summary)
  }
}

extension CommandContext {
  /// The host the command runs on: for the host's own commands and parts (a module process's
  /// proxy), which know it is one. A module never gets here: it does not see this target.
  package var host: Host {
    guard let host = runtime as? Host else { preconditionFailure("a command ran on something other than a host") }
    return host
  }

  /// The command as the host resolved and bound it; `nil` for work that is not a command's.
  package var bound: BoundCommand? { command as? BoundCommand }
}
