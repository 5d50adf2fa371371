import WorkbenchModuleAPI

/// A ledger window's interaction facts: the search, its debounce, the navigation path and a
/// dispute in progress. The feed's state is not here: it is derived again by loading.
public struct LedgerViewState: ViewStateValue {
  public var query = ""
  public var debounceMilliseconds = 0
  public var path: [Route] = []
  public var dispute: DisputeFlow?
  public init() {}
}

/// The feed's view model: it owns the state machine, runs loads as effects on the session
/// clock (keyed by this window; a new query cancels the running load and starts another), and
/// projects frames.
@MainActor
public final class LedgerScreen: ActionHandling, FramedScreen {
  public private(set) var document: LedgerDocument
  public private(set) var viewState: LedgerViewState
  /// The feed's one state.
  public private(set) var feed: FeedState = .idle
  /// How many rows a frame shows.
  static let pageSize = 50
  /// How many rows the window shows (`--rows`, a scenario's `rows:`): the feed's page is at most
  /// that long.
  let viewportRows: Int
  let network: LedgerNetwork
  let session: LedgerSession
  let repository: TransactionRepository
  let clock: any SessionTime
  /// Where this window's requests are answered from, for a recording or a replay.
  let facts: any OutsideFacts
  let factScope: String
  private var running: Cancellation?
  private var generation = 0
  /// How many fetches this window started (sent to the network), superseded ones included; a
  /// search replaced while its debounce waits never starts one.
  private var fetchesStarted = 0
  private var sessionWatch: Cancellation?

  public init(document: LedgerDocument, viewState: LedgerViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
    let services = environment.services
    viewportRows = max(1, environment.viewportRows)
    clock = services.clock
    network = services[LedgerNetworkKey.self]
    session = services[LedgerSessionKey.self]
    let box = DocumentBox(document)
    documentBox = box
    let dependencies = services[TransactionRepositoryKey.self]
    repository = dependencies.repository({ box.document.matching($0) }, network, environment)
    factScope = environment.factScope
    facts = services.facts
    sessionWatch = session.observe { [weak self] in self?.sessionChanged() }
    appear()
  }

  /// What the repository reads: the ledger as this window last received it.
  private let documentBox: DocumentBox

  @MainActor final class DocumentBox {
    var document: SearchableLedger
    init(_ document: LedgerDocument) { self.document = SearchableLedger(document) }
  }

  public func documentReplaced(_ document: LedgerDocument) {
    self.document = document
    documentBox.document = SearchableLedger(document)
  }
  /// Takes a restored view state. The window appeared (and started loading) before its view
  /// state arrived, so a restored search starts its own load, as typing it would.
  public func restore(_ viewState: LedgerViewState) {
    let appearedWith = self.viewState.query
    self.viewState = viewState
    // Signed out, there is no navigation to give back (undo after a sign-out collapsed it).
    if session.state == .signedOut {
      self.viewState.path = []
      self.viewState.dispute = nil
    }
    guard viewState.query != appearedWith else { return }
    if case .idle = feed { return }
    try? apply(.queryChanged)
  }

  public func windowClosed() {
    running?.cancel()
    sessionWatch?.cancel()
  }

  // MARK: Actions

  /// Takes in what the user did. Only sending money changes the shared ledger (the change is
  /// handed back to commit); everything else changes this window's feed, navigation or dispute.
  ///
  /// - Throws: `CommandError` for what does not apply now (a retry while loading, a dispute
  ///   step out of order, a transaction that does not exist, a signed-out session).
  @discardableResult
  public func send(_ action: LedgerAction) throws(CommandError) -> DocumentChange<LedgerDocument>? {
    switch action {
    case .searched(let query): try search(query)
    case .retryTapped: try apply(.retryTapped)
    case .refreshPulled: try apply(.refreshPulled)
    case .debounceSet(let milliseconds): viewState.debounceMilliseconds = milliseconds
    case .detailOpened(let id): try push(.detail(id))
    case .linkFollowed(let link): try follow(link)
    case .backTapped: try back()
    case .disputeStarted: try dispute(.start)
    case .disputeReasonGiven(let reason): try dispute(.reason(reason))
    case .disputeSubmitted: try dispute(.submit)
    case .moneySent(let amount, let request, let recipient):
      let sent = try prepareSend(amount: amount, request: request, recipient: recipient)
      return DocumentChange(sent, summary: "send money")
    }
    return nil
  }

  /// Applies a feed event through the machine; an event that is not a transition is refused.
  private func apply(_ event: FeedEvent, rows: [Transaction] = [], message: String = "") throws(CommandError) {
    guard let next = FeedMachine.next(feed, event, query: viewState.query, rows: rows, message: message) else {
      throw CommandError("the feed is \(feed.name): \(Self.words(event)) does nothing now")
    }
    feed = next
    if case .loading = next { startLoad() }
  }

  func appear() {
    guard session.state != .signedOut, case .idle = feed else { return }
    try? apply(.appeared)
  }

  /// Cancel and restart: the running load stops, and a new one starts (after the debounce).
  private func startLoad() {
    running?.cancel()
    generation += 1
    let mine = generation
    let query = viewState.query
    let fetch: @MainActor () -> Void = { [weak self] in
      guard let self, self.generation == mine else { return }
      self.fetchesStarted += 1
      self.running = self.repository.fetch(query) { [weak self] result in
        guard let self, self.generation == mine else { return }  // a superseded load never lands
        self.running = nil
        switch result {
        case .success(let rows): try? self.apply(.loadSucceeded, rows: rows)
        case .failure(let failure): try? self.apply(.loadFailed, message: failure.message)
        }
      }
    }
    if viewState.debounceMilliseconds > 0 {
      running = clock.schedule(after: .milliseconds(viewState.debounceMilliseconds)) { fetch() }
    } else {
      fetch()
    }
  }

