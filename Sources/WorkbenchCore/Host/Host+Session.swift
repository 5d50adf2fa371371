import WorkbenchModuleAPI

extension Host {
  /// Drops the windows kept dormant on screens named in `screens` (a module's new build no
  /// longer registers them); returns what was dropped, as `NAME (SCREEN)`.
  public func dropDormantWindows(onScreens screens: Set<String>) -> [String] {
    let dropped = dormantWindows.filter { screens.contains($0.screen) }
    dormantWindows.removeAll { screens.contains($0.screen) }
    return dropped.map { "\($0.name ?? String($0.number)) (\($0.screen))" }
  }

  /// The session as a record: documents, windows in order, view states, focus.
  ///
  /// - Parameter includingDocuments: false leaves the documents out (they are saved as they
  ///   change), which makes the record as cheap as the windows' view states.
  /// - Throws: `CommandError` if a document or view state cannot be encoded.
  public func sessionRecord(includingDocuments: Bool = true) throws(CommandError) -> SessionRecord {
    var documentRecords: [SessionRecord.Document] = []
    for name in includingDocuments ? documentNames : [] {
      guard let entry = documents[name] else { continue }
      do {
        let body = try entry.json()
        documentRecords.append(.init(name: name, kind: entry.kind, revision: entry.revision, body: body))
      } catch {
        throw CommandError("document '\(name)' cannot be saved: \(error)")
      }
    }
    var windowRecords: [SessionRecord.Window] = []
    for window in windows {
      do {
        windowRecords.append(
          .init(
            number: window.id.number, name: window.name, screen: window.screen.name, document: window.documentName,
            viewState: try window.content.viewStateRecord()))
      } catch {
        throw CommandError("the view state of window \(window.label) cannot be saved: \(error)")
      }
    }
    // Dormant windows (of a module not loaded) are kept in their place.
    windowRecords = (windowRecords + dormantWindows).sorted { $0.number < $1.number }
    return SessionRecord(
      documents: documentRecords, windows: windowRecords, focusedWindow: focusedWindowID?.number,
      nextWindowNumber: nextWindowNumber)
  }

  /// The current view-state version of a window's screen.
  public func viewStateVersion(of id: WindowID) -> Int? {
    try? window(id)?.content.viewStateRecord().version
  }

  /// A host with `modules` whose session is rebuilt from `record`.
  ///
  /// Nothing in the record can make this fail or trap: a document that does not decode is left
  /// out, a window whose screen or document is gone is left out, and a view state that does not
  /// decode (corrupt, or from a newer version) falls back to the screen's default. Each of these
  /// is listed in `restorationWarnings`; the other windows are restored as they were.
  package convenience init(
    modules: [any FeatureModule], environment: ScreenEnvironment = ScreenEnvironment(),
    clock: SessionClock.Mode = .real, restoring record: SessionRecord, addingMissingSamples: Bool = false
  ) throws(RegistrationError) {
    self.init(
      registry: try ModuleRegistry(modules: modules), environment: environment, clock: clock, restoring: record,
      addingMissingSamples: addingMissingSamples)
  }

  /// A host on modules already registered, whose session is rebuilt from `record`.
  ///
  /// Documents are not decoded here: each is decoded when first needed (a window on it is
  /// restored or opened, a command names it), so a start costs what its windows show.
  ///
  /// - Parameters:
  ///   - removedDocuments: documents the workspace says were removed: samples of those names
  ///     are not added back.
  ///   - bodies: where a document's stored revision and JSON come from when it is first
  ///     needed; when `nil`, the record's bodies are used. (The workspace passes a reader so a
  ///     document nobody opens is never even read.)
  public convenience init(
    registry: ModuleRegistry, environment: ScreenEnvironment = ScreenEnvironment(),
    clock: SessionClock.Mode = .real, restoring record: SessionRecord, addingMissingSamples: Bool = false,
    removedDocuments: Set<String> = [],
    bodies: (@MainActor (String) throws(CommandError) -> StoredDocument)? = nil
  ) {
    self.init(registry: registry, environment: environment, clock: clock, loadSamples: addingMissingSamples)
    for name in removedDocuments { documents[name] = nil }
    var warnings: [RestorationWarning] = []
    for stored in record.documents {
      if let problem = SessionDocuments.nameProblem(stored.name) {
        warnings.append(RestorationWarning(message: problem + "; it is kept in the workspace, untouched"))
        continue
      }
      guard let kind = registry.documentKind(named: stored.kind) else {
        // Of a module not loaded this time: kept, listed and removable (the shell's `DormantNote`).
        dormantDocuments.append(
          SessionRecord.Document(name: stored.name, kind: stored.kind, revision: stored.revision, body: ""))
        continue
      }
      if let sample = documents[stored.name], sample.kind != stored.kind {
        warnings.append(
          RestorationWarning(message: "document '\(stored.name)' is stored as \(stored.kind), not \(sample.kind)"))
      }
      let name = stored.name
      let revision = stored.revision
      let json = bodies == nil ? stored.body : ""
      documents[stored.name] = DocumentEntry(
        name: stored.name, kind: stored.kind, revision: stored.revision,
        source: { () throws(CommandError) -> StoredDocument in
          if let bodies { return try bodies(name) }
          return StoredDocument(revision: revision, json: json)
        }, reader: kind)
    }
    for stored in record.windows.sorted(by: { $0.number < $1.number }) {
      let label = stored.name ?? String(stored.number)
      // A screen no module registered this time (an external module not loaded): the window is
      // kept as it was, dormant, and comes back when the module is loaded again.
      if registry.screenKind(named: stored.screen) == nil, !stored.screen.isEmpty {
        dormantWindows.append(stored)
        continue
      }
      let body: (any DocumentBody)?
      do {
        body = try documents[stored.document]?.load()
      } catch {
        warnings.append(RestorationWarning(message: "window \(label): \(error.message); the window is closed"))
        continue
      }
      guard let screen = registry.screenKind(named: stored.screen), let entry = documents[stored.document], let body,
        entry.kind == screen.documentKind,
        let content = makeContent(screen, showing: entry, body: body, window: stored.number)
      else {
        warnings.append(
          RestorationWarning(
            message: "window \(label) (\(stored.screen) \(stored.document)) cannot be shown any more; closed"))
        continue
      }
      if let problem = acting(
        as: screen.module, { self.clock.inWindow(stored.number) { content.restoreViewState(from: stored.viewState) } })
      {
        warnings.append(RestorationWarning(message: "window \(label): \(problem); it starts from a fresh view"))
      }
      // A name from a row meets the rules a typed one does (it is shown in the prompt).
      var name = stored.name
      if let given = name {
        do throws(CommandError) {
          try windowList.validateName(given)
        } catch {
          warnings.append(
            RestorationWarning(
              message: "window \(stored.number): \(TerminalText.visible(error.message)); it is shown by its number"))
          name = nil
        }
      }
      windowList.restore(
        Window(
          id: WindowID(stored.number), name: name, screen: screen, documentName: stored.document, content: content))
    }

    let highest = dormantWindows.map(\.number).max().map(OutsideNumbers.saturatingSuccessor) ?? 1
    windowList.reservedNumbers = Set(dormantWindows.map(\.number))
    windowList.finishRestoring(
      nextNumber: max(record.nextWindowNumber, highest), focus: record.focusedWindow.map(WindowID.init))
    restorationWarnings = warnings
  }
}
