import WorkbenchCore
import WorkbenchModuleAPI

/// Where two runs of a scenario part: the first step after which a window's frame, the facts a
/// replay served, the output or the step itself differ, field by field. `workbench diff` and the
/// HTML report's `--baseline` both ask this one comparison.
public enum TraceComparison {
  /// The first step at which two runs differ.
  public struct Difference: Equatable, Sendable {
    /// The step's index in the traces (0 is the set-up).
    public var step: Int
    /// The step as the second run wrote it (or the first's, where the second has none).
    public var stepText: String
    /// Where it is written (`file:line:column`).
    public var location: String
    /// What differs.
    public var fields: [Field]

    /// One thing that differs after the step.
    public struct Field: Equatable, Sendable {
      /// `window.path` for a frame's field; `step`, `facts`, `output` or `outcome` otherwise.
      public var path: String
      /// In the first run (the baseline).
      public var before: String
      /// In the second.
      public var after: String
    }
  }

  /// What to compare besides the frames.
  public struct Aspects: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The step's text (an edited step).
    public static let steps = Aspects(rawValue: 1)
    /// The recorded facts a replay served at the step.
    public static let facts = Aspects(rawValue: 2)
    /// What the step's commands printed.
    public static let output = Aspects(rawValue: 4)
    /// Whether the step passed (a failing expectation with equal frames).
    public static let outcome = Aspects(rawValue: 8)
    /// Whether both runs have the step (one ended early).
    public static let length = Aspects(rawValue: 16)
    public static let all: Aspects = [.steps, .facts, .output, .outcome, .length]
  }

  /// The first step after which `second` differs from `first`, or `nil` when they agree
  /// everywhere compared. Frames that hold equal values but render differently are equal.
  public static func firstDifference(
    from first: ScenarioTrace, to second: ScenarioTrace, comparing aspects: Aspects = .all
  ) -> Difference? {
    let count =
      aspects.contains(.length)
      ? max(first.steps.count, second.steps.count) : min(first.steps.count, second.steps.count)
    for index in 0..<count {
      guard index < first.steps.count, index < second.steps.count else {
        let longer = index < first.steps.count ? first.steps[index] : second.steps[index]
        let ended = { (trace: ScenarioTrace) in "no step: the run ended (\(trace.status))" }
        return Difference(
          step: index, stepText: longer.text, location: longer.location,
          fields: [
            Field(
              path: "step", before: index < first.steps.count ? longer.text : ended(first),
              after: index < second.steps.count ? longer.text : ended(second))
          ])
      }
      let before = first.steps[index]
      let after = second.steps[index]
      var fields: [Field] = []
      if aspects.contains(.steps), before.text != after.text {
        fields.append(Field(path: "step", before: before.text, after: after.text))
      }
      fields += frameChanges(first, second, at: index)
      if aspects.contains(.facts), before.facts != after.facts {
        fields.append(Field(path: "facts", before: listed(before.facts), after: listed(after.facts)))
      }
      if aspects.contains(.output), before.output != after.output {
        fields.append(Field(path: "output", before: listed(before.output), after: listed(after.output)))
      }
      if aspects.contains(.outcome), before.outcome != after.outcome || before.message != after.message {
        fields.append(
          Field(
            path: "outcome", before: before.outcome + (before.message.map { ": \($0)" } ?? ""),
            after: after.outcome + (after.message.map { ": \($0)" } ?? "")))
      }
      if !fields.isEmpty {
        return Difference(step: index, stepText: after.text, location: after.location, fields: fields)
      }
    }
    return nil
  }

  public typealias Field = Difference.Field

  /// The frame fields that differ after step `index`, window by window.
  static func frameChanges(_ first: ScenarioTrace, _ second: ScenarioTrace, at index: Int) -> [Field] {
    let then = first.frames(at: index)
    let now = second.frames(at: index)
    guard now != then else { return [] }
    var fields: [Field] = []
    for window in Set(now.keys).union(then.keys).sorted() where now[window] != then[window] {
      let before = then[window].flatMap { first.frames[$0]?.value }
      let after = now[window].flatMap { second.frames[$0]?.value }
      var changes: [FrameMatcher.Mismatch] = []
      FrameMatcher.changes(from: before, to: after, path: window, into: &changes)
      if changes.isEmpty, before == nil || after == nil {
        changes.append(
          .init(path: window, expected: before == nil ? "not open" : "open", actual: after == nil ? "not open" : "open")
        )
      }
      fields += changes.map { Field(path: $0.path, before: $0.expected, after: $0.actual) }
    }
    return fields
  }

  private static func listed(_ items: [String]) -> String {
    items.isEmpty ? "(none)" : items.joined(separator: "; ")
  }
}
