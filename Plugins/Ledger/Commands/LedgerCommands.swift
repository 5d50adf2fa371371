import WorkbenchModuleAPI

/// The ledger's commands: search and retry through the feed's state machine, navigation and
/// deep links, disputes, sending money, and the simulated network and app session.
enum LedgerCommands {
  static let screens = ["feed"]
  static let all = [search, retry, refresh, debounce, detail, back, link, dispute, send, network, session]

  /// A command that sends the window's ledger screen the action `action` makes.
  private static func feedCommand(
    _ name: String, arguments: [any ArgumentDeclaration] = [], summary: String,
    _ action: @escaping @MainActor @Sendable (ParsedArguments) -> LedgerAction
  ) -> CommandSpec {
    ScreenCommands.sending(
      name, to: LedgerScreen.self, screens: screens, arguments: arguments, summary: summary
    ) { arguments, _ in action(arguments) }
  }

  static let searchText = Argument<String>.rest("text", help: "none clears the search").optional

  static let search = feedCommand(
    "search", arguments: [searchText], summary: "Search the feed: the running load is cancelled and a new one starts"
  ) { arguments in .searched(arguments[searchText] ?? "") }

  static let retry = feedCommand("retry", summary: "Load again after a failure") { _ in .retryTapped }

  static let refresh = feedCommand("refresh", summary: "Load the feed again") { _ in .refreshPulled }

  static let milliseconds = Argument<Int>.integer("milliseconds", in: 0...10_000, help: "0 turns it off")

  static let debounce = feedCommand(
    "debounce", arguments: [milliseconds], summary: "Wait this long after a search before fetching"
  ) { arguments in .debounceSet(milliseconds: arguments[milliseconds]) }

  static let transaction = Argument<Int>.integer("id", help: "a transaction id")

  static let detail = feedCommand(
    "detail", arguments: [transaction],
    summary: "Open a transaction's detail (the navigation path becomes [detail(ID)])"
  ) { arguments in .detailOpened(arguments[transaction]) }

  static let back = feedCommand("back", summary: "Go back one screen") { _ in .backTapped }

  static let url = Argument<String>.word("url", help: "ledger://transaction/ID[/dispute]")

  static let link = feedCommand(
    "link", arguments: [url], summary: "Follow a deep link: parsed into a path and assigned in one step"
  ) { arguments in .linkFollowed(arguments[url]) }

  static let disputeReason = Argument<String>.rest("reason", help: "why")

  static let dispute = CommandSpec(
    "dispute",
    subcommands: [
      feedCommand("start", summary: "Start disputing the open transaction") { _ in .disputeStarted },
      feedCommand("reason", arguments: [disputeReason], summary: "Say why") { arguments in
        .disputeReasonGiven(arguments[disputeReason])
      },
      feedCommand("submit", summary: "Send the dispute") { _ in .disputeSubmitted },
    ],
    summary: "Dispute the open transaction: start, give a reason, submit", scope: .window(screens: screens))

  static let amount = Argument<String>.word("amount", help: "a positive amount with at most two decimals: 12.50")
  static let request = Argument<String>.word("request", help: "a request id: sending twice with one id sends once")
  static let recipient = Argument<String>.rest("recipient", help: "who gets it")

  static let send = feedCommand(
    "send", arguments: [amount, request, recipient],
    summary: "Send money; a retry with the same request id never sends twice"
  ) { arguments in
    .moneySent(amount: arguments[amount], request: arguments[request], recipient: arguments[recipient])
  }

  static let failures = Argument<Int>.integer("requests", in: 1...100_000, help: "how many (1 when left out)").optional
  static let latency = Argument<Int>.integer("milliseconds", in: 0...100_000, help: "the delay of every answer")

  static let network = CommandSpec(
    "network",
    subcommands: [
      networkCommand("online", summary: "Answer requests again") { network, _ in network.isOnline = true },
      networkCommand("offline", summary: "Fail every request as offline") { network, _ in network.isOnline = false },
      networkCommand("fail", arguments: [failures], summary: "Fail the next N requests") { network, arguments in
        network.failuresToCome = arguments[failures] ?? 1
      },
      networkCommand("latency", arguments: [latency], summary: "Answer every request after this delay") {
        network, arguments in network.latency = .milliseconds(arguments[latency])
      },
    ],
    summary: "Control the simulated network: online, offline, fail the next N requests, latency in ms")

  /// A subcommand of `network`, acting on the session's simulated network.
  private static func networkCommand(
    _ name: String, arguments: [any ArgumentDeclaration] = [], summary: String,
    _ change: @escaping @MainActor @Sendable (LedgerNetwork, ParsedArguments) -> Void
  ) -> CommandSpec {
    CommandSpec(name, arguments: arguments, summary: summary) { context in
      change(context.services[LedgerNetworkKey.self], context.arguments)
      return context.window.map { .frame($0.id) } ?? .nothing
    }
  }

  /// What `session` does to the app session.
  enum SessionChange: String, CaseIterable {
    case signOut = "sign-out"
    case signIn = "sign-in"
    case lock, unlock
  }

  static let sessionChange = Argument<SessionChange>.choice("change")

  static let session = CommandSpec(
    "session", arguments: [sessionChange],
    summary: "Change the app session: signing out collapses navigation in every ledger window; locked hides amounts"
  ) { context in
    let session = context.services[LedgerSessionKey.self]
    switch context.arguments[sessionChange] {
    case .signOut: session.change(to: .signedOut)
    case .lock:
      guard session.state == .active else { throw CommandError("only an active session can be locked") }
      session.change(to: .locked)
    case .signIn, .unlock: session.change(to: .active)
    }
    return context.window.map { .frame($0.id) } ?? .nothing
  }
}
