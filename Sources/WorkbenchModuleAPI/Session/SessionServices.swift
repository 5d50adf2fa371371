/// Objects a module shares across the windows of one session: a simulated bridge per home,
/// a network, a cache. Created on first use, dropped with the host (a relaunch starts new ones).
///
/// A dependency is found by its key (`services[LedgerNetworkKey.self]`, see `ServiceKey`); a
/// service a session holds one of per name (one bridge per home document) by its type and name:
/// `services.shared(HomeBridge.self, named: "home") { ... }`.
@MainActor
public final class SessionServices {
  private struct Key: Hashable {
    package let type: ObjectIdentifier
    package let name: String
  }
  private var values: [Key: AnyObject] = [:]
  private var keyed: [ObjectIdentifier: Any] = [:]
  /// Whether keys give their test values (`ServiceKey.testValue`) rather than their live ones;
  /// a test sets it before the first use.
  package var usesTestValues = false
  /// Whether the person at the terminal asked the running command to stop (Ctrl-C): set by the
  /// front end that owns a terminal (the interactive shell), `nil` elsewhere (scripts, scenarios
  /// and their replays always run a command to its end). A long command of a built-in module
  /// looks at it where stopping leaves nothing changed (the catalog's `sort title`).
  package var interruptRequested: (@MainActor () -> Bool)?
  /// The session's time: what it is now, and timers on it.
  public let clock: any SessionTime
  /// The session's scheduler, which delivers source changes after they land (a scope's
  /// connections); the host flushes it after each command and timer.
  package let scheduler: ConnectionScheduler
  /// The session's external facts: every answer, event or state an effect takes from outside
  /// goes through them, so a recording keeps it and a replay substitutes it.
  public let facts: any OutsideFacts

  /// The services of a session on `clock`, taking what comes from outside through `facts`. A
  /// host makes its session's.
  package init(clock: any SessionTime, facts: any OutsideFacts, scheduler: ConnectionScheduler) {
    self.clock = clock
    self.facts = facts
    self.scheduler = scheduler
  }

  /// The services of a session outside any host (a screen built in a unit test): its time
  /// stays at zero, and every fact is live.
  public convenience init() {
    self.init(clock: StillTime(), facts: LiveFacts(), scheduler: ConnectionScheduler())
  }

  /// What work outside a command (a module's timer, a live source's event) may do to the
  /// session's documents and windows of the module's own: the host, which sets itself here.
  public package(set) weak var work: (any SessionWork)?

  /// The session's value of a dependency: the one given with `override`, else the key's live
  /// (or test) value, made on first use and kept for the session.
  public subscript<Dependency: ServiceKey>(_ key: Dependency.Type) -> Dependency.Value {
    if let value = keyed[ObjectIdentifier(key)] as? Dependency.Value { return value }
    let made = usesTestValues ? Dependency.testValue(in: self) : Dependency.liveValue(in: self)
    keyed[ObjectIdentifier(key)] = made
    return made
  }

  /// Gives the session `value` for a dependency, before anything uses it (a test's stand-in);
  /// every other dependency still comes from its key.
  public func override<Dependency: ServiceKey>(_ key: Dependency.Type, with value: Dependency.Value) {
    keyed[ObjectIdentifier(key)] = value
  }

  /// Live sources: what can change a window without a command (a module process that says,
  /// unasked, that its bridge saw a switch at the wall). Each is taken between commands, before
  /// a line runs, and in the shell whenever its descriptor has something to read.
  private var liveSources:
    [(waiting: () -> Bool, take: () -> Void, descriptor: () -> Int32?, synchronize: (() -> Void)?)] = []

  /// Adds a live source: `waiting` says whether it has changes to bring in, `take` brings them
  /// in; `descriptor`, when it has one, is read to wake the shell; `synchronize`, when given,
  /// asks the source for what it saw so far (a module process's `sync`), at the points a
  /// scenario takes changes, so what it takes does not depend on how fast the source was.
  package func addLiveSource(
    waiting: @escaping () -> Bool, take: @escaping () -> Void, descriptor: @escaping () -> Int32?,
    synchronize: (() -> Void)? = nil
  ) {
    // What it brings in is the work of the module whose code registered it.
    let module = actingModule()
    let asModule = self.asModule
    liveSources.append((waiting, { asModule(module, take) }, descriptor, synchronize))
  }

