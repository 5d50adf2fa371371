import WorkbenchModuleAPI

/// The documents of one session: each with its revision and its edit history, saved through
/// the workspace (compare and swap) when there is one, and reported to whoever shows them.
///
/// This is the host's document half; `Host` composes it with the windows and the command
/// router. Every change of a body, committed here or taken in from another process, goes
/// through `apply`, which calls `changed` so the windows on the document hear of it.
@MainActor
final class SessionDocuments {
  private var entries: [String: DocumentEntry] = [:]
  let registry: ModuleRegistry
  /// Where committed documents are stored; `nil` keeps them in memory only.
  var persistence: (any DocumentPersistence)?
  /// Called after a document's body changed.
  var changed: (DocumentEntry) -> Void = { _ in }
  /// Called after a document was removed, here or by another process.
  var removed: (String) -> Void = { _ in }
  /// Called when a change from elsewhere could not be taken in.
  var warned: (RestorationWarning) -> Void = { _ in }
  /// Called with a document's entry just before its body changes or it goes (a time-travel
  /// journal keeps the body the session started with); `nil` costs nothing.
  var willChange: ((DocumentEntry) -> Void)?

  /// How many edits a document's log holds before the next save stores it whole again.
  static let maximumEditsSinceSnapshot = 256

  init(registry: ModuleRegistry) {
    self.registry = registry
  }

  /// The entry of the document named `name`.
  subscript(name: String) -> DocumentEntry? {
    get { entries[name] }
    set { entries[name] = newValue }
  }

  /// Every document's name, sorted.
  var names: [String] { entries.keys.sorted() }

  /// Every document's revision by its name.
  var revisions: [String: Int] { entries.mapValues(\.revision) }

  /// The modules' sample documents, at revision 1, with their JSON when a host has encoded it.
  /// A sample of a module not registered yet is listed now and made when first read (which
  /// registers its module).
  func loadSamples() {
    let registry = self.registry
    for sample in registry.sampleNames {
      guard let kind = registry.registrations.documentKinds[sample.kind] else {
        let kindName = sample.kind
        let name = sample.name
        entries[name] = DocumentEntry(
          name: name, kind: kindName, revision: 1,
          making: { () throws(CommandError) -> any DocumentBody in
            guard let made = registry.documentKind(named: kindName)?.samples.first(where: { $0.name == name }) else {
              throw CommandError(
                "the sample '\(name)' could not be made: "
                  + (registry.failure(of: registry.owner(ofKind: kindName) ?? "") ?? "its module did not register it"))
            }
            return made.body
          })
        continue
      }
      guard let made = kind.samples.first(where: { $0.name == sample.name }) else { continue }
      let entry = DocumentEntry(name: made.name, kind: kind.name, revision: 1, body: made.body)
      if let json = made.jsonIfEncoded { entry.encoded = (1, json) }
      entries[made.name] = entry
    }
  }

  /// Adds a document, or replaces the body of an existing one as a committed change.
  func put(_ body: any DocumentBody, named name: String, kind: String) throws(CommandError) {
    if let problem = Self.nameProblem(name) { throw CommandError(problem) }
    guard let documentKind = registry.documentKind(named: kind) else {
      throw CommandError(
        "unknown document kind '\(kind)'"
          + Suggestions.didYouMean(kind, in: registry.documentKinds.keys))
    }
    guard documentKind.matches(body) else {
      throw CommandError("the body given for '\(name)' is not a \(kind) document")
    }
    if let entry = entries[name] {
      guard entry.kind == kind else {
        throw CommandError("document '\(name)' is a \(entry.kind) document, not \(kind)")
      }
      try commit(body, to: entry, summary: "replace \(name)")
    } else {
      let entry = DocumentEntry(name: name, kind: kind, revision: 0, body: body)
      try store(body, in: entry)
      entries[name] = entry
      removedNames.remove(name)
    }
  }

