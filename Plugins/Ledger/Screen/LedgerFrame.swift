import WorkbenchModuleAPI

/// What a feed window shows: the app session, the feed's state machine, the rows it loaded,
/// and where navigation stands.
public struct LedgerFrame: FrameRecord {
  /// A transaction as a row or the detail shows it (its amount hidden unless the session is
  /// active).
  public struct Transaction: FrameRecord {
    public var id = 0
    public var counterparty = ""
    public var amount = ""
    public var memo = ""
    public init() {}
    public static let fields: FrameFields<Transaction> = [
      FrameField("id", \.id, "the transaction's id"),
      FrameField("counterparty", \.counterparty, "who the money went to or came from"),
      FrameField(
        "amount", \.amount, "the amount with two decimals, negative when sent; ••• unless the session is active"),
      FrameField("memo", \.memo, "the transaction's memo"),
    ]
  }

  /// A dispute being drafted.
  public struct Dispute: FrameRecord {
    /// The disputed transaction's id.
    public var transaction = 0
    public var step = ""
    public var reason: String?
    public init() {}
    public static let fields: FrameFields<Dispute> = [
      FrameField("transaction", \.transaction, "the id of the disputed transaction"),
      FrameField("step", \.step, "where the dispute is: choosingReason, reviewing or submitted"),
      FrameField("reason", \.reason, "why, as given with `dispute reason`, or null until then"),
    ]
  }

  public var session = ""
  public var state = ""
  public var isLoading = false
  public var query = ""
  public var rows: [Transaction] = []
  public var count = 0
  public var message: String?
  public var canRetry = false
  public var fetchesStarted = 0
  public var serverRequests = 0
  public var balance = ""
  public var path: [String] = []
  public var link = ""
  public var detail: Transaction?
  public var dispute: Dispute?
  public init() {}

  // Each window loads its own feed (`own`): two windows on one account may have loaded at
  // different times, or one may have failed while the other had not tried yet. Loads started
  // since the window opened count its life (`lifetime`): a replay opens it fresh, so a
  // recording does not expect the count it had.
  public static let fields: FrameFields<LedgerFrame> = [
    FrameField(
      "session", \.session,
      "the app session above the windows: active, locked or signed out (amounts hidden unless active)"),
    FrameField("state", \.state, role: .own, "the feed's state machine: idle, loading, loaded, empty or failed"),
    FrameField("isLoading", \.isLoading, role: .own, "whether a load is running"),
    FrameField("query", \.query, "the search the feed shows (\"\" for every transaction)"),
    FrameField(
      "rows", \.rows, role: .own,
      "the newest transactions found, as many as the window shows (at most 50): {id, counterparty, amount, memo}"),
    FrameField("count", \.count, role: .own, "how many transactions the last load found"),
    FrameField("message", \.message, role: .own, "why the load failed, or null"),
    FrameField("canRetry", \.canRetry, role: .own, "whether `retry` would load again (after a failure)"),
    FrameField(
      "fetchesStarted", \.fetchesStarted, role: .lifetime,
      "fetches this window started since it opened, superseded ones included"),
    FrameField("serverRequests", \.serverRequests, "requests the server answered in this session, from every window"),
    FrameField("balance", \.balance, "the account's balance, as text with two decimals"),
    FrameField("path", \.path, "the navigation path: routes such as detail(47) and dispute(47)"),
    FrameField("link", \.link, "the path as a deep link (ledger://transaction/47)"),
    FrameField(
      "detail", \.detail, role: .own, "the transaction the path shows: {id, counterparty, amount, memo}, or null"),
    FrameField("dispute", \.dispute, "the dispute being drafted: {transaction, step, reason}, or null"),
  ]
}
