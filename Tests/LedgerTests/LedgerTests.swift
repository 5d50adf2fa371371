import Ledger
import Testing
import WorkbenchCore
import WorkbenchModuleAPI

@Suite struct FeedMachineTests {
  static let row = Transaction(id: 1, amount: Money(cents: 100), counterparty: "A", memo: "")
  static let states: [FeedState] = [.idle, .loading(query: ""), .loaded([row]), .empty, .failed(message: "x")]

  /// Every state against every event: the table the seed draws, and nothing else.
  @Test func everyStateAgainstEveryEvent() {
    let expected: [String: [FeedEvent: String]] = [
      "idle": [.appeared: "loading"],
      "loading": [
        .loadSucceeded: "loaded", .loadFailed: "failed", .queryChanged: "loading",
      ],
      "loaded": [.refreshPulled: "loading", .queryChanged: "loading"],
      "empty": [.refreshPulled: "loading", .queryChanged: "loading"],
      "failed": [.retryTapped: "loading"],
    ]
    for state in Self.states {
      for event in FeedEvent.allCases {
        let next = FeedMachine.next(state, event, rows: [Self.row], message: "m")
        #expect(next?.name == expected[state.name]?[event], "\(state.name) + \(event)")
      }
    }
  }

  @Test func aLoadEndsInExactlyOneOfLoadedEmptyOrFailed() {
    #expect(FeedMachine.next(.loading(query: ""), .loadSucceeded, rows: []) == .empty)
    #expect(FeedMachine.next(.loading(query: ""), .loadSucceeded, rows: [Self.row]) == .loaded([Self.row]))
    #expect(FeedMachine.next(.loading(query: ""), .loadFailed, message: "offline") == .failed(message: "offline"))
  }

  @Test func retryClearsTheErrorBecauseTheErrorIsPartOfTheState() {
    let next = FeedMachine.next(.failed(message: "offline"), .retryTapped, query: "q")
    #expect(next == .loading(query: "q"))
    #expect(next?.isLoading == true)
  }
}

@Suite struct MoneyTests {
  @Test func parsesExactDecimals() {
    #expect(Money(parsing: "12")?.cents == 1200)
    #expect(Money(parsing: "12.3")?.cents == 1230)
    #expect(Money(parsing: "12.34")?.cents == 1234)
    #expect(Money(parsing: "0.1")?.cents == 10)
    #expect(Money(parsing: "-4.05")?.cents == -405)
    for bad in ["", ".5", "1.234", "1e3", "12,50", "1.", "abc", "--1", "99999999999999"] {
      #expect(Money(parsing: bad) == nil, "\(bad)")
    }
  }

  @Test func printsTwoDecimals() {
    #expect(Money(cents: 5).description == "0.05")
    #expect(Money(cents: -120_050).description == "-1200.50")
  }

  @Test func sumsStayExact() {
    let tenCents = Money(parsing: "0.10")!
    let total = (0..<10).reduce(Int64(0)) { sum, _ in sum + tenCents.cents }
    #expect(Money(cents: total) == Money(parsing: "1.00"))  // 0.1 * 10 == 1, which Double cannot promise
  }
}

@Suite struct DeepLinkTests {
  @Test func linksParseIntoPathsAndBack() throws {
    #expect(try DeepLink.routes(for: "ledger://transaction/42") == [.detail(42)])
    #expect(try DeepLink.routes(for: "ledger://transaction/42/dispute") == [.detail(42), .dispute(42)])
    #expect(try DeepLink.routes(for: "ledger://") == [])
    for path: [Route] in [[], [.detail(7)], [.detail(7), .dispute(7)]] {
      #expect(try DeepLink.routes(for: DeepLink.link(for: path)) == path)
    }
  }

  @Test func badLinksAreRefused() {
    for bad in [
      "http://x/1", "ledger://transaction", "ledger://transaction/0", "ledger://transaction/4/refund",
      "ledger://account/4",
    ] {
      #expect(throws: LedgerLinkError.self) { try DeepLink.routes(for: bad) }
    }
  }
}

