import WorkbenchModuleAPI

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
    let asked: FrameValue = ["request": .string(request), "amount": .string(text), "recipient": .string(recipient)]
    if let problem = network.admit("network.send", in: factScope, asked: asked, facts: facts) {
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