  /// The module whose code runs now, as the host that made the services says: a live source
  /// registered by a module's code brings its changes in as that module's work.
  package var actingModule: @MainActor () -> String? = { nil }
  /// Runs a live source's work as the module that registered it (the host says how).
  package var asModule: @MainActor (String?, () -> Void) -> Void = { _, body in body() }

  /// Sources of events, by name: what each read and how each applies one.
  private var eventSources: [(name: String, read: () -> [FrameValue], apply: (FrameValue) -> Void)] = []
  /// Events the sources reported and nobody applied yet, in order.
  private var eventsSeen: [(source: String, value: FrameValue)] = []

  /// Whether taking in live changes applies the events sources saw (a host's way). A module
  /// process's session says no: there an event is applied only when the host hands it back
  /// (`live`, §19), live and on a replay alike, so the process's own host never takes one in
  /// itself, not even as a line begins (an event read between two looks would otherwise change
  /// the module unrecorded, or a replaying session by its own device).
  package var appliesLiveEventsWhenTaken = true

  /// Adds a live source of events (a device's: a switch at the wall). `read` gives the events
  /// it saw since it was last read (from `descriptor`, which wakes the shell when it has some);
  /// `apply` changes the session by one event, and must take nothing else from outside. Kept
  /// apart so that, in a module process, the kit sends each event with the change it made, a
  /// recording keeps it, and a replay hands it to `apply` again: the module's state is then
  /// what it was live. In a host, events are applied as they are taken in.
  public func addLiveSource(
    named name: String, descriptor: @escaping () -> Int32?, read: @escaping () -> [FrameValue],
    apply: @escaping (FrameValue) -> Void
  ) {
    // An event is applied as the work of the module whose code registered the source.
    let module = actingModule()
    let asModule = self.asModule
    eventSources.append((name, read, { value in asModule(module) { apply(value) } }))
    addLiveSource(
      waiting: { [weak self] in
        // Where events are not applied when taken (a module process), they wait in the source
        // until `takeLiveEvents` reads them: reading them here too cost a read a request.
        guard let self, appliesLiveEventsWhenTaken else { return false }
        readLiveEvents()
        return !eventsSeen.isEmpty
      },
      take: { [weak self] in
        guard let self, appliesLiveEventsWhenTaken else { return }
        for event in takeLiveEvents() { applyLiveEvent(source: event.source, value: event.value) }
      }, descriptor: descriptor)
  }

  private func readLiveEvents() {
    for source in eventSources {
      eventsSeen += source.read().map { (source.name, $0) }
    }
  }

  /// The events the sources saw and nobody applied yet, in order, now the caller's to apply.
  package func takeLiveEvents() -> [(source: String, value: FrameValue)] {
    readLiveEvents()
    defer { eventsSeen = [] }
    return eventsSeen
  }

  /// Applies an event to the source it names (a replay's recorded one); `false` when the
  /// session has no source of that name (yet).
  @discardableResult
  package func applyLiveEvent(source: String, value: FrameValue) -> Bool {
    guard let found = eventSources.first(where: { $0.name == source }) else { return false }
    found.apply(value)
    return true
  }

  /// Asks every live source for what it saw so far (before a line runs and before a scenario's
  /// expectation is checked): then `liveChangesWait` says whether any has changes.
  package func synchronizeLiveSources() {
    for source in liveSources { source.synchronize?() }
  }

  /// Whether a live source has changes waiting (the host then runs `live` before a line).
  package var liveChangesWait: Bool {
    for source in liveSources where source.waiting() { return true }
    return false
  }

