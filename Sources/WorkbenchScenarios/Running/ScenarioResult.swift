import WorkbenchScenarioFormat
import WorkbenchScenarioModel

/// Why a scenario failed: which step, where, and what differed.
public struct ScenarioFailure: Codable, Equatable, Sendable {
  /// Where the failing step was written.
  public var location: SourceLocation
  /// The step, briefly (`left: select 2`).
  public var step: String
  /// What went wrong.
  public var message: String
  /// Expected against actual, or a text diff.
  public var details: [String]
  /// The includes and repeats the step came through.
  public var origin: [String]
}

/// The outcome of running one scenario.
public struct ScenarioResult: Codable, Equatable, Sendable {
  /// The file the scenario is in.
  public var file: String
  /// The scenario's name.
  public var name: String
  /// Where the scenario starts: for a row of an `examples` table, where the row is written.
  public var location: SourceLocation
  /// Whether it is a row of an `examples` table (`location` is the row's), `nil` when not.
  public var isRow: Bool? = nil
  /// The scenario's tags (`tags:`), `nil` when it has none.
  public var tags: [String]? = nil
  /// Seconds it took.
  public var duration: Double
  /// Steps run.
  public var stepsRun: Int
  /// Why it failed; `nil` when it passed or was skipped.
  public var failure: ScenarioFailure?
  /// Why it was not run (`skip:`), `nil` when it ran.
  public var skipped: String? = nil
  /// Snapshot files written (with `--update-snapshots`).
  public var snapshotsWritten: [String]
  /// Snapshot files the scenario compared with or wrote.
  public var snapshotsUsed: [String]
  /// Each step run, as `LINE:COLUMN  summary`, when the run is verbose (`run -v`).
  public var stepLog: [String]? = nil
  /// What the scenario covered (`run --coverage`), as `ExploreCoverage` counts by key.
  public var coverage: [String: Int]? = nil
  /// Every step with the frames it left, when the run keeps traces (`run --trace`).
  public var trace: ScenarioTrace? = nil

  /// Whether it did not fail: it passed, or was skipped (`skipped`).
  public var passed: Bool { failure == nil }
}
