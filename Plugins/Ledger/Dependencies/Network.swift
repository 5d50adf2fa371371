import WorkbenchModuleAPI

/// A simulated network between the ledger screens and the ledger: latency on the session clock,
/// offline, and failing requests on demand. Commands control it.
@MainActor
public final class LedgerNetwork {
  public var isOnline = true
  public var latency: Duration = .milliseconds(300)
  /// How many of the next requests fail.
  public var failuresToCome = 0
  /// Requests that reached the server, for tests (a debounced load never gets here).
  public private(set) var fetches = 0

  /// A network whose starting state is a fact of the session (`network.state`): online with
  /// 300 ms latency when live, as it was when recording started on replay.
  static func starting(in services: SessionServices) -> LedgerNetwork {
    let network = LedgerNetwork()
    let box = WeakBox(network)
    let state = services.facts.state(
      of: "network.state", in: "network", live: { network.state }, capture: { box.value?.state })
    network.isOnline = state["online"]?.boolValue ?? true
    network.latency = state["latency"]?.stringValue.flatMap(DurationText.parse) ?? network.latency
    network.failuresToCome = max(0, state["failuresToCome"]?.integerValue ?? 0)
    network.fetches = max(0, state["requests"]?.integerValue ?? 0)
    return network
  }

  /// The network's settings now, as a `network.state` fact.
  var state: FrameValue {
    .object(
      FrameObject([
        "online": .bool(isOnline), "latency": .string(DurationText.describe(latency)),
        "failuresToCome": .integer(failuresToCome), "requests": .integer(fetches),
      ]))
  }

  /// Whether the next request goes through: `nil`, or why not. The answer is an external fact
  /// of the session (`source` of the window `scope`): a recording keeps it, a replay gives the
  /// recorded one. Counts the requests that went through.
  func admit(_ source: String, in scope: String, asked: FrameValue, facts: any OutsideFacts) -> String? {
    let answer = facts.value(of: source, in: scope, asked: asked) { liveAnswer().map(FrameValue.string) ?? .null }
    guard answer == .null else { return answer.stringValue ?? "the recorded answer is unreadable" }
    fetches = OutsideNumbers.saturatingSuccessor(of: fetches)
    return nil
  }

  /// What the simulated network does with a request now.
  private func liveAnswer() -> String? {
    if !isOnline { return "you are offline" }
    if failuresToCome > 0 {
      failuresToCome -= 1
      return "the server did not answer"
    }
    return nil
  }

  /// A fetch's answer as a fact: `{rows: [ids]}`, runs of consecutive ids as `"FIRST-LAST"`, or
  /// `{failure: MESSAGE}`.
  func fetchAnswer(in scope: String, query: String, facts: any OutsideFacts, rows: () -> [Transaction]) -> FrameValue {
    facts.value(of: "network.answer", in: scope, asked: ["query": .string(query)]) {
      if let problem = liveAnswer() { return .object(FrameObject(["failure": .string(problem)])) }
      return .object(FrameObject(["rows": .list(Self.runs(of: rows().map(\.id)))]))
    }
  }

  /// Ids as a list with runs of consecutive ids folded: `[1, 2, 3, 7]` is `["1-3", 7]`.
  static func runs(of ids: [Int]) -> [FrameValue] {
    var result: [FrameValue] = []
    var index = 0
    while index < ids.count {
      var end = index
      while end + 1 < ids.count, let next = OutsideNumbers.successor(of: ids[end]), ids[end + 1] == next { end += 1 }
      result.append(end - index >= 2 ? .string("\(ids[index])-\(ids[end])") : .integer(ids[index]))
      if end - index == 1 { result.append(.integer(ids[end])) }
      index = end + 1
    }
    return result
  }