@MainActor
@Suite struct LedgerScreenTests {
  @Test func closingAWindowCancelsItsLoadAndANewWindowStartsFresh() throws {
    let host = try Host(modules: [LedgerModule()], clock: .virtual)
    _ = try host.run(line: "open feed account a; @a search rent")
    weak let closed = host.window(named: "a")?.model(as: LedgerScreen.self)
    _ = try host.run(line: "close a")
    #expect(closed == nil)
    #expect(host.clock.pendingTimers == 0)  // the running load was cancelled, not left to land
    _ = try host.run(line: "open feed account b")
    #expect(host.window(named: "b")?.frame["query"] == "")
    #expect(host.window(named: "b")?.frame["state"] == "loading")
  }

  @Test func theSessionTokenIsNeverInTheViewState() throws {
    let host = try Host(modules: [LedgerModule()], clock: .virtual)
    _ = try host.run(line: "open feed account a; @a detail 42; clock advance 1s")
    let record = try host.sessionRecord()
    #expect(
      !record.windows.contains { $0.viewState.state.contains("token") || Secrets.containsSecret($0.viewState.state) })
  }
}

/// The feed's repository is a dependency the session supplies through its key: a test overrides
/// it before the window opens, and the window loads from it, not from the simulated network; a
/// session for tests gets every key's test value.
@MainActor
@Suite struct RepositoryInjectionTests {
  @Test func aWindowLoadsFromTheRepositoryItsSessionWasGiven() throws {
    let host = try Host(modules: [LedgerModule()], clock: .virtual)
    let rows = [Transaction(id: 7, amount: Money(cents: -1250), counterparty: "Test Shop", memo: "injected")]
    let fetches = FetchCounter()
    host.services.override(
      TransactionRepositoryKey.self, with: LedgerDependencies { _, _, _ in .immediate(rows, fetches: fetches) })
    _ = try host.run(line: "open feed account f")
    let frame = host.window(named: "f")?.frame
    #expect(frame?["state"] == "loaded")
    #expect(frame?["rows"]?.elements?.first?["counterparty"] == "Test Shop")
    #expect(fetches.count == 1)
    _ = try host.run(line: "search shop")
    #expect(fetches.count == 2)
  }

  @Test func aFailingRepositoryFailsTheFeed() throws {
    let host = try Host(modules: [LedgerModule()], clock: .virtual)
    host.services.override(
      TransactionRepositoryKey.self,
      with: LedgerDependencies { _, _, _ in .immediate([], failure: LedgerFailure(message: "the test says no")) })
    _ = try host.run(line: "open feed account f")
    #expect(host.window(named: "f")?.frame["state"] == "failed")
    #expect(host.window(named: "f")?.frame["message"] == "the test says no")
  }

  /// A session for tests gets each key's test value: the feed answers at once from the
  /// window's own ledger (no latency to wait for), searches filter it, and the network and the
  /// app session are still there for the commands that use them.
  @Test func aSessionForTestsGetsEveryKeysTestValue() throws {
    let host = try Host(modules: [LedgerModule()], clock: .virtual)
    host.services.usesTestValues = true
    _ = try host.run(line: "open feed account f")
    let frame = try #require(host.window(named: "f")?.frame)
    #expect(frame["state"] == "loaded")
    let all = frame["count"]?.integerValue ?? 0
    #expect(all > 1)
    _ = try host.run(line: "search rent")
    #expect(host.window(named: "f")?.frame["state"] == "loaded")
    #expect((host.window(named: "f")?.frame["count"]?.integerValue ?? all) < all)
    _ = try host.run(line: "session lock")
    #expect(host.services[LedgerSessionKey.self].state == .locked)
    // A live session on the same modules waits for the network's latency instead.
    let live = try Host(modules: [LedgerModule()], clock: .virtual)
    _ = try live.run(line: "open feed account f")
    #expect(live.window(named: "f")?.frame["state"] == "loading")
  }
}
