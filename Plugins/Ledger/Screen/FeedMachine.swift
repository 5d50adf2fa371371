import WorkbenchModuleAPI

/// The feed screen as one value: the face it shows, with the data that face needs.
public enum FeedState: Equatable, Sendable {
  case idle
  case loading(query: String)
  case loaded([Transaction])
  case empty
  case failed(message: String)

  /// The state's name, for frames.
  public var name: String {
    switch self {
    case .idle: "idle"
    case .loading: "loading"
    case .loaded: "loaded"
    case .empty: "empty"
    case .failed: "failed"
    }
  }

  /// Derived, never stored: whether a load is running.
  public var isLoading: Bool {
    if case .loading = self { return true }
    return false
  }
}

/// What can happen to the feed.
public enum FeedEvent: Equatable, Sendable, CaseIterable {
  case appeared
  case loadSucceeded
  case loadFailed
  case retryTapped
  case refreshPulled
  case queryChanged
}

/// The feed's transitions, in one place. A transition not listed here does not exist.
///
/// ```
/// idle ──appeared──▶ loading ──▶ loaded | empty | failed
/// failed ──retry──▶ loading
/// loaded ──refresh / new search──▶ loading
/// loading ──new search──▶ loading (cancel and restart)
/// empty ──refresh / new search──▶ loading
/// ```
public enum FeedMachine {
  /// The state `event` leads to from `state`, or `nil` when it is not a transition.
  public static func next(
    _ state: FeedState, _ event: FeedEvent, query: String = "", rows: [Transaction] = [], message: String = ""
  ) -> FeedState? {
    switch (state, event) {
    case (.idle, .appeared): return .loading(query: query)
    case (.loading, .loadSucceeded): return rows.isEmpty ? .empty : .loaded(rows)
    case (.loading, .loadFailed): return .failed(message: message)
    case (.failed, .retryTapped): return .loading(query: query)
    case (.loaded, .refreshPulled), (.loaded, .queryChanged): return .loading(query: query)
    case (.loading, .queryChanged): return .loading(query: query)
    case (.empty, .refreshPulled), (.empty, .queryChanged): return .loading(query: query)
    default: return nil
    }
  }
}

extension FeedMachine {
  /// The machine as a diagram, found by asking `next` about every state and every event (and,
  /// for a load that succeeds, with rows and without): it cannot drift from the table above.
  public static var diagram: Diagram {
    let row = Transaction(id: 1, amount: Money(cents: 100), counterparty: "x", memo: "")
    let states: [FeedState] = [.idle, .loading(query: ""), .loaded([row]), .empty, .failed(message: "")]
    var edges: [Diagram.Edge] = []
    for state in states {
      for event in FeedEvent.allCases {
        for rows in [[], [row]] {
          guard let target = next(state, event, rows: rows) else { continue }
          var label = "\(event)"
          if event == .loadSucceeded { label += rows.isEmpty ? " (no rows)" : " (rows)" }
          let edge = Diagram.Edge(from: state.name, to: target.name, label: label)
          if !edges.contains(edge) { edges.append(edge) }
        }
      }
    }
    return Diagram(
      title: "the feed's state machine", isStateMachine: true, start: "idle", nodes: states.map(\.name), edges: edges)
  }
}