  /// A committed change: stored as the next revision, undoable.
  func commit(_ body: any DocumentBody, to entry: DocumentEntry, summary: String) throws(CommandError) {
    // Every write is of the document's own kind: a body of another type is never stored.
    if let kind = registry.documentKind(named: entry.kind), !kind.matches(body) {
      throw CommandError("the change to '\(entry.name)' is not a \(entry.kind) document: it was not saved")
    }
    // A stored body that cannot be read is replaced without an undo step back to it.
    let previous = try? entry.load()
    try store(body, in: entry)
    if let previous { entry.undoStack.append(DocumentEdit(body: previous, summary: summary)) }
    entry.redoStack.removeAll()
  }

  /// Why `name` cannot name a document, or `nil`: a name is shown in prompts, lists and
  /// messages, so it must be text, not terminal control (checked where a name enters: an
  /// import, a scenario, a workspace row).
  public static func nameProblem(_ name: String) -> String? {
    if name.isEmpty || name.allSatisfy(\.isWhitespace) { return "a document needs a name that is not empty" }
    if let control = TerminalText.controlCharacter(in: name) {
      let hex = String(control.value, radix: 16, uppercase: true)
      return "the document name '\(TerminalText.visible(name))' holds a control character (U+"
        + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "): rename it without one"
    }
    return nil
  }

  /// Stores `body` as the document's next revision (through `persistence`, when there is one),
  /// then makes it the current facts and tells every window. A failed or conflicting save
  /// changes nothing but, on a conflict, brings in the version that won.
  func store(_ body: any DocumentBody, in entry: DocumentEntry) throws(CommandError) {
    guard let next = OutsideNumbers.successor(of: entry.revision) else {
      throw CommandError(OutsideNumbers.lastRevision(of: entry.name))
    }
    guard let persistence else {
      apply(body, to: entry, revision: next)
      return
    }
    // An edit the kind can describe is stored as that edit, so its cost follows the edit, not
    // the document; past `maximumEditsSinceSnapshot` the whole document is stored again.
    if entry.isLoaded, entry.editsSinceSnapshot < Self.maximumEditsSinceSnapshot,
      let kind = registry.documentKind(named: entry.kind), let edit = kind.edit(entry.body, body),
      let outcome = try persistence.appendEdit(document: entry.name, edit: edit, baseRevision: entry.revision)
    {
      _ = try take(outcome, body: body, in: entry)
      entry.editsSinceSnapshot += 1
      return
    }
    let json: String
    do {
      json = try DocumentEntry.encode(body)
    } catch {
      throw CommandError("document '\(entry.name)' cannot be saved: \(error)")
    }
    let outcome = try persistence.save(
      document: entry.name, kind: entry.kind, body: json, baseRevision: entry.revision)
    let revision = try take(outcome, body: body, in: entry)
    entry.encoded = (revision, json)
    entry.editsSinceSnapshot = 0
  }

  /// Acts on what a save did: a saved body becomes the document's facts at its new revision;
  /// a conflict brings in the version that won and throws saying so.
  private func take(_ outcome: SaveOutcome, body: any DocumentBody, in entry: DocumentEntry) throws(CommandError)
    -> Int
  {
    switch outcome {
    case .saved(let revision):
      apply(body, to: entry, revision: revision)
      return revision
    case .conflicted(let current):
      adoptExternalChange(current)
      throw CommandError(
        "document '\(entry.name)' was changed elsewhere (it is now at revision \(current.revision)), so this edit "
          + "was not saved; the windows show the latest version: make the edit again if you still want it")
    }
  }

  /// Makes `body` the document's current facts at `revision` and reports the change.
  func apply(_ body: any DocumentBody, to entry: DocumentEntry, revision: Int) {
    willChange?(entry)
    entry.body = body
    entry.revision = revision
    changed(entry)
  }

