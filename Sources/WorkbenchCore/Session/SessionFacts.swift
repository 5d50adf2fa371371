import WorkbenchModuleAPI

/// The external facts a session's effects use: what a network answered and when, what a
/// device reported, the state a simulated service was in. Every such fact goes through here, so
/// a session can be recorded (each fact is kept, in order) and replayed (each fact is served
/// from the recording instead of asked for live).
///
/// A fact is keyed by its scope (the window that asked, `window 3`, or the service it belongs
/// to, `bridge home`), its source (`network.answer`) and its sequence number within that scope
/// and source, so two windows loading at once cannot swap answers on replay.
///
/// One `SessionFacts` belongs to one session and outlives its relaunches: the host's services
/// hand it to every window (`environment.services.facts`).
@MainActor
public final class SessionFacts: OutsideFacts {
  /// Where a fact comes from.
  public struct Key: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The window (`window 3`) or service (`bridge home`) the fact belongs to.
    public var scope: String
    /// What kind of fact it is (`network.answer`).
    public var source: String

    public init(scope: String, source: String) {
      self.scope = scope
      self.source = source
    }

    public static func < (lhs: Key, rhs: Key) -> Bool { (lhs.scope, lhs.source) < (rhs.scope, rhs.source) }
    public var description: String { "\(scope) \(source)" }

    /// Where what a module process's live sources said is kept: one group a `live` step, under
    /// `changed` in the scope `NAME live` (a move in time brings it in again at its step).
    public static func liveChanges(of module: String) -> Key { Key(scope: module + " live", source: "changed") }

