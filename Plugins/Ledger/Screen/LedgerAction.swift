/// Everything a user can do in a ledger window, named for what happened. The feed's own
/// transitions (a load that finished or failed) are `FeedEvent`s of its machine; these are the
/// user's side.
public enum LedgerAction: Equatable, Sendable {
  /// A search was typed: the running load is cancelled and a new one starts.
  case searched(String)
  /// "Retry" was tapped after a failure.
  case retryTapped
  /// The feed was pulled to refresh.
  case refreshPulled
  /// The search's debounce was set, in milliseconds (0 turns it off).
  case debounceSet(milliseconds: Int)
  /// A transaction's detail was opened.
  case detailOpened(Int)
  /// A deep link was followed: parsed into a path and assigned in one step.
  case linkFollowed(String)
  /// "Back" was tapped.
  case backTapped
  /// A dispute of the open transaction was started.
  case disputeStarted
  /// The dispute's reason was given.
  case disputeReasonGiven(String)
  /// The dispute was submitted.
  case disputeSubmitted
  /// Money was sent (amount as typed, the request id that makes a retry safe, the recipient).
  case moneySent(amount: String, request: String, recipient: String)
}