  /// The ids a `runs(of:)` list stands for; `nil` when it is not one.
  static func ids(fromRuns runs: [FrameValue]) -> [Int]? {
    var ids: [Int] = []
    for run in runs {
      if let id = run.integerValue {
        ids.append(id)
      } else if let text = run.stringValue, let dash = text.firstIndex(of: "-"),
        let first = Int(text[..<dash]), let last = Int(text[text.index(after: dash)...]), first <= last,
        case (let span, let overflow) = last.subtractingReportingOverflow(first), !overflow, span < 10_000_000
      {
        ids += Array(first...last)
      } else {
        return nil
      }
    }
    return ids
  }

  /// Counts a request the network let through.
  func countAnswered() { fetches = OutsideNumbers.saturatingSuccessor(of: fetches) }
}

/// The app session, above the windows: signed out, locked or active. Never stored: a session
/// and its token belong to the running process.
@MainActor
public final class LedgerSession {
  public enum State: String, Sendable {
    case signedOut = "signed out"
    case locked, active
  }
  public private(set) var state: State = .active
  /// The session token. A `Secret`: it can never be written to the workspace.
  package private(set) var token = Secret<String>("session-token")
  private let observers = ObserverList()

  func change(to state: State) {
    self.state = state
    token = Secret(state == .signedOut ? nil : "session-token")
    observers.notifyAll()
  }

  func observe(_ onChange: @escaping @MainActor () -> Void) -> Cancellation { observers.add(onChange) }
}

/// What the feed asks for transactions, in the feed's own words: a struct of closures the
/// container supplies (live: the workspace's ledger behind the simulated network).
@MainActor
public struct TransactionRepository {
  /// Starts fetching the transactions matching `query`; `completion` runs when the answer
  /// arrives. The returned cancellation stops a fetch that is no longer wanted.
  public var fetch:
    (_ query: String, _ completion: @escaping @MainActor (Result<[Transaction], LedgerFailure>) -> Void)
      -> Cancellation

  /// A repository from its fetch.
  public init(
    fetch:
      @escaping (_ query: String, _ completion: @escaping @MainActor (Result<[Transaction], LedgerFailure>) -> Void)
      -> Cancellation
  ) {
    self.fetch = fetch
  }

  /// The live repository: the ledger's matching transactions, after the network's latency.
  /// The latency and the answer are facts of the window's session: recorded, or replayed
  /// (a replayed answer names its rows by id, read from the window's ledger).
  static func live(
    matching: @escaping @MainActor (String) -> [Transaction], network: LedgerNetwork, environment: ScreenEnvironment
  ) -> TransactionRepository {
    let facts = environment.services.facts
    let clock = environment.services.clock
    let scope = environment.factScope
    return TransactionRepository { query, completion in
      let latency = facts.value(of: "network.latency", in: scope, asked: ["query": .string(query)]) {
        .string(DurationText.describe(network.latency))
      }
      return clock.schedule(after: latency.stringValue.flatMap(DurationText.parse) ?? network.latency) {
        var liveRows: [Transaction]? = nil
        let answer = network.fetchAnswer(in: scope, query: query, facts: facts) {
          let rows = matching(query)
          liveRows = rows
          return rows
        }
        if let problem = answer["failure"]?.stringValue {
          completion(.failure(LedgerFailure(message: problem)))
          return
        }
        guard let runs = answer["rows"]?.elements, let ids = LedgerNetwork.ids(fromRuns: runs) else {
          completion(.failure(LedgerFailure(message: "the recorded answer is unreadable: \(answer.jsonText)")))
          return
        }
        // A replay's set-up reloads the windows the recording started with; the requests
        // their loads made are in the network's recorded state already.
        if !facts.isRelivingRecordedStart { network.countAnswered() }
        // Live (or recording), the rows are at hand; a replay reads its recorded ids.
        if let liveRows {
          completion(.success(liveRows))
          return
        }
        let all = matching("")
        var byID: [Int: Transaction] = [:]
        for transaction in all { byID[transaction.id] = transaction }
        completion(.success(ids.compactMap { byID[$0] }))
      }
    }
  }
}

