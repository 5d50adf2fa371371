import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel

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
  /// Where the scenario starts: for a row of an `examples` table, where the row is written.
  public var line: Int
  /// Which run of `--repeat N` this is, from 1; `nil` without `--repeat`.
  public var run: Int? = nil
  public var tags: [String]
  /// `passed`, `failed` or `skipped`.
  public var status: String
  /// Why the scenario was not run (`skip:`), when it was skipped.
  public var skipped: String? = nil
  /// Seconds.
  public var duration: Double
  public var failure: ScenarioFailure?
  /// The windows in the order they first appeared.
  public var windows: [String]
  /// Step 0 is the set-up (the scenario's documents and windows); then one per step run.
  public var steps: [TraceStep]
  /// Every distinct frame, by its hash: each is stored once, however many steps show it.
  public var frames: [String: TraceFrame]
  /// The frames projected as the scenario ran, not yet hashed (see `resolveFrames(with:)`).
  var captures: TraceCaptures?

  public init(
    schema: Int = ScenarioTrace.currentSchema, scenario: String, file: String, line: Int, tags: [String],
    status: String, duration: Double, failure: ScenarioFailure?, windows: [String], steps: [TraceStep],
    frames: [String: TraceFrame]
  ) {
    self.schema = schema
    self.scenario = scenario
    self.file = file
    self.line = line
    self.tags = tags
    self.status = status
    self.duration = duration
    self.failure = failure
    self.windows = windows
    self.steps = steps
    self.frames = frames
  }

  private enum CodingKeys: String, CodingKey {
    case schema, scenario, file, line, run, tags, status, skipped, duration, failure, windows, steps, frames
  }

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

  /// Hashes the captured frames, stores each distinct one once (rendered through `cache`), and
  /// records at each step the windows whose frame changed. Runs where it costs the run least:
  /// a run writing traces does it on its output queue, off the thread running scenarios.
  ///
  /// The captures stay with the trace, marked used, so that they are freed where they were made:
  /// freeing another thread's memory makes the two threads wait on each other's allocator.
  mutating func resolveFrames(with cache: TraceFrameCache) {
    guard let captures, !captures.resolved else { return }
    self.captures?.resolved = true
    var shown: [String: (value: FrameValue, hash: String)] = [:]
    for (index, captured) in captures.steps.enumerated() where index < steps.count {
      var changed: [String: String?] = [:]
      for label in captured.closed where shown.removeValue(forKey: label) != nil { changed[label] = .some(nil) }
      for frame in captured.frames {
        let before = shown[frame.label]
        // An unchanged value keeps its hash; only a changed frame is hashed.
        if let before, before.value == frame.value { continue }
        let hash = TraceRecorder.hash(frame.screen.name, frame.value)
        if frames[hash] == nil { frames[hash] = cache.frame(hash, screen: frame.screen, value: frame.value) }
        shown[frame.label] = (frame.value, hash)
        if before?.hash != hash { changed[frame.label] = .some(hash) }
        if !windows.contains(frame.label) { windows.append(frame.label) }
      }
      steps[index].frames = changed
      if let source = captured.source {
        steps[index].text = source.traceText
        steps[index].location = source.location.description
      }
    }
  }
}

/// The frames a trace recorder projected, step by step, before they are hashed: at each step
/// the windows that may have changed (with their screens, which render them) and the labels of
/// windows that closed.
struct TraceCaptures: Sendable, Equatable {
  struct Frame: Sendable {
    var label: String
    var screen: ScreenKind
    var value: FrameValue
  }
  struct Step: Sendable {
    var frames: [Frame] = []
    var closed: [String] = []
    /// The scenario's step, whose text and place the trace step takes when resolved (made
    /// there, off the running thread).
    var source: WorkbenchScenarioModel.Step?
  }
  var steps: [Step] = []
  /// Whether the trace's frames were made from these already.
  var resolved = false

  /// Captures are the means of building a trace, not part of what it says.
  static func == (lhs: TraceCaptures, rhs: TraceCaptures) -> Bool { true }

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

  public init(screen: String, value: FrameValue, text: String) {
    self.screen = screen
    self.value = value
    self.text = text
  }

  private enum CodingKeys: String, CodingKey { case screen, value, text }

  // The value travels (from a worker process) as its JSON text: a coder's keyed container
  // does not keep the order of an object's fields, and a frame's order is part of it.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    screen = try container.decode(String.self, forKey: .screen)
    text = try container.decode(String.self, forKey: .text)
    let json = try container.decode(String.self, forKey: .value)
    do {
      value = try FrameValue.parse(json: Array(json.utf8))
    } catch {
      throw DecodingError.dataCorruptedError(
        forKey: .value, in: container, debugDescription: "not a frame: \(error.message)")
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(screen, forKey: .screen)
    try container.encode(text, forKey: .text)
    try container.encode(value.jsonText, forKey: .value)
  }
}

/// The frames a run has rendered, by hash, shared by the traces of every scenario one runner
/// or one output resolves: a frame seen in an earlier scenario is not rendered again.
final class TraceFrameCache {
  private var frames: [String: TraceFrame] = [:]

  /// The frame stored under `hash`, rendering it the first time.
  func frame(_ hash: String, screen: ScreenKind, value: FrameValue) -> TraceFrame {
    if let frame = frames[hash] { return frame }
    let frame = TraceFrame(screen: screen.name, value: value, text: screen.render(value))
    frames[hash] = frame
    return frame
  }
}

