/// Everything a run produced: each scenario's result, the files that could not be loaded, and
/// snapshot files no scenario used.
public struct SuiteReport: Codable, Sendable {
  public var results: [ScenarioResult] = []
  public var fileErrors: [ScenarioFileError] = []
  public var orphanedSnapshots: [String] = []
  public var duration: Double = 0

  public init() {}

  public var passed: Int { results.filter(\.passed).count }
  public var failed: Int { results.count - passed }

  /// 0 when everything passed, 1 when a scenario failed, 2 when a file could not be loaded.
  public var exitCode: Int32 {
    if !fileErrors.isEmpty { return 2 }
    return failed > 0 ? 1 : 0
  }
}

/// One line a worker process prints: a result, or a file that could not be loaded.
struct WorkerMessage: Codable {
  var result: ScenarioResult?
  var fileError: ScenarioFileError?
}
