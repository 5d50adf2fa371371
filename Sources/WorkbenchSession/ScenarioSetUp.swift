import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioModel

extension WorkbenchSession {
  /// A session set up as `scenario` begins, before its first step: its own in-memory session on
  /// a virtual clock that starts at zero, the documents it declares, its windows opened in order
  /// with their numbers and view state, and a recording's facts to serve. The runner starts every
  /// scenario this way, and time travel starts every replay this way, so both begin alike.
  ///
  /// `stored` are documents as a workspace held them, taken in before the scenario's own.
  ///
  /// - Throws: `CommandError` saying what in the set-up failed (a document, a window, a view
  ///   state whose fallback was or was not expected).
  public static func starting(
    _ scenario: Scenario, registry: ModuleRegistry, stored: [DocumentAsItWas] = []
  ) throws(CommandError) -> WorkbenchSession {
    let environment =
      scenario.facts.map { ScreenEnvironment(viewportRows: scenario.viewportRows, facts: SessionFacts(replaying: $0)) }
      ?? ScreenEnvironment(viewportRows: scenario.viewportRows)
    let session = WorkbenchSession(registry: registry, environment: environment, clock: .virtual)
    session.canRecord = false
    let host = session.host
    // A recording's windows load live during set-up and settle before the first step: the
    // recording started from a settled session.
    session.facts.isSettingUp = true
    defer { session.facts.isSettingUp = false }
    // The calendar the scenario states (a recording, the shell session's); a fixed one if none.
    host.clock.calendarOrigin = scenario.date ?? .scenarioDefault
    // A recording begun mid-session starts at the session's time then (nothing waits yet).
    if let start = scenario.startsAt, start > .zero { try host.clock.advance(by: start) }
    // Documents as a workspace held them (a time-travel replay of a shell session), each decoded
    // when first needed, then the scenario's own.
    for document in stored { host.adopt(document) }
    for document in scenario.documents {
      try host.seedDocument(named: document.name, kind: document.kind, json: document.json, revision: document.revision)
    }
    for window in scenario.windows {
      if let number = window.number { try host.numberNextWindow(number) }
      let opened = try host.openWindow(
        screen: window.screen, document: window.document, name: window.isUnnamed ? nil : window.name)
      guard let state = window.state, let current = host.viewStateVersion(of: opened.id) else { continue }
      let record = ViewStateRecord(version: window.stateVersion ?? current, state: state)
      let problem = host.restoreViewState(of: opened.id, from: record)
      switch (problem, window.expectedWarning) {
      case (nil, nil): break
      case (let problem?, nil):
        throw CommandError("window \(window.name): \(problem) (add `warning:` if the fallback is expected)")
      case (nil, let expected?):
        throw CommandError(
          "window \(window.name): its state was restored, but a fallback with '\(expected)' was expected")
      case (let problem?, let expected?):
        if !problem.contains(expected) {
          throw CommandError("window \(window.name): the fallback said '\(problem)', not '\(expected)'")
        }
      }
    }
    if let next = scenario.nextWindowNumber { try host.numberNextWindow(next) }
    // Timers due only past the set-up's minute (a timer every midnight) wait, as they did when
    // the recording started.
    if scenario.facts != nil {
      try host.clock.settle(within: .seconds(60), flush: host.services.scheduler, leavingLater: true)
    }
    return session
  }
}
