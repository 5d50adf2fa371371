import WorkbenchModuleAPI

/// One movement of money.
public struct Transaction: Codable, Equatable, Hashable, Sendable {
  public var id: Int
  public var amount: Money
  public var counterparty: String
  public var memo: String

  /// A transaction.
  public init(id: Int, amount: Money, counterparty: String, memo: String) {
    self.id = id
    self.amount = amount
    self.counterparty = counterparty
    self.memo = memo
  }
}

/// The ledger: an account's balance and transactions, the people money can go to, and the
/// request ids already sent (so a retried send never sends twice).
public struct LedgerDocument: DocumentBody {
  public var balance: Money
  public var transactions: [Transaction]
  public var recipients: [String]
  public var sentRequests: [String: Int]

  public init(balance: Money, transactions: [Transaction], recipients: [String], sentRequests: [String: Int] = [:])
    throws(CommandError)
  {
    var ids = Set<Int>()
    for (index, transaction) in transactions.enumerated() where !ids.insert(transaction.id).inserted {
      throw CommandError("transactions[\(index)]: the id \(transaction.id) is used twice")
    }
    self.balance = balance
    self.transactions = transactions
    self.recipients = recipients
    self.sentRequests = sentRequests
  }

  private enum CodingKeys: String, CodingKey { case balance, transactions, recipients, sentRequests }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(
      balance: try container.decode(Money.self, forKey: .balance),
      transactions: try container.decodeIfPresent([Transaction].self, forKey: .transactions) ?? [],
      recipients: try container.decodeIfPresent([String].self, forKey: .recipients) ?? [],
      sentRequests: try container.decodeIfPresent([String: Int].self, forKey: .sentRequests) ?? [:])
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(balance, forKey: .balance)
    try container.encode(transactions, forKey: .transactions)
    try container.encode(recipients, forKey: .recipients)
    try container.encode(sentRequests, forKey: .sentRequests)
  }

  /// A new workspace's ledger.
  public static let sample: LedgerDocument = {
    let entries: [(Int64, String, String)] = [
      (250_000, "Acme Payroll", "November salary"), (-4_250, "Corner Grocer", "groceries"),
      (-12_000, "City Power", "electricity"), (-899, "Streamly", "subscription"),
      (-3_560, "Corner Grocer", "groceries"),
      (15_000, "Sam Rivera", "dinner share"), (-60_000, "Oak Street Rentals", "rent"), (-1_250, "Bean Bar", "coffee"),
    ]
    let transactions = entries.enumerated().map { index, entry in
      Transaction(id: 41 + index, amount: Money(cents: entry.0), counterparty: entry.1, memo: entry.2)
    }
    return
      (try? LedgerDocument(
        balance: Money(cents: 183_041), transactions: transactions, recipients: ["Sam Rivera", "Alex Kim", "Jo Park"]))
      ?? LedgerDocument.empty
  }()

  static let empty = LedgerDocument(unchecked: ())
  private init(unchecked: Void) {
    balance = Money(cents: 0)
    transactions = []
    recipients = []
    sentRequests = [:]
  }
}
