import WorkbenchModuleAPI

extension Host {

  /// Opens windows again in place from their documents as the session holds them and their
  /// view states, as a relaunch restores them, without ending the session: the same numbers,
  /// names, order and focus, the same clock and services, and the host's undo history of each.
  /// The screen model is made anew (a module process is told the window closed and opened).
  ///
  /// - Returns: what could not be done, a line each (a window that could not be made again is
  ///   closed; one whose view state did not restore starts from a fresh view).
  @discardableResult
  public func reopenWindows(_ ids: [WindowID]) -> [String] {
    var problems: [String] = []
    for id in ids {
      guard let window = window(id) else { continue }
      let record: ViewStateRecord
      let entry: DocumentEntry
      let body: any DocumentBody
      do {
        record = try window.content.viewStateRecord()
        guard let found = documents[window.documentName] else { throw CommandError("its document is gone") }
        entry = found
        body = try entry.load()
      } catch {
        problems.append("window \(window.label) was not opened again: \(error)")
        continue
      }
      // The old model goes first (a module process is told the window closed before it opens).
      window.content.windowClosed()
      guard let content = makeContent(window.screen, showing: entry, body: body, window: id.number) else {
        windowList.drop(id)
        problems.append("window \(window.label) could not be opened again; it is closed")
        continue
      }
      if let problem = content.restoreViewState(from: record) {
        problems.append("window \(window.label): \(problem); it starts from a fresh view")
      }
      content.takeHistory(from: window.content)
      windowList.replace(
        Window(id: id, name: window.name, screen: window.screen, documentName: window.documentName, content: content))
    }
    return problems
  }
}