extension TransactionRepository {
  /// A repository for tests that answers every fetch at once with `rows` (or `failure`),
  /// whatever the query, and counts the fetches.
  public static func immediate(
    _ rows: [Transaction], failure: LedgerFailure? = nil, fetches: FetchCounter = FetchCounter()
  ) -> TransactionRepository {
    TransactionRepository { _, completion in
      fetches.count += 1
      completion(failure.map { .failure($0) } ?? .success(rows))
      return .none
    }
  }
}

/// Counts a test repository's fetches.
@MainActor
public final class FetchCounter {
  public var count = 0
  public init() {}
}

/// How a session's feed windows get their repository: from a search over the window's ledger,
/// the session's network and the window's environment. The live one goes through the simulated
/// network and clock; a test gives the session another (`TransactionRepositoryKey`).
@MainActor
public final class LedgerDependencies {
  /// Builds a window's repository from a search over the window's ledger, the session's
  /// network and the window's environment (clock, facts).
  public let repository:
    @MainActor (
      _ matching: @escaping @MainActor (String) -> [Transaction], _ network: LedgerNetwork,
      _ environment: ScreenEnvironment
    ) -> TransactionRepository

  /// Dependencies with the given repository.
  public init(
    repository:
      @escaping @MainActor (
        _ matching: @escaping @MainActor (String) -> [Transaction], _ network: LedgerNetwork,
        _ environment: ScreenEnvironment
      ) -> TransactionRepository
  ) {
    self.repository = repository
  }
}

/// The session's simulated network (`network online|offline|fail|latency` changes it).
public enum LedgerNetworkKey: ServiceKey {
  public static func liveValue(in services: SessionServices) -> LedgerNetwork { .starting(in: services) }
}

/// The app session (signed in, locked, signed out), shared by every ledger window.
public enum LedgerSessionKey: ServiceKey {
  public static func liveValue(in services: SessionServices) -> LedgerSession { LedgerSession() }
}

/// Where feed windows load from. Live: the window's ledger behind the session's network, after
/// its latency, each answer a recorded fact. For tests: the window's ledger, answered at once.
public enum TransactionRepositoryKey: ServiceKey {
  public static func liveValue(in services: SessionServices) -> LedgerDependencies {
    LedgerDependencies { matching, network, environment in
      .live(matching: matching, network: network, environment: environment)
    }
  }

  public static func testValue(in services: SessionServices) -> LedgerDependencies {
    LedgerDependencies { matching, _, _ in
      TransactionRepository { query, completion in
        completion(.success(matching(query)))
        return .none
      }
    }
  }
}

/// Why a load failed.
public struct LedgerFailure: Error, Equatable, Sendable {
  /// What went wrong, for the feed's message.
  public let message: String

  /// A failure with a message.
  public init(message: String) { self.message = message }
}

/// A ledger with each transaction's searchable text folded once, so a search over a hundred
/// thousand transactions compares bytes instead of lowercasing every string again.
@MainActor
final class SearchableLedger {
  let document: LedgerDocument
  private lazy var folded: [[UInt8]] = document.transactions.map { transaction in
    Array((transaction.counterparty + "\n" + transaction.memo).lowercased().utf8)
  }

  init(_ document: LedgerDocument) { self.document = document }

  func matching(_ query: String) -> [Transaction] {
    let needle = Array(query.lowercased().utf8)
    guard !needle.isEmpty else { return document.transactions }
    var result: [Transaction] = []
    for (index, text) in folded.enumerated() where Self.contains(text, needle) {
      result.append(document.transactions[index])
    }
    return result
  }

  static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    let first = needle[0]
    var index = 0
    let last = haystack.count - needle.count
    while index <= last {
      if haystack[index] == first {
        var matched = 1
        while matched < needle.count && haystack[index + matched] == needle[matched] { matched += 1 }
        if matched == needle.count { return true }
      }
      index += 1
    }
    return false
  }
}