  /// Asks the live sources for what they saw (`synchronizeLiveSources`), then says whether any
  /// has changes: what the host does before a line runs.
  package func liveChangesWaitWhenAsked() -> Bool {
    synchronizeLiveSources()
    return liveChangesWait
  }

  /// Asks the live sources for what they saw and brings it in, if anything: what a scenario
  /// does before it checks an expectation.
  package func takeWaitingLiveChanges() {
    if liveChangesWaitWhenAsked() { takeLiveChanges() }
  }

  /// Brings in what every live source has (the `live` command).
  package func takeLiveChanges() {
    for source in liveSources { source.take() }
  }

  /// The descriptors the shell waits on besides the terminal, for live sources.
  package var liveSourceDescriptors: [Int32] {
    var descriptors: [Int32] = []
    for source in liveSources { if let descriptor = source.descriptor() { descriptors.append(descriptor) } }
    return descriptors
  }

  /// Whether the session has any live source (a device's changes or its events): without one
  /// there is nothing to look for between requests.
  package var hasLiveSources: Bool { !liveSources.isEmpty || !eventSources.isEmpty }

  /// What went wrong outside a command, waiting to be said where it happened: a module process
  /// that stopped while its timer ran, as a window on it was refreshed, or between requests.
  /// The host fails the command it was noticed in; the scenario runner, the step; the shell says
  /// it at the prompt.
  package private(set) var incidents: [String] = []

  /// Notes something that went wrong outside a command, to be said where it is noticed.
  package func report(incident: String) {
    if !incidents.contains(incident) { incidents.append(incident) }
  }

  /// Takes back an incident not yet said, because a command's error says it instead.
  package func withdraw(incident: String) {
    incidents.removeAll { $0 == incident }
  }

  /// What went wrong since the last time, once.
  package func takeIncidents() -> [String] {
    defer { incidents = [] }
    return incidents
  }

  /// What went wrong since the last time, as one message (a line each), once; `nil` when nothing.
  package func takeIncidentMessage() -> String? {
    let taken = takeIncidents()
    return taken.isEmpty ? nil : taken.joined(separator: "\n")
  }

  /// What the session's end must tell (a module process keeping state for the session).
  private var endHandlers: [() -> Void] = []
  /// Whether the session has ended.
  package private(set) var hasEnded = false

  /// Adds what to do when the session ends (`end`); once it has, `handler` runs at once.
  package func onEnd(_ handler: @escaping () -> Void) {
    guard !hasEnded else { return handler() }
    endHandlers.append(handler)
  }

  /// Ends the session: each end handler runs once (a module process is told, and lets go of
  /// what it kept for the session). What goes wrong meanwhile is in `incidents`.
  package func end() {
    guard !hasEnded else { return }
    hasEnded = true
    let handlers = endHandlers
    endHandlers = []
    for handler in handlers { handler() }
  }

  /// The `Service` stored under `name`, made by `make` the first time: for a service of which a
  /// session holds one per name (a bridge per home document), made from what that name needs.
  public func shared<Service: AnyObject>(_ type: Service.Type, named name: String = "", make: () -> Service)
    -> Service
  {
    let key = Key(type: ObjectIdentifier(type), name: name)
    if let existing = values[key] as? Service { return existing }
    let made = make()
    values[key] = made
    return made
  }
}

/// A dependency a module keeps in a session's services, declared once with how its live value
/// is made and which value tests get (swift-dependencies' habit): code reads
/// `services[LedgerNetworkKey.self]`, never builds a default where it uses one, and a test
/// overrides the one value it cares about (`services.override(Key.self, with:)`) and gets every
/// other from its key.
@MainActor
public protocol ServiceKey {
  /// What the dependency is.
  associatedtype Value
  /// The value a session makes on first use.
  static func liveValue(in services: SessionServices) -> Value
  /// The value a session for tests makes (`SessionServices.usesTestValues`): no waiting, no
  /// outside. The live value unless the key says otherwise.
  static func testValue(in services: SessionServices) -> Value
}

extension ServiceKey {
  public static func testValue(in services: SessionServices) -> Value { liveValue(in: services) }
}
