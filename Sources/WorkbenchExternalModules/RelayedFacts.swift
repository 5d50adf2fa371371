import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol

/// The facts a module's work uses, relayed through its requests (§12): asked for while the
/// session records, served from the recording while it replays, and taken from each reply
/// into the session's facts under a scope (a window's, or the module's timers in a session).
@MainActor
enum RelayedFacts {
  /// What a request carries as `facts`, or `nil` when a replay setting up has no recorded
  /// states to give.
  static func request(
    _ facts: SessionFacts, scope: String, version: Int,
    windows: @autoclosure () -> [(key: String, scope: String)] = []
  ) -> WireFactsRequest? {
    // The module reports the facts it used; a replay sends what is left of the scope's recorded
    // facts for the module to use instead of live ones, and with protocol 2 what is left in the
    // scopes the session shares (`network`).
    func sources(_ remaining: [String: [FrameValue]]) -> FrameValue {
      .object(FrameObject(members: remaining.sorted { $0.key < $1.key }.map { ($0.key, .list($0.value)) }))
    }
    // Windows opened again (`reopen`, explore's rebuilt run) of a session whose facts are kept
    // are served the latest answers it took of each source of theirs (one to each question,
    // §12 `again`); what the module reports using is used up by nothing.
    if facts.servesTakenAnswers {
      var request = WireFactsRequest()
      // Protocol 1 takes them in order: the latest alone.
      request.replay = sources(facts.takenAnswers(in: scope).mapValues { version >= 2 ? $0 : Array($0.suffix(1)) })
      if version >= 2 {
        request.again = true
        request.windows = .object(
          FrameObject(members: windows().map { ($0.key, sources(facts.takenAnswers(in: $0.scope))) }))
      }
      return request
    }
    // Recording, or live: the module reports what it used, which the session keeps the latest
    // of (what a window opened again is served).
    if facts.isRecording || !facts.isReplaying { return WireFactsRequest() }
    // While a replay sets up its windows they load live, but a service made now starts in the
    // state it was recorded in (protocol 2): the recorded states alone, and `start`.
    if facts.isRelivingRecordedStart {
      let states = facts.recordedSharedStates()
      guard version >= 2, !states.isEmpty else { return nil }
      var request = WireFactsRequest()
      request.start = true
      request.shared = .object(
        FrameObject(
          members: states.sorted { $0.key < $1.key }.map { scope, sources in
            (scope, .object(FrameObject(members: sources.sorted { $0.key < $1.key }.map { ($0.key, .list($0.value)) })))
          }))
      return request
    }
    guard facts.isReplaying else { return nil }
    var request = WireFactsRequest()
    request.replay = sources(facts.remaining(in: scope))
    guard version >= 2 else { return request }
    let shared = facts.remainingShared()
    if !shared.isEmpty {
      request.shared = .object(
        FrameObject(members: shared.sorted { $0.key < $1.key }.map { ($0.key, sources($0.value)) }))
    }
    // Every window of the module in the session: a timer's work may use any window's facts.
    request.windows = .object(
      FrameObject(members: windows().map { ($0.key, sources(facts.remaining(in: $0.scope))) }))
    return request
  }

  /// Takes the facts a module reports it used into the session's facts, in order: kept when
  /// recording, counted as used when replaying. A fact that names a window (`window`, protocol
  /// 2) is kept under that window's scope; one of a scope the session shares, under that scope.
  static func take(
    _ reported: [WireFact]?, divergence: String?, into facts: SessionFacts, scope: String, windows: [String: String]
  ) {
    if let divergence { facts.noteDivergence("\(scope): \(divergence)") }
    for fact in reported ?? [] {
      // A fact that answers a question is kept with it, and a replay matches it; one of a
      // scope the session shares is kept there (a window's scope is never named this way).
      let shared = fact.scope.flatMap { SessionFacts.isWindowScope($0) ? nil : $0 }
      let window = fact.window.flatMap { windows[$0] }
      _ = facts.value(of: fact.source, in: shared ?? window ?? scope, asked: fact.asked) { fact.value }
    }
  }
}