  /// Undoes or redoes the last edit of a document, as a new revision.
  ///
  /// - Throws: `CommandError` when there is nothing to step to, or the save failed (the step
  ///   then stays where it was, unless another process's version came in, which ends the history).
  func step(_ entry: DocumentEntry, undo: Bool) throws(CommandError) {
    guard let edit = undo ? entry.undoStack.popLast() : entry.redoStack.popLast() else {
      throw CommandError("nothing to \(undo ? "undo" : "redo") in document '\(entry.name)'")
    }
    let current = DocumentEdit(body: entry.body, summary: edit.summary)
    let revision = entry.revision
    do {
      try store(edit.body, in: entry)
    } catch {
      if entry.revision == revision {
        if undo { entry.undoStack.append(edit) } else { entry.redoStack.append(edit) }
      }
      throw error
    }
    if undo { entry.redoStack.append(current) } else { entry.undoStack.append(current) }
  }

  /// Removes a document (through `persistence`, when there is one). A conflicting removal
  /// removes nothing and brings in the version that won.
  func remove(_ entry: DocumentEntry) throws(CommandError) {
    if let persistence {
      if case .conflicted(let current) = try persistence.remove(document: entry.name, baseRevision: entry.revision) {
        adoptExternalChange(current)
        throw CommandError(
          "document '\(entry.name)' was changed elsewhere (it is now at revision \(current.revision)), so it was "
            + "not removed: look at it again, and remove it again if you still want it gone")
      }
    }
    willChange?(entry)
    entries[entry.name] = nil
    removedNames.insert(entry.name)
    removed(entry.name)
  }

  /// The documents this session removed, so a workspace made for it later (a relaunch in
  /// memory) marks them removed and does not add their samples back.
  private(set) var removedNames: Set<String> = []

  /// A document is there again (taken in from elsewhere).
  func forgetRemoval(of name: String) { removedNames.remove(name) }

  /// Takes in a version of a document stored by someone else. Its undo history ends here:
  /// undoing past another process's change would silently revert it. An empty body is a removal.
  func adoptExternalChange(_ stored: SessionRecord.Document) {
    if let entry = entries[stored.name] { willChange?(entry) }
    if stored.kind.isEmpty {
      guard entries[stored.name] != nil else { return }
      entries[stored.name] = nil
      removed(stored.name)
      return
    }
    // A document nothing here has decoded stays undecoded: it takes the new version as text.
    if let kind = registry.documentKind(named: stored.kind), entries[stored.name].map({ !$0.isLoaded }) ?? true {
      let json = stored.body
      let revision = stored.revision
      entries[stored.name] = DocumentEntry(
        name: stored.name, kind: stored.kind, revision: stored.revision,
        source: { () throws(CommandError) -> StoredDocument in StoredDocument(revision: revision, json: json) },
        reader: kind)
      removedNames.remove(stored.name)
      return
    }
    guard let kind = registry.documentKind(named: stored.kind), let body = try? kind.decode(Array(stored.body.utf8))
    else {
      warned(
        RestorationWarning(message: "document '\(stored.name)' changed elsewhere and could not be read; kept as it was")
      )
      return
    }
    adopt(body, named: stored.name, kind: stored.kind, revision: stored.revision)
  }

  /// Takes in a body at a revision, as another process's change; adds the document if missing.
  func adopt(_ body: any DocumentBody, named name: String, kind: String, revision: Int) {
    removedNames.remove(name)
    if let entry = entries[name] {
      guard entry.kind == kind else { return }
      entry.undoStack.removeAll()
      entry.redoStack.removeAll()
      apply(body, to: entry, revision: revision)
    } else {
      entries[name] = DocumentEntry(name: name, kind: kind, revision: revision, body: body)
    }
  }

  /// Brings in documents other processes changed since this session last looked.
  func synchronize() throws(CommandError) {
    guard let persistence else { return }
    var known: [String: Int] = [:]
    for (name, entry) in entries { known[name] = entry.revision }
    for change in try persistence.changes(since: known) { adoptExternalChange(change) }
  }
}
