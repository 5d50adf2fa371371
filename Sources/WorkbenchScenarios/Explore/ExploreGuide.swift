import WorkbenchCore
import WorkbenchModuleAPI

/// What a session has tried so far, which steers what it tries next, as coverage-guided
/// fuzzers are steered by what their inputs reached: a command not yet carried out in the state
/// its window is in (a ledger feed `loaded`, `failed`) is chosen before the others, and numbers
/// and words are now and then taken from what the window shows (a transaction's id, a name), so
/// commands that want a value the window holds (`detail 47`) get one.
///
/// Kept per session, drawn from the session's own random sequence: a session depends only on
/// its seed, so `--jobs` and shrinking generate it again as it was.
struct ExploreGuide {
  /// The (screen, state, command) choices made, and how many times each was refused.
  private var carriedOut: Set<String> = []
  private var refusals: [String: Int] = [:]
  /// The choice of the step running, told its outcome by `finished(refused:)`.
  private var pending: String?

  /// A choice refused this many times in its state is left to chance again: some commands are
  /// refused whatever the explorer draws (a deep link in a format it cannot guess).
  static let patience = 3

  /// Where `window` is: its screen, with the state its frame names (`state`), if any.
  static func place(of frame: FrameValue, screen: String) -> String {
    screen + "\u{1F}" + (frame["state"]?.stringValue ?? "")
  }

  /// Whether the choice `name` (a command, `name sub` for a subcommand) was not yet carried out
  /// at `place`, and not refused there too often.
  func isUntried(_ name: String, at place: String) -> Bool {
    let key = place + "\u{1F}" + name
    return !carriedOut.contains(key) && refusals[key, default: 0] < Self.patience
  }

  /// The step about to run chose `name` at `place`.
  mutating func chose(_ name: String, at place: String) { pending = place + "\u{1F}" + name }

  /// The choice did not run (the step became another).
  mutating func drop() { pending = nil }

  /// The step ran: refused or carried out.
  mutating func finished(refused: Bool) {
    guard let key = pending else { return }
    pending = nil
    if refused { refusals[key, default: 0] += 1 } else { carriedOut.insert(key) }
  }

  /// The whole numbers and the short texts a frame shows (at most `limit` of each, in order):
  /// ids, counts, names.
  static func values(in frame: FrameValue, limit: Int = 32) -> (numbers: [Int], words: [String]) {
    var numbers: [Int] = []
    var words: [String] = []
    var stack = [frame]
    while let value = stack.popLast(), numbers.count < limit || words.count < limit {
      switch value {
      case .integer(let number) where numbers.count < limit && !numbers.contains(number): numbers.append(number)
      case .string(let text) where words.count < limit && text.count <= 40 && !words.contains(text): words.append(text)
      case .list(let elements): stack.append(contentsOf: elements.reversed())
      case .object(let object): stack.append(contentsOf: object.members.map(\.value).reversed())
      default: break
      }
    }
    return (numbers, words)
  }
}
