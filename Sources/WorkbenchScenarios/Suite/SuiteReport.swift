import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel

/// Everything a run produced: each scenario's result, the files that could not be loaded, and
/// snapshot files no scenario used.
public struct SuiteReport: Codable, Sendable {
  public var results: [ScenarioResult] = []
  public var fileErrors: [ScenarioFileError] = []
  public var orphanedSnapshots: [String] = []
  public var duration: Double = 0
  /// With `-x`: how many files the run did not reach because it stopped at its first failure
  /// (`nil` when it did not stop early).
  public var filesNotRunAfterFailure: Int?

  public init() {}

  public var passed: Int {
    // Counted, not filtered: a filter copies every passing result (a thousand, each with its
    // steps and frames) to count them.
    var count = 0
    for result in results where result.passed && result.skipped == nil { count += 1 }
    return count
  }
  public var failed: Int {
    var count = 0
    for result in results where !result.passed { count += 1 }
    return count
  }
  /// The scenarios marked `skip:`, not run.
  public var skipped: Int {
    var count = 0
    for result in results where result.skipped != nil { count += 1 }
    return count
  }

  /// 0 when everything passed, 1 when a scenario failed, 2 when a file could not be loaded,
  /// 5 when no scenario was run at all (a filter or tag that matched nothing, as pytest does).
  public var exitCode: ExitCode {
    if !fileErrors.isEmpty { return .usage }
    if failed > 0 { return .failure }
    return results.isEmpty ? .nothingRan : .success
  }
}

/// One line a worker process prints: a result, or a file that could not be loaded.
struct WorkerMessage: Codable {
  var result: ScenarioResult?
  var fileError: ScenarioFileError?
  /// The worker is about to run the scenario that starts here.
  var started: SourceLocation?
  /// The worker is about to load this file.
  var loading: String?
  /// The worker loaded the file it named last and will report this many results from it.
  var loaded: Int?
}

/// The worker protocol's line format. Passing results, nearly all of them in a healthy suite,
/// travel as one tab-separated line (`P`, duration, steps, line, column, file, name, snapshots
/// used...), which the parent reads far faster than JSON; everything else travels as JSON.
enum WorkerLine {
  static func encode(_ message: WorkerMessage) -> String? {
    // Progress marks, so the parent knows what a worker that crashes was doing.
    if let started = message.started, !started.file.contains("\t"), !started.file.contains("\n") {
      return "S\t\(started.line)\t\(started.column)\t\(started.file)"
    }
    if let file = message.loading, !file.contains("\t"), !file.contains("\n") { return "L\t\(file)" }
    if let count = message.loaded { return "F\t\(count)" }
    if let result = message.result, result.passed, result.skipped == nil, result.snapshotsWritten.isEmpty,
      result.stepLog == nil,
      result.trace == nil, result.coverage == nil
    {
      let fields = [result.file, result.name] + result.snapshotsUsed
      if !fields.contains(where: { $0.contains("\t") || $0.contains("\n") }) {
        let numbers = [
          String(result.duration), String(result.stepsRun), String(result.location.line),
          String(result.location.column),
        ]
        return (["P"] + numbers + fields).joined(separator: "\t")
      }
    }
    return try? FrameValueEncoder().json(message)
  }

  /// The fields of a line between its tabs, split in its bytes: a tab is one byte and never part
  /// of another character, and splitting by character compares graphemes (a third of the
  /// parent's time reading a thousand results).
  static func tabSeparated(_ line: String, maxSplits: Int = .max) -> [String] {
    line.utf8.split(separator: UInt8(ascii: "\t"), maxSplits: maxSplits, omittingEmptySubsequences: false).map {
      String(Substring($0))
    }
  }

  static func decode(_ line: String) -> WorkerMessage? {
    if line.hasPrefix("S\t") {
      let fields = tabSeparated(line, maxSplits: 3)
      guard fields.count == 4, let number = Int(fields[1]), let column = Int(fields[2]) else { return nil }
      return WorkerMessage(started: SourceLocation(file: fields[3], line: number, column: column))
    }
    if line.hasPrefix("L\t") { return WorkerMessage(loading: String(line.dropFirst(2))) }
    if line.hasPrefix("F\t") { return Int(line.dropFirst(2)).map { WorkerMessage(loaded: $0) } }
    if line.hasPrefix("P\t") {
      let fields = tabSeparated(line)
      guard fields.count >= 7, let duration = Double(fields[1]), let steps = Int(fields[2]),
        let lineNumber = Int(fields[3]), let column = Int(fields[4])
      else { return nil }
      let result = ScenarioResult(
        file: fields[5], name: fields[6], location: SourceLocation(file: fields[5], line: lineNumber, column: column),
        duration: duration, stepsRun: steps, failure: nil, snapshotsWritten: [], snapshotsUsed: Array(fields[7...]))
      return WorkerMessage(result: result, fileError: nil)
    }
    return try? FrameValueDecoder().decode(WorkerMessage.self, fromJSON: Array(line.utf8))
  }
}