  private func search(_ query: String) throws(CommandError) {
    let previous = viewState.query
    viewState.query = query
    do {
      try apply(.queryChanged)
    } catch {
      viewState.query = previous
      throw error
    }
  }

  private func sessionChanged() {
    switch session.state {
    case .signedOut:
      running?.cancel()
      generation += 1
      viewState.path = []
      viewState.dispute = nil
      feed = .idle
    case .active:
      appear()
    case .locked:
      break
    }
  }

  static func words(_ event: FeedEvent) -> String {
    switch event {
    case .appeared: "appearing"
    case .loadSucceeded: "a finished load"
    case .loadFailed: "a failed load"
    case .retryTapped: "retry"
    case .refreshPulled: "refresh"
    case .queryChanged: "a new search"
    }
  }

  // MARK: Navigation

  private func push(_ route: Route) throws(CommandError) {
    guard session.state == .active else { throw CommandError("the session is \(session.state.rawValue)") }
    guard case .detail(let id) = route, document.transactions.contains(where: { $0.id == id }) else {
      throw CommandError("no transaction \(route)")
    }
    viewState.path = [route]  // a new detail starts fresh: no dispute carried over
    viewState.dispute = nil
  }

  private func follow(_ link: String) throws(CommandError) {
    let path: [Route]
    do {
      path = try DeepLink.routes(for: link)
    } catch {
      throw CommandError(error.message)
    }
    for route in path {
      guard case .detail(let id) = route else { continue }
      guard document.transactions.contains(where: { $0.id == id }) else {
        throw CommandError("\(link): there is no transaction \(id)")
      }
    }
    guard session.state == .active else { throw CommandError("the session is \(session.state.rawValue)") }
    viewState.path = path
    if case .dispute(let id)? = path.last {
      viewState.dispute = DisputeFlow(transactionID: id, step: .choosingReason, reason: nil)
    } else {
      viewState.dispute = nil
    }
  }

  private func back() throws(CommandError) {
    guard !viewState.path.isEmpty else { throw CommandError("already at the feed") }
    if case .dispute? = viewState.path.popLast() { viewState.dispute = nil }
  }

  /// A step of the dispute flow, as the commands ask for it.
  private enum DisputeStep {
    case start
    case reason(String)
    case submit

    /// The subcommand that asks for it, for messages.
    var name: String {
      switch self {
      case .start: "start"
      case .reason: "reason"
      case .submit: "submit"
      }
    }
  }

  private func dispute(_ step: DisputeStep) throws(CommandError) {
    guard case .detail(let id)? = viewState.path.first else {
      throw CommandError("open a transaction first (`detail ID`)")
    }
    switch (step, viewState.dispute?.step) {
    case (.start, nil):
      viewState.path = [.detail(id), .dispute(id)]
      viewState.dispute = DisputeFlow(transactionID: id, step: .choosingReason, reason: nil)
    case (.reason(let reason), .choosingReason?), (.reason(let reason), .reviewing?):
      guard !reason.allSatisfy(\.isWhitespace) else { throw CommandError("say why: dispute reason TEXT") }
      viewState.dispute?.reason = reason
      viewState.dispute?.step = .reviewing
    case (.submit, .reviewing?):
      let asked: FrameValue = ["transaction": .integer(id), "reason": FrameValue(viewState.dispute?.reason)]
      if let problem = network.admit("network.dispute", in: factScope, asked: asked, facts: facts) {
        throw CommandError("the dispute was not submitted: \(problem); submit again")
      }
      viewState.dispute?.step = .submitted
    default:
      let now = viewState.dispute?.step.rawValue ?? "not started"
      throw CommandError("the dispute is \(now): `dispute \(step.name)` does not apply")
    }
  }

  // MARK: Frame

  public var typedFrame: LedgerFrame {
    let hidden = session.state != .active
    func shown(_ transaction: Transaction) -> LedgerFrame.Transaction {
      var row = LedgerFrame.Transaction()
      row.id = transaction.id
      row.counterparty = transaction.counterparty
      row.amount = hidden ? "•••" : transaction.amount.description
      row.memo = transaction.memo
      return row
    }
    var frame = LedgerFrame()
    frame.session = session.state.rawValue
    frame.state = feed.name
    frame.isLoading = feed.isLoading
    frame.query = viewState.query
    if case .loaded(let transactions) = feed, session.state != .signedOut {
      frame.count = transactions.count
      // A feed shows its newest page; `count` says how many matched.
      frame.rows = transactions.prefix(min(Self.pageSize, viewportRows)).map(shown)
    }
    if case .failed(let text) = feed { frame.message = text }
    frame.canRetry = feed.name == "failed"
    frame.fetchesStarted = fetchesStarted
    frame.serverRequests = network.fetches
    frame.balance = hidden ? "•••" : document.balance.description
    frame.path = viewState.path.map(\.description)
    frame.link = DeepLink.link(for: viewState.path)
    if case .detail(let id)? = viewState.path.first,
      let transaction = document.transactions.first(where: { $0.id == id })
    {
      frame.detail = shown(transaction)
    }
    frame.dispute = viewState.dispute.map { flow in
      var dispute = LedgerFrame.Dispute()
      dispute.transaction = flow.transactionID
      dispute.step = flow.step.rawValue
      dispute.reason = flow.reason
      return dispute
    }
    return frame
  }

}
