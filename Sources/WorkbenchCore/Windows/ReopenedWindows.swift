import WorkbenchModuleAPI

extension Host {

  /// Opens windows again in place from their documents as the session holds them and their
  /// view states, as a relaunch restores them, without ending the session: the same numbers,
  /// names, order and focus, the same clock and services, and the host's undo history of each.
  /// The screen model is made anew (a module process is told the window closed and opened).
  ///
  /// A window that asks the outside world as it opens is served the answers the session
  /// already took to the same questions (`SessionFacts.servesTakenAnswers`); the work the
  /// windows start on the session's clock as they open (a load, with its latency) is caught up
  /// with at once, with the clock where it is, when the session was settled (no timer waited):
  /// the windows they replace had finished theirs. A feed opened again shows the rows it showed,
  /// loaded; opened while a timer waits, it starts its load again on the clock.
  ///
  /// - Returns: what could not be done, a line each (a window that could not be made again is
  ///   closed; one whose view state did not restore starts from a fresh view).
  @discardableResult
  public func reopenWindows(_ ids: [WindowID]) -> [String] {
    let waiting = clock.waitingTimers.count
    let mark = clock.timerMark
    let facts = services.sessionFacts
    facts?.servesTakenAnswers = true
    defer { facts?.servesTakenAnswers = false }
    var problems = makeAgain(ids)
    // In a settled session (no timer waited) the windows replaced had finished their work: what
    // their successors start, and what that starts in turn, is what they had finished.
    guard waiting == 0 else { return problems }
    var ran = 0
    while let next = clock.timersToCatchUp(since: mark).min(by: { ($0.due, $0.number) < ($1.due, $1.number) }) {
      guard ran < SessionClock.mostTimersAtOnce else {
        problems.append(
          "what the windows start as they open did not end after \(ran) timers (one that sets itself again at once?): "
            + "\(clock.pendingSummary) left on the clock")
        break
      }
      clock.fireNow(next.number)
      ran += 1
    }
    return problems
  }

  /// Gives a window a stored view state, as restoration would; returns why it could not (the
  /// window then keeps its current view state).
  public func restoreViewState(of id: WindowID, from record: ViewStateRecord) -> String? {
    guard let window = window(id) else { return "no window \(id)" }
    return acting(as: window.screen.module) {
      clock.inWindow(id.number) { window.content.restoreViewState(from: record) }
    }
  }

  /// Makes each window of `ids` again in place; what could not be done, a line each.
  private func makeAgain(_ ids: [WindowID]) -> [String] {
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
      if let problem = acting(
        as: window.screen.module, { clock.inWindow(id.number) { content.restoreViewState(from: record) } })
      {
        problems.append("window \(window.label): \(problem); it starts from a fresh view")
      }
      content.takeHistory(from: window.content)
      windowList.replace(
        Window(id: id, name: window.name, screen: window.screen, documentName: window.documentName, content: content))
    }
    return problems
  }
}
