import WorkbenchCore

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

  /// Whether the next request goes through; counts it when it does.
  func admit() -> String? {
    if !isOnline { return "you are offline" }
    if failuresToCome > 0 {
      failuresToCome -= 1
      return "the server did not answer"
    }
    fetches += 1
    return nil
  }
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
  public private(set) var token = Secret<String>("session-token")
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
  static func live(
    matching: @escaping @MainActor (String) -> [Transaction], network: LedgerNetwork, clock: SessionClock
  ) -> TransactionRepository {
    TransactionRepository { query, completion in
      clock.schedule(after: network.latency) {
        if let problem = network.admit() {
          completion(.failure(LedgerFailure(message: problem)))
          return
        }
        completion(.success(matching(query)))
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

/// How a session's feed windows get their repository: the live one (the window's copy of the
/// ledger, behind the session's simulated network and clock) unless the session was given
/// another before its windows opened, as tests do:
/// `host.services.shared(LedgerDependencies.self) { LedgerDependencies { _, _, _ in .immediate(rows) } }`.
@MainActor
public final class LedgerDependencies {
  /// Builds a window's repository from a search over the window's ledger, the session's
  /// network and clock.
  public let repository:
    @MainActor (
      _ matching: @escaping @MainActor (String) -> [Transaction], _ network: LedgerNetwork, _ clock: SessionClock
    ) -> TransactionRepository

  /// Dependencies with the given repository.
  public init(
    repository:
      @escaping @MainActor (
        _ matching: @escaping @MainActor (String) -> [Transaction], _ network: LedgerNetwork, _ clock: SessionClock
      ) -> TransactionRepository
  ) {
    self.repository = repository
  }

  /// The live dependencies.
  public convenience init() {
    self.init { matching, network, clock in .live(matching: matching, network: network, clock: clock) }
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
