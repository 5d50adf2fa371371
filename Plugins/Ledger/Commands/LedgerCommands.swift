import WorkbenchCore

/// The ledger's commands: search and retry through the feed's state machine, navigation and
/// deep links, disputes, sending money, and the simulated network and app session.
enum LedgerCommands {
  static let screens = ["feed"]
  static let all = [search, retry, refresh, debounce, detail, back, link, dispute, send, network, session]

  private static func feedCommand(
    _ name: String, arguments: [ArgumentSpec] = [], summary: String,
    _ body: @escaping @MainActor @Sendable (LedgerScreen, ParsedArguments) throws(CommandError) -> Void
  ) -> CommandSpec {
    CommandSpec(name, arguments: arguments, summary: summary, scope: .window(screens: screens)) { context in
      try body(try context.model(LedgerScreen.self), context.arguments)
      return .frame(try context.requireWindow().id)
    }
  }

  static let search = feedCommand(
    "search", arguments: [ArgumentSpec("text", .rest, optional: true, help: "none clears the search")],
    summary: "Search the feed: the running load is cancelled and a new one starts"
  ) { screen, arguments throws(CommandError) in try screen.search(arguments.text("text") ?? "") }

  static let retry = feedCommand("retry", summary: "Load again after a failure") { screen, _ throws(CommandError) in
    try screen.send(.retryTapped)
  }

  static let refresh = feedCommand("refresh", summary: "Load the feed again") { screen, _ throws(CommandError) in
    try screen.send(.refreshPulled)
  }

  static let debounce = feedCommand(
    "debounce", arguments: [ArgumentSpec("milliseconds", .integer(0...10_000), help: "0 turns it off")],
    summary: "Wait this long after a search before fetching"
  ) { screen, arguments throws(CommandError) in screen.setDebounce(arguments.integer("milliseconds") ?? 0) }

  static let detail = feedCommand(
    "detail", arguments: [ArgumentSpec("id", .integer(), help: "a transaction id")],
    summary: "Open a transaction's detail (the navigation path becomes [detail(ID)])"
  ) { screen, arguments throws(CommandError) in try screen.push(.detail(arguments.integer("id") ?? 0)) }

  static let back = feedCommand("back", summary: "Go back one screen") { screen, _ throws(CommandError) in
    try screen.back()
  }

  static let link = feedCommand(
    "link", arguments: [ArgumentSpec("url", .word, help: "ledger://transaction/ID[/dispute]")],
    summary: "Follow a deep link: parsed into a path and assigned in one step"
  ) { screen, arguments throws(CommandError) in try screen.follow(arguments.text("url") ?? "") }

  static let dispute = feedCommand(
    "dispute",
    arguments: [
      ArgumentSpec("step", .choice(["start", "reason", "submit"])),
      ArgumentSpec("reason", .rest, optional: true, help: "with reason: why"),
    ],
    summary: "Dispute the open transaction: start, give a reason, submit"
  ) { screen, arguments throws(CommandError) in
    try screen.dispute(arguments.text("step") ?? "", reason: arguments.text("reason"))
  }

  static let send = CommandSpec(
    "send",
    arguments: [
      ArgumentSpec("amount", .word, help: "a positive amount with at most two decimals: 12.50"),
      ArgumentSpec("request", .word, help: "a request id: sending twice with one id sends once"),
      ArgumentSpec("recipient", .rest, help: "who gets it"),
    ],
    summary: "Send money; a retry with the same request id never sends twice", scope: .window(screens: screens)
  ) { context in
    let screen = try context.model(LedgerScreen.self)
    let sent = try screen.prepareSend(
      amount: context.arguments.text("amount") ?? "", request: context.arguments.text("request") ?? "",
      recipient: context.arguments.text("recipient") ?? "")
    try context.commit(sent, summary: "send money")
    return .frame(try context.requireWindow().id)
  }

  static let network = CommandSpec(
    "network",
    arguments: [
      ArgumentSpec("change", .choice(["online", "offline", "fail", "latency"])),
      ArgumentSpec("value", .integer(0...100_000), optional: true, help: "fail: how many requests; latency: ms"),
    ],
    summary: "Control the simulated network: online, offline, fail the next N requests, latency in ms"
  ) { context in
    let network = context.host.services.shared(LedgerNetwork.self) { LedgerNetwork() }
    let value = context.arguments.integer("value")
    switch context.arguments.text("change") {
    case "online": network.isOnline = true
    case "offline": network.isOnline = false
    case "fail": network.failuresToCome = value ?? 1
    default: network.latency = .milliseconds(value ?? 300)
    }
    return context.window.map { .frame($0.id) } ?? .nothing
  }

  static let session = CommandSpec(
    "session", arguments: [ArgumentSpec("change", .choice(["sign-out", "sign-in", "lock", "unlock"]))],
    summary: "Change the app session: signing out collapses navigation in every ledger window; locked hides amounts"
  ) { context in
    let session = context.host.services.shared(LedgerSession.self) { LedgerSession() }
    switch context.arguments.text("change") {
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
        "'\(recipient)' is not a recipient"
          + (Suggestions.closest(to: recipient, in: document.recipients)
            .map { ". Did you mean '\($0)'?" } ?? "") + " (recipients: \(document.recipients.joined(separator: ", ")))")
    }
    if let earlier = document.sentRequests[request] {
      throw CommandError("request \(request) was already sent as transaction \(earlier); nothing was sent again")
    }
    if let problem = network.admit() {
      throw CommandError("not sent: \(problem); send again with the same request id \(request) when you are back")
    }
    var ledger = document
    let id = (ledger.transactions.map(\.id).max() ?? 0) + 1
    ledger.transactions.append(
      Transaction(id: id, amount: Money(cents: -amount.cents), counterparty: recipient, memo: "sent"))
    ledger.balance = Money(cents: ledger.balance.cents - amount.cents)
    ledger.sentRequests[request] = id
    return ledger
  }
}
