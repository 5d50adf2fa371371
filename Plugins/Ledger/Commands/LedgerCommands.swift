import WorkbenchCore

/// The ledger's commands: search and retry through the feed's state machine, navigation and
/// deep links, disputes, sending money, and the simulated network and app session.
enum LedgerCommands {
  static let screens = ["feed"]
  static let all = [search, retry, refresh, debounce, detail, back, link, dispute, send, network, session]

  private static func feedCommand(
    _ name: String, arguments: [any ArgumentDeclaration] = [], summary: String,
    _ body: @escaping @MainActor @Sendable (LedgerScreen, ParsedArguments) throws(CommandError) -> Void
  ) -> CommandSpec {
    CommandSpec(name, arguments: arguments, summary: summary, scope: .window(screens: screens)) { context in
      try body(try context.model(LedgerScreen.self), context.arguments)
      return .frame(try context.requireWindow().id)
    }
  }

  static let searchText = Argument<String>.rest("text", help: "none clears the search").optional

  static let search = feedCommand(
    "search", arguments: [searchText], summary: "Search the feed: the running load is cancelled and a new one starts"
  ) { screen, arguments throws(CommandError) in try screen.search(arguments[searchText] ?? "") }

  static let retry = feedCommand("retry", summary: "Load again after a failure") { screen, _ throws(CommandError) in
    try screen.send(.retryTapped)
  }

  static let refresh = feedCommand("refresh", summary: "Load the feed again") { screen, _ throws(CommandError) in
    try screen.send(.refreshPulled)
  }

  static let milliseconds = Argument<Int>.integer("milliseconds", in: 0...10_000, help: "0 turns it off")

  static let debounce = feedCommand(
    "debounce", arguments: [milliseconds], summary: "Wait this long after a search before fetching"
  ) { screen, arguments throws(CommandError) in screen.setDebounce(arguments[milliseconds]) }

  static let transaction = Argument<Int>.integer("id", help: "a transaction id")

  static let detail = feedCommand(
    "detail", arguments: [transaction],
    summary: "Open a transaction's detail (the navigation path becomes [detail(ID)])"
  ) { screen, arguments throws(CommandError) in try screen.push(.detail(arguments[transaction])) }

  static let back = feedCommand("back", summary: "Go back one screen") { screen, _ throws(CommandError) in
    try screen.back()
  }

  static let url = Argument<String>.word("url", help: "ledger://transaction/ID[/dispute]")

  static let link = feedCommand(
    "link", arguments: [url], summary: "Follow a deep link: parsed into a path and assigned in one step"
  ) { screen, arguments throws(CommandError) in try screen.follow(arguments[url]) }

  static let disputeReason = Argument<String>.rest("reason", help: "why")

  static let dispute = CommandSpec(
    "dispute",
    subcommands: [
      feedCommand("start", summary: "Start disputing the open transaction") { screen, _ throws(CommandError) in
        try screen.dispute("start", reason: nil)
      },
      feedCommand("reason", arguments: [disputeReason], summary: "Say why") { screen, arguments throws(CommandError) in
        try screen.dispute("reason", reason: arguments[disputeReason])
      },
      feedCommand("submit", summary: "Send the dispute") { screen, _ throws(CommandError) in
        try screen.dispute("submit", reason: nil)
      },
    ],
    summary: "Dispute the open transaction: start, give a reason, submit", scope: .window(screens: screens))

  static let amount = Argument<String>.word("amount", help: "a positive amount with at most two decimals: 12.50")
  static let request = Argument<String>.word("request", help: "a request id: sending twice with one id sends once")
  static let recipient = Argument<String>.rest("recipient", help: "who gets it")

  static let send = CommandSpec(
    "send", arguments: [amount, request, recipient],
    summary: "Send money; a retry with the same request id never sends twice", scope: .window(screens: screens)
  ) { context in
    let screen = try context.model(LedgerScreen.self)
    let sent = try screen.prepareSend(
      amount: context.arguments[amount], request: context.arguments[request], recipient: context.arguments[recipient])
    try context.commit(sent, summary: "send money")
    return .frame(try context.requireWindow().id)
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
      change(LedgerNetwork.shared(in: context.host.services), context.arguments)
      return context.window.map { .frame($0.id) } ?? .nothing
    }
  }

  static let sessionChange = Argument<String>.choice("change", ["sign-out", "sign-in", "lock", "unlock"])

  static let session = CommandSpec(
    "session", arguments: [sessionChange],
    summary: "Change the app session: signing out collapses navigation in every ledger window; locked hides amounts"
  ) { context in
    let session = context.host.services.shared(LedgerSession.self) { LedgerSession() }
    switch context.arguments[sessionChange] {
    case "sign-out": session.change(to: .signedOut)
    case "lock":
      guard session.state == .active else { throw CommandError("only an active session can be locked") }
      session.change(to: .locked)
    default: session.change(to: .active)
    }
    return context.window.map { .frame($0.id) } ?? .nothing
  }
}

extension LedgerScreen {
  /// Validates a send and returns the ledger with it applied; refuses a request id already sent.
  func prepareSend(amount text: String, request: String, recipient: String) throws(CommandError) -> LedgerDocument {
    guard session.state == .active else {
      throw CommandError("the session is \(session.state.rawValue): sign in to send")
    }
    guard let amount = Money(parsing: text), amount.cents > 0 else {
      throw CommandError("'\(text)' is not an amount to send: write a positive amount with at most two decimals")
    }
    guard amount <= document.balance else {
      throw CommandError("\(amount) is more than the balance \(document.balance)")
    }
    guard document.recipients.contains(recipient) else {
      throw CommandError(
        "'\(recipient)' is not a recipient" + Suggestions.didYouMean(recipient, in: document.recipients)
          + " (recipients: \(document.recipients.joined(separator: ", ")))")
    }
    if let earlier = document.sentRequests[request] {
      throw CommandError("request \(request) was already sent as transaction \(earlier); nothing was sent again")
    }
    if let problem = network.admit("network.send", in: factScope, facts: facts) {
      throw CommandError("not sent: \(problem); send again with the same request id \(request) when you are back")
    }
    var ledger = document
    let id = OutsideNumbers.newID(among: ledger.transactions.map(\.id))
    ledger.transactions.append(
      Transaction(id: id, amount: Money(cents: -amount.cents), counterparty: recipient, memo: "sent"))
    ledger.balance = Money(cents: ledger.balance.cents - amount.cents)
    ledger.sentRequests[request] = id
    return ledger
  }
}