/// Builds a trace as a scenario runs. At each step it projects only the windows whose frame
/// may have changed (a window whose frame stamp stayed is skipped) and keeps the values; they
/// are hashed and compared later (`ScenarioTrace.resolveFrames(with:)`).
@MainActor
struct TraceRecorder {
  private(set) var trace: ScenarioTrace
  private var captures = TraceCaptures()
  /// Each window after the last step: the window itself (a relaunch makes new windows under
  /// the same labels) and its frame stamp then.
  private var shown: [(label: String, window: Window, stamp: Int?)] = []
  private var stepStart = 0.0

  init(scenario: Scenario) {
    trace = ScenarioTrace(
      scenario: scenario.name, file: scenario.location.file, line: scenario.identity.line, tags: scenario.tags,
      status: "passed", duration: 0, failure: nil, windows: [], steps: [], frames: [:])
    // A record for the set-up and one for each step, made without growing the arrays.
    trace.steps.reserveCapacity(scenario.steps.count + 1)
    captures.steps.reserveCapacity(scenario.steps.count + 1)
  }

  mutating func begin() { stepStart = monotonicSeconds() }

  /// Records a step that ended (or failed, with `failure`). A scenario step (`source`) gives
  /// its text and place when the trace is resolved; other steps give them here.
  mutating func end(
    kind: String, text: String = "", location: String = "", source: Step? = nil, origin: [String], host: Host?,
    outcome: String, message: String? = nil, details: [String] = [], output: [String] = [], facts: [String] = []
  ) {
    var captured = TraceCaptures.Step(source: source)
    // Expectations and snapshots change no window: their frames are the last step's.
    if let host, kind != "expect", kind != "snapshot" {
      let windows = host.windows
      // Nearly always the same windows as after the last step, in the same order.
      let same =
        windows.count == shown.count
        && zip(windows, shown).allSatisfy { window, before in window === before.window && window.label == before.label }
      if same {
        for (index, window) in windows.enumerated() {
          let stamp = window.frameStamp
          // The same window at the same stamp shows the same frame: it is not projected again.
          if let stamp, shown[index].stamp == stamp { continue }
          shown[index].stamp = stamp
          captured.frames.append(.init(label: shown[index].label, screen: window.screen, value: window.frame))
        }
      } else {
        var before: [String: (window: Window, stamp: Int?)] = [:]
        for entry in shown { before[entry.label] = (entry.window, entry.stamp) }
        var now: [(label: String, window: Window, stamp: Int?)] = []
        for window in windows {
          let label = window.label
          let stamp = window.frameStamp
          now.append((label, window, stamp))
          // Taken out of `before`: what is left there at the end closed.
          if let earlier = before.removeValue(forKey: label), earlier.window === window, let stamp,
            earlier.stamp == stamp
          {
            continue
          }
          captured.frames.append(.init(label: label, screen: window.screen, value: window.frame))
        }
        captured.closed = before.keys.sorted()
        shown = now
      }
    }
    captures.steps.append(captured)
    let clock = host.map { Int($0.clock.now.wholeMilliseconds) } ?? 0
    trace.steps.append(
      TraceStep(
        kind: kind, text: text, location: location, origin: origin,
        durationMs: ((monotonicSeconds() - stepStart) * 1_000_000).rounded() / 1000, clockMs: clock, frames: [:],
        outcome: outcome,
        message: message, details: details, output: output, facts: facts))
  }

  /// The trace, its frames captured but not yet resolved.
  mutating func finish(result: ScenarioResult) {
    trace.captures = captures
    trace.status = result.skipped != nil ? "skipped" : result.passed ? "passed" : "failed"
    trace.skipped = result.skipped
    trace.duration = result.duration
    trace.failure = result.failure
  }

  /// A 64-bit content hash of what a frame shows, as hex: the screen and the frame's structure
  /// walked directly (no JSON is built), the same in every process.
  nonisolated static func hash(_ screen: String, _ value: FrameValue) -> String {
    var hasher = StableHasher()
    hasher.mix(screen)
    hasher.mix(value)
    let state = hasher.finalized
    let digits = String(state, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}

/// A stable 64-bit hash over a frame's structure: a tag for each kind of value, then its
/// content, eight bytes at a time, each word mixed in with a multiply and a shift. Unlike
/// Swift's `Hasher` it is not seeded per process, so traces of two runs can share frames.
struct StableHasher {
  private(set) var state: UInt64 = 0xcbf2_9ce4_8422_2325

  private mutating func word(_ word: UInt64) {
    state = (state ^ word) &* 0x9E37_79B9_7F4A_7C15
    state ^= state >> 29
  }

  mutating func byte(_ byte: UInt8) { word(UInt64(byte) | 0x100) }

  /// The state, mixed once more so that every input bit reaches every output bit.
  var finalized: UInt64 {
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  mutating func mix(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
      var index = 0
      while index + 8 <= bytes.count {
        word(UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)))
        index += 8
      }
      var last: UInt64 = 0
      var shift: UInt64 = 0
      while index < bytes.count {
        last |= UInt64(bytes[index]) << shift
        shift += 8
        index += 1
      }
      // The tail and the length together: "a" and "a\0" differ.
      word(last)
      word(UInt64(bytes.count))
    }
  }

  mutating func mix(_ integer: Int) { word(UInt64(bitPattern: Int64(integer))) }

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