    /// Whether the fact is what a module's live sources said (`liveChanges(of:)`).
    public var isLiveChanges: Bool { source == "changed" && scope.hasSuffix(" live") }
  }

  /// One recorded fact.
  public struct Entry: Equatable, Sendable {
    public var key: Key
    /// 1 for the first fact of its key.
    public var sequence: Int
    public var value: FrameValue
  }

  private enum Mode {
    case live
    case recording
    case replaying
  }

  private var mode: Mode
  private var counts: [Key: Int] = [:]
  private var recorded: [Entry] = []
  private var replay: [Key: [FrameValue]] = [:]
  /// The values a replay took live, past the end of its recording, in order by key.
  private var pastEnd: [Key: [FrameValue]] = [:]
  /// The first fact a replay asked for that the recording does not have.
  public private(set) var divergence: String?
  private var stateCaptures: [Key: () -> FrameValue?] = [:]
  /// Where states of services outside this process come from when a recording starts (a
  /// module process's network, §12): each gives (scope, source, value) triples.
  private var stateCaptureSources: [() -> [(scope: String, source: String, value: FrameValue)]] = []

  /// Registers a source of states to record when a recording starts, for services whose
  /// `state(of:in:live:capture:)` runs in another process.
  public func addStateCapture(_ capture: @escaping () -> [(scope: String, source: String, value: FrameValue)]) {
    stateCaptureSources.append(capture)
  }

  /// The states of this process's services now, as a recording starting now keeps them: for a
  /// module process asked by its host (§12 `capture`). A capture whose service is gone is
  /// skipped.
  public func capturedStates() -> [(scope: String, source: String, value: FrameValue)] {
    stateCaptures.sorted { $0.key < $1.key }.compactMap { key, capture in
      capture().map { (key.scope, key.source, $0) }
    }
  }

  /// The recorded states of the scopes the session shares (sources ending in `.state`), by scope
  /// and source: what a module process is given while a replay sets up, before its steps.
  public func recordedSharedStates() -> [String: [String: [FrameValue]]] {
    remainingShared().compactMapValues { sources in
      let states = sources.filter { $0.key.hasSuffix(".state") }
      return states.isEmpty ? nil : states
    }
  }
  /// While a replay sets up its windows (before its first step), effects run live, on the
  /// replay's virtual clock, against the services' recorded states: the recording started from
  /// a settled session, so what the windows load then is what they showed.
  public var isSettingUp = false
  /// While recording: the replay's time, which every clock the session makes (a relaunch
  /// makes a new one, starting at zero) reports its timers to.
  public var timeline: ReplayTimeline?

  /// Facts asked for live and kept nowhere.
  public init() { mode = .live }

  /// Facts served from a recording, in order within each key.
  public init(replaying facts: [Key: [FrameValue]]) {
    mode = .replaying
    replay = facts
  }

  /// Whether facts come from a recording.
  public var isReplaying: Bool { mode == .replaying }

  /// Whether the facts answer work the session already did, so a service does not count it
  /// again (a network's requests): a replay setting up the windows its recording started with
  /// (their effects run live, re-living what the recorded service states already hold), or
  /// windows opened again from their documents and view states being served the answers the run
  /// already took (`servesTakenAnswers`).
  public var isRelivingRecordedStart: Bool { (mode == .replaying && isSettingUp) || servesTakenAnswers }

  /// While windows are opened again from their documents and view states (`reopen`, explore's
  /// rebuilt run) and catch up with what they start as they open: each fact they ask is served
  /// the latest answer the session already took to the same question in the same scope; nothing
  /// is recorded, and no recorded fact is used up, so a replay goes on from the recording where
  /// it was. A question the session never had answered is asked live (a replay notes the
  /// divergence: the windows opened again asked something new).
  public var servesTakenAnswers = false
  /// Whether facts are being kept for a recording.
  public var isRecording: Bool { mode == .recording }

  /// In a module's own process, for one request: every fact used, live or replayed, is noted
  /// to report back, and facts are keyed by source alone (the host keys them by its window).
  private var relayUsed: [(scope: String?, source: String, value: FrameValue)]?
  /// The scope every window fact of a protocol 1 relay is kept under.
  private static let relayScope = "request"
  /// Whether the relay keeps each fact's scope (protocol 2).
  private var relayKeepsScopes = false

  /// The value of a fact: on replay the recorded one; otherwise `live()`, kept when recording.
  /// A replay that asks for a fact the recording lacks notes the divergence and uses `live()`,
  /// so the run goes on to report it.
  ///
  /// A fact that answers a request says what was `asked` (the search text, the request id, the
  /// room): it is kept with the answer (`{asked: ..., answer: ...}`), and a replay serves the
  /// answer only to the same question. A step edited to ask something else diverges there,
  /// naming both questions, instead of being served another question's answer.
  public func value(of source: String, in scope: String, asked: FrameValue? = nil, live: () -> FrameValue)
    -> FrameValue
  {
    if mode == .replaying && isSettingUp { return live() }
    guard let asked else { return use(Key(scope: scope, source: source), live: live) }
    var answered: FrameValue?
    let kept = use(Key(scope: scope, source: source), asked: asked) {
      let answer = live()
      answered = answer
      return Self.answer(answer, to: asked)
    }
    if let answered { return answered }
    // A recorded answer: to this question, or (a recording made before questions were kept) to
    // whatever was asked then.
    return Self.question(of: kept) == nil ? kept : Self.answer(of: kept)
  }

  /// A fact that answers `asked`, as recordings keep it.
  public static func answer(_ answer: FrameValue, to asked: FrameValue) -> FrameValue {
    .object(FrameObject(members: [("asked", asked), ("answer", answer)]))
  }

  /// What a kept fact answered, when it keeps its question (`{asked, answer}`).
  public static func question(of fact: FrameValue) -> FrameValue? {
    guard case .object(let object) = fact, object.members.count == 2, let asked = object["asked"],
      object["answer"] != nil
    else { return nil }
    return asked
  }

  /// The answer of a kept fact (the fact itself when it keeps no question).
  public static func answer(of fact: FrameValue) -> FrameValue {
    question(of: fact) == nil ? fact : (fact["answer"] ?? .null)
  }

  /// The state a long-lived service starts in (a bridge's lights, a network's latency), as
  /// `value(of:in:live:)` gives it, and registered so that a recording that starts while the
  /// service exists records the state it is in then (`capture`). Served from the recording
  /// even while a replay sets up. Its source ends in `.state` (added when missing); a replay
  /// that never makes the service leaves it unused without diverging.
  public func state(
    of source: String, in scope: String, live: () -> FrameValue, capture: @escaping () -> FrameValue?
  ) -> FrameValue {
    let key = Key(scope: scope, source: source.hasSuffix(".state") ? source : source + ".state")
    stateCaptures[key] = capture
    return use(key, live: live)
  }

  /// Whether to keep the facts a replay serves, for a trace (see `takeServedFacts`).
  public var keepsServedFacts = false
  private var served: [String] = []

  /// The facts a replay served since the last call (`source #n of scope`), when kept.
  public func takeServedFacts() -> [String] {
    defer { served.removeAll() }
    return served
  }

  private func use(_ requested: Key, asked question: FrameValue? = nil, live: () -> FrameValue) -> FrameValue {
    // In a relay a window's facts are the request's (the host keeps them under its own
    // window); a scope of the session's (`network`) keeps its name.
    let key =
      relayUsed == nil || relayKeepsScopes || !Self.isWindowScope(requested.scope)
      ? requested : Key(scope: Self.relayScope, source: requested.source)
    let value: FrameValue
    if servesTakenAnswers {
      value = taken(key, asked: question, live: live)
      relayUsed?.append((key.scope == Self.relayScope ? nil : key.scope, key.source, value))
      return value
    }
    switch mode {
    case .live:
      value = live()
    case .recording:
      // Kept in order; sequence numbers are worked out when recording stops.
      value = live()
      recorded.append(Entry(key: key, sequence: 0, value: value))
    case .replaying:
      value = replayed(key, asked: question, live: live)
    }
    if relayUsed == nil { noteLatest(value, of: key) }
    relayUsed?.append((key.scope == Self.relayScope ? nil : key.scope, key.source, value))
    return value
  }

  /// Whether a scope is a window's (`window 3`, or a screen's own `window`) rather than one
  /// the session shares (`network`).
  public nonisolated static func isWindowScope(_ scope: String) -> Bool {
    scope == "window" || scope.hasPrefix("window ")
  }

  /// The next recorded value of `key`; past the recording's end, `live()`, with the divergence
  /// noted (the first one), so the run goes on to report it.
  private func replayed(_ key: Key, asked question: FrameValue?, live: () -> FrameValue) -> FrameValue {
    let sequence = OutsideNumbers.saturatingSuccessor(of: counts[key, default: 0])
    counts[key] = sequence
    if let values = replay[key], sequence <= values.count {
      let recorded = values[sequence - 1]
      // An answer belongs to the question it answered: another question is not served it.
      if let question, let recordedQuestion = Self.question(of: recorded), recordedQuestion != question {
        let value = live()
        if divergence == nil {
          let place = relayUsed == nil ? " of \(key.scope)" : ""
          divergence =
            "the replay asked \(key.source) #\(sequence)\(place) for \(question.jsonText), and the "
            + "recording answered it for \(recordedQuestion.jsonText): the step asks something else than when it "
            + "was recorded"
        }
        return value
      }
      if keepsServedFacts { served.append("\(key.source) #\(sequence) of \(key.scope)") }
      return recorded
    }
    let value = live()
    pastEnd[key, default: []].append(value)
    if divergence == nil {
      divergence =
        relayUsed != nil
        ? "the module asked for more \(key.source) facts than the recording has left"
        : "the replay asked for \(key.source) #\(sequence) of \(key.scope), which the recording does not have "
          + "(it has \(replay[key]?.count ?? 0)); live: \(value.jsonText)"
    }
    return value
  }

  /// The latest value of `key` the replay used that answers `question` (any, without one),
  /// used up by nothing; without one, `live()` and the divergence noted.
  private func taken(_ key: Key, asked question: FrameValue?, live: () -> FrameValue) -> FrameValue {
    // In a module's own process the host sent them with the request (`again`).
    let used = (relayUsed == nil ? latest[key] : replay[key]) ?? []
    if let found = used.last(where: { question == nil || Self.question(of: $0).map { $0 == question } ?? true }) {
      if keepsServedFacts { served.append("\(key.source) again of \(key.scope)") }
      return found
    }
    let value = live()
    if mode == .replaying, divergence == nil {
      let scope = relayUsed == nil ? key.scope : "the window"
      divergence =
        "opened again, \(scope) asked \(key.source)"
        + (question.map { " for \($0.jsonText)" } ?? "")
        + ", which the run never took: it asks the outside world something new as it opens"
    }
    return value
  }

  /// The latest answer the session used of each source of `scope` to each question, the
  /// latest last: what a window of an external module opened again is served
  /// (`servesTakenAnswers`, `again` in §12), by source.
  public func takenAnswers(in scope: String) -> [String: [FrameValue]] {
    var result: [String: [FrameValue]] = [:]
    for (key, values) in latest where key.scope == scope { result[key.source] = values }
    return result
  }

  /// The latest value the session used of each key, one for each question asked (the latest
  /// last), live or replayed: what windows opened again are served (`servesTakenAnswers`).
  private var latest: [Key: [FrameValue]] = [:]

  /// How many questions' latest answers are kept for each key.
  static let latestKept = 64

  /// Keeps `value` as the latest of `key` for the question it answers.
  private func noteLatest(_ value: FrameValue, of key: Key) {
    let question = Self.question(of: value)
    var values = latest[key] ?? []
    values.removeAll { Self.question(of: $0) == question }
    values.append(value)
    // A long session asks many questions (every search): the latest ones are what windows show.
    if values.count > Self.latestKept { values.removeFirst(values.count - Self.latestKept) }
    latest[key] = values
  }

  /// Starts keeping facts, numbered from 1, with the states of the services that exist as
  /// their first facts. (The latest registration of a state wins: a relaunch makes its
  /// services again; a capture that returns `nil`, its service gone, is skipped.)
  ///
  /// Without `capturingStates`, only the facts used from now on are kept: for a replay that
  /// sets up live as this session did, so its services already hold those states (explore's
  /// second run, `startReplaying`).
  public func startRecording(capturingStates: Bool = true) {
    mode = .recording
    recorded = []
    handedOver = 0
    guard capturingStates else { return }
    for (key, capture) in stateCaptures.sorted(by: { $0.key < $1.key }) {
      guard let value = capture() else { continue }
      recorded.append(Entry(key: key, sequence: 1, value: value))
    }
    for capture in stateCaptureSources {
      for state in capture() where !Self.isWindowScope(state.scope) {
        let source = state.source.hasSuffix(".state") ? state.source : state.source + ".state"
        let key = Key(scope: state.scope, source: source)
        guard !recorded.contains(where: { $0.key == key }) else { continue }
        recorded.append(Entry(key: key, sequence: 1, value: state.value))
      }
    }
  }

  /// How many of the facts kept so far `takeRecorded` has handed over.
  private var handedOver = 0

  /// The facts kept since the last call (since recording started, the first time), in the
  /// order they were used: what a replay running beside this recording is served next
  /// (`serve(_:)`).
  public func takeRecorded() -> [(key: Key, value: FrameValue)] {
    guard mode == .recording, handedOver < recorded.count else { return [] }
    defer { handedOver = recorded.count }
    return recorded[handedOver...].map { ($0.key, $0.value) }
  }

  /// Starts serving facts from a recording still being made, beside this session (explore
  /// runs each step in a session that records, then in one that replays it): none at first,
  /// then those `serve(_:)` adds. What this session used so far was taken live.
  public func startReplaying() {
    mode = .replaying
    replay = [:]
    counts = [:]
    pastEnd = [:]
    divergence = nil
  }

  /// More facts for a replay to serve, each after those of its key it has (`takeRecorded` of
  /// the session recording).
  public func serve(_ facts: [(key: Key, value: FrameValue)]) {
    for fact in facts { replay[fact.key, default: []].append(fact.value) }
  }

  /// Stops keeping facts; returns them in the order they were used, numbered within each key.
  public func stopRecording() -> [Entry] {
    mode = .live
    var sequences: [Key: Int] = [:]
    var entries = recorded
    recorded = []
    for index in entries.indices {
      sequences[entries[index].key, default: 0] += 1
      entries[index].sequence = sequences[entries[index].key] ?? 1
    }
    return entries
  }

  /// What a replay has served so far, recorded and (past the recording's end) live, by key in
  /// order: the facts a recording that goes on from a replayed scenario's steps keeps.
  public func used() -> [Key: [FrameValue]] {
    var result: [Key: [FrameValue]] = [:]
    for (key, values) in replay {
      let count = min(counts[key, default: 0], values.count)
      if count > 0 { result[key] = Array(values.prefix(count)) }
    }
    for (key, values) in pastEnd { result[key, default: []] += values }
    return result
  }

  // MARK: External modules

  /// The recorded values of `scope` a replay has not used yet, by source: what a window of an
  /// external module may ask for next, sent along with each request.
  public func remaining(in scope: String) -> [String: [FrameValue]] {
    var result: [String: [FrameValue]] = [:]
    for (key, values) in replay where key.scope == scope {
      let used = counts[key, default: 0]
      if used < values.count { result[key.source] = Array(values[used...]) }
    }
    return result
  }

  /// What a replay has not used yet in the scopes the session shares (not a window's), by
  /// scope and source: what a module process is sent besides its window's (protocol 2).
  public func remainingShared() -> [String: [String: [FrameValue]]] {
    var result: [String: [String: [FrameValue]]] = [:]
    for (key, values) in replay where !Self.isWindowScope(key.scope) {
      let used = counts[key, default: 0]
      if used < values.count { result[key.scope, default: [:]][key.source] = Array(values[used...]) }
    }
    return result
  }

  /// Notes a divergence found elsewhere (an external module's process), unless one was noted.
  public func noteDivergence(_ message: String) {
    if divergence == nil { divergence = message }
  }

  /// In a module's own process: serve facts for one request from `replaying` (by source), as
  /// a replay serves them, taking the rest live; `nil` takes every fact live. `endRelay` says
  /// which were used.
  ///
  /// With `scoped` (protocol 2), facts keep their scopes (`window 2`, `network`) and
  /// `replaying` is ignored: `shared` gives the recorded values by scope and source.
  public func beginRelay(
    replaying: [String: [FrameValue]]?, shared: [String: [String: [FrameValue]]] = [:], scoped: Bool = false
  ) {
    relayUsed = []
    relayKeepsScopes = scoped
    counts = [:]
    pastEnd = [:]
    divergence = nil
    replay = [:]
    guard let replaying else {
      mode = .live
      return
    }
    mode = .replaying
    if !scoped {
      for (source, values) in replaying { replay[Key(scope: Self.relayScope, source: source)] = values }
    }
    for (scope, sources) in shared {
      for (source, values) in sources { replay[Key(scope: scope, source: source)] = values }
    }
  }

  /// Ends a request's relay: the facts used, in order, and the first asked for beyond what was
  /// sent on a replay.
  /// A used fact's `scope` is the shared scope it was taken in, `nil` for the window's.
  public func endRelay() -> (used: [(scope: String?, source: String, value: FrameValue)], divergence: String?) {
    defer {
      mode = .live
      relayUsed = nil
      replay = [:]
      counts = [:]
      pastEnd = [:]
      divergence = nil
    }
    return (relayUsed ?? [], divergence)
  }

  // MARK: Live changes, again in a move in time

  /// The groups of live changes the session took, in order, each with its scope (a module's
  /// `NAME live`): what a move in time brings in again at the same steps.
  public private(set) var liveChangesTaken: [(scope: String, group: FrameValue)] = []
  /// The groups a move in time brings in again, by scope, in order.
  private var liveChangesToServe: [String: [FrameValue]] = [:]

  /// A replay of the session brings in these groups at its `live` steps, in order, rather than
  /// what the live sources say now (a device's change happens once).
  public func serveLiveChanges(_ groups: [(scope: String, group: FrameValue)]) {
    liveChangesToServe = [:]
    for (scope, group) in groups { liveChangesToServe[scope, default: []].append(group) }
  }

  /// The session took another way than the steps it was replaying (a new command after a move
  /// back): live changes are its own from here.
  public func forgetLiveChangesToServe() { liveChangesToServe = [:] }

  /// The live changes of `scope` to take in now: the next group a move in time brings in again,
  /// or `live()`; kept either way, in order.
  public func liveChange(in scope: String, live: () -> FrameValue) -> FrameValue {
    let group: FrameValue
    if var waiting = liveChangesToServe[scope], !waiting.isEmpty {
      group = waiting.removeFirst()
      liveChangesToServe[scope] = waiting
    } else {
      group = live()
    }
    liveChangesTaken.append((scope, group))
    return group
  }

  /// Whether a move in time has changes of `scope` to bring in again.
  public func servesLiveChanges(in scope: String) -> Bool { liveChangesToServe[scope]?.isEmpty == false }

  /// The first recorded fact a replay has not used, if any: a replay that ends with facts left
  /// over took another path than the recording.
  public func firstUnused() -> String? {
    guard mode == .replaying else { return nil }
    for (key, values) in replay.sorted(by: { $0.key < $1.key }) {
      if key.source.hasSuffix(".state"), counts[key] == nil { continue }
      let used = counts[key, default: 0]
      if used < values.count {
        return "the recording has \(key.source) #\(used + 1) of \(key.scope), which the replay never asked for: "
          + values[used].jsonText
      }
    }
    return nil
  }
}

extension SessionServices {
  /// The session's facts as a host keeps them (recorded, replayed, relayed to a module
  /// process); `nil` for services made outside a host, whose facts are only live.
  package var sessionFacts: SessionFacts? { facts as? SessionFacts }
}

extension ScreenEnvironment {
  /// This environment with facts a host keeps: its own when it has them, else new ones (an
  /// environment made outside a host takes every fact live and keeps none).
  @MainActor package var keepingFacts: ScreenEnvironment {
    guard services.sessionFacts == nil else { return self }
    var environment = self
    let clock = SessionClock(mode: .virtual)
    environment.services = SessionServices(clock: clock, facts: SessionFacts(), scheduler: clock.scheduler)
    return environment
  }
}
