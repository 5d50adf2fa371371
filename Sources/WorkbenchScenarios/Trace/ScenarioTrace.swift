import FoundationEssentials
import WorkbenchCore

/// What one scenario did, step by step, for `workbench run --trace DIR` and the HTML report:
/// each step as written, where, how long, the virtual clock, the windows whose frames changed,
/// the expectation's diff, and what the shell would have printed. The schema is documented in
/// docs/traces.md; `schema` changes when a field changes meaning.
public struct ScenarioTrace: Codable, Equatable, Sendable {
  /// The version of this format.
  public var schema = ScenarioTrace.currentSchema
  public static let currentSchema = 1
  public var scenario: String
  public var file: String
  public var line: Int
  public var tags: [String]
  /// `passed` or `failed`.
  public var status: String
  /// Seconds.
  public var duration: Double
  public var failure: ScenarioFailure?
  /// The windows in the order they first appeared.
  public var windows: [String]
  /// Step 0 is the set-up (the scenario's documents and windows); then one per step run.
  public var steps: [TraceStep]
  /// Every distinct frame, by its hash: each is stored once, however many steps show it.
  public var frames: [String: TraceFrame]

  /// The frames every window shows after step `index`, following the changes from step 0.
  public func frames(at index: Int) -> [String: String] {
    var shown: [String: String] = [:]
    for step in steps.prefix(index + 1) {
      for (window, hash) in step.frames {
        if let hash { shown[window] = hash } else { shown[window] = nil }
      }
    }
    return shown
  }
}

/// One step of a trace.
public struct TraceStep: Codable, Equatable, Sendable {
  /// `set-up`, `command`, `host`, `expect` or `snapshot`.
  public var kind: String
  /// The step as written (`left: select 2`).
  public var text: String
  /// `file:line:column`.
  public var location: String
  /// The includes and repeats it came through.
  public var origin: [String]
  /// Milliseconds of wall time.
  public var durationMs: Double
  /// The session's clock after the step, in milliseconds (virtual in a scenario).
  public var clockMs: Int
  /// Windows whose frame changed in this step: the new frame's hash, or `null` when the window
  /// closed. Windows not listed show what they showed before.
  public var frames: [String: String?]
  /// `passed`, `failed`, or `expected-failure` (a `fails:` step that failed as it should).
  public var outcome: String
  /// Why it failed, or the expected failure's message.
  public var message: String?
  /// The expectation's diff, or a snapshot's, when it failed.
  public var details: [String]
  /// What the shell would have printed for it (text output: listings, messages).
  public var output: [String]
  /// Recorded facts a replay served during the step (`source #n of scope`).
  public var facts: [String]
}

/// A frame, stored once: its structured value and the text the shell shows for it.
public struct TraceFrame: Codable, Equatable, Sendable {
  public var screen: String
  public var value: FrameValue
  public var text: String
}

/// Builds a trace as a scenario runs.
@MainActor
struct TraceRecorder {
  private(set) var trace: ScenarioTrace
  private var shown: [String: String] = [:]
  private var lastValues: [String: FrameValue] = [:]
  private var stepStart = 0.0

  init(scenario: Scenario) {
    trace = ScenarioTrace(
      scenario: scenario.name, file: scenario.location.file, line: scenario.location.line, tags: scenario.tags,
      status: "passed", duration: 0, failure: nil, windows: [], steps: [], frames: [:])
  }

  mutating func begin() { stepStart = monotonicSeconds() }

  /// Records a step that ended (or failed, with `failure`).
  mutating func end(
    kind: String, text: String, location: String, origin: [String], host: Host?, outcome: String,
    message: String? = nil, details: [String] = [], output: [String] = [], facts: [String] = []
  ) {
    var changed: [String: String?] = [:]
    // Expectations and snapshots change no window: their frames are the last step's.
    if let host, kind != "expect", kind != "snapshot" {
      var now: [String: String] = [:]
      var values: [String: FrameValue] = [:]
      for window in host.windows {
        let value = window.frame
        values[window.label] = value
        // An unchanged value keeps its hash; only a changed frame is rendered and hashed.
        if let previous = lastValues[window.label], previous == value, let hash = shown[window.label] {
          now[window.label] = hash
          continue
        }
        // The text is the screen's rendering of the value: the hash need not read it, and a
        // frame seen before is not rendered again.
        let hash = Self.hash(window.screen.name, value)
        if trace.frames[hash] == nil {
          trace.frames[hash] = TraceFrame(screen: window.screen.name, value: value, text: window.screen.render(value))
        }
        now[window.label] = hash
        if shown[window.label] != hash { changed[window.label] = .some(hash) }
        if !trace.windows.contains(window.label) { trace.windows.append(window.label) }
      }
      for label in shown.keys where now[label] == nil { changed[label] = .some(nil) }
      shown = now
      lastValues = values
    }
    let clock = host.map { Int($0.clock.now.wholeMilliseconds) } ?? 0
    trace.steps.append(
      TraceStep(
        kind: kind, text: text, location: location, origin: origin,
        durationMs: ((monotonicSeconds() - stepStart) * 1_000_000).rounded() / 1000, clockMs: clock, frames: changed,
        outcome: outcome,
        message: message, details: details, output: output, facts: facts))
  }

  mutating func finish(result: ScenarioResult) {
    trace.status = result.passed ? "passed" : "failed"
    trace.duration = result.duration
    trace.failure = result.failure
  }

  /// A content hash (FNV-1a, 64 bits) of what a frame shows, as hex: the screen and the
  /// frame's structure walked directly (no JSON is built), the same in every process.
  static func hash(_ screen: String, _ value: FrameValue) -> String {
    var hasher = StableHasher()
    hasher.mix(screen)
    hasher.mix(value)
    let state = hasher.state
    let digits = String(state, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}

/// FNV-1a over a frame's structure: a tag byte for each kind of value, then its content.
struct StableHasher {
  private(set) var state: UInt64 = 0xcbf2_9ce4_8422_2325

  mutating func byte(_ byte: UInt8) {
    state ^= UInt64(byte)
    state = state &* 0x100_0000_01b3
  }

  mutating func mix(_ text: String) {
    for unit in text.utf8 { byte(unit) }
    byte(0xff)  // not UTF-8: ends the string
  }

  mutating func mix(_ integer: Int) {
    var bits = UInt64(bitPattern: Int64(integer))
    for _ in 0..<8 {
      byte(UInt8(truncatingIfNeeded: bits))
      bits >>= 8
    }
  }

  mutating func mix(_ value: FrameValue) {
    switch value {
    case .null: byte(0)
    case .bool(let flag): byte(flag ? 2 : 1)
    case .integer(let integer):
      byte(3)
      mix(integer)
    case .number(let number):
      byte(4)
      mix(Int(bitPattern: UInt(number.bitPattern)))
    case .string(let text):
      byte(5)
      mix(text)
    case .list(let items):
      byte(6)
      mix(items.count)
      for item in items { mix(item) }
    case .object(let object):
      byte(7)
      mix(object.members.count)
      for member in object.members {
        mix(member.key)
        mix(member.value)
      }
    }
  }
}
