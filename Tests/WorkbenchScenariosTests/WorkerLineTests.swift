import Testing
import WorkbenchScenarioModel

@testable import WorkbenchScenarios

/// The lines a worker sends its parent, and the order the parent puts results in.
@MainActor struct WorkerLineTests {
  private func passing(_ file: String, _ line: Int, _ name: String, used: [String] = []) -> ScenarioResult {
    ScenarioResult(
      file: file, name: name, location: SourceLocation(file: file, line: line, column: 1), duration: 0.25,
      stepsRun: 3, failure: nil, snapshotsWritten: [], snapshotsUsed: used)
  }

  /// A passing result travels as a tab-separated line and comes back whole, whatever text its
  /// fields hold (accents, other scripts, a combining mark first, an empty field).
  @Test func aPassingResultComesBackWholeFromItsLine() throws {
    for (file, name, used) in [
      ("Scenarios/a.yaml", "plain", [String]()),
      ("Scénarios/ü/名前.yaml", "\u{301}combining first, then ☃", ["__snapshots__/x.txt", ""]),
      ("/tmp/e\u{301}.yaml", "", ["é"]),
    ] {
      let result = passing(file, 7, name, used: used)
      let line = try #require(WorkerLine.encode(WorkerMessage(result: result)))
      #expect(line.hasPrefix("P\t"), "\(line)")
      let back = try #require(WorkerLine.decode(line)?.result)
      #expect(back.file == file && back.name == name && back.snapshotsUsed == used, "\(line)")
      #expect(back.location == result.location && back.stepsRun == 3 && back.duration == 0.25)
    }
    let location = SourceLocation(file: "é\u{301}.yaml", line: 4, column: 2)
    let startedLine = try #require(WorkerLine.encode(WorkerMessage(started: location)))
    let started = try #require(WorkerLine.decode(startedLine)?.started)
    #expect(started == SourceLocation(file: "é\u{301}.yaml", line: 4, column: 2))
  }

  /// Results from workers come in any order; the parent puts them in the order one process
  /// runs them: by the file's place in the run (not its path: paths named come in the order
  /// they were named), then line and name, and keeps equal ones as they came. A file not in the
  /// run goes last, by path.
  @Test func resultsArePutInTheOrderOfTheRunsFiles() {
    let results = [
      passing("b.yaml", 1, "x"), passing("a/b/x.yaml", 9, "y"), passing("a/b.yaml", 2, "z"),
      passing("a/b.yaml", 2, "w"), passing("zz.yaml", 1, "q"), passing("b.yaml", 1, "x", used: ["second"]),
      passing("a/b/x.yaml", 3, "v"), passing("yy.yaml", 1, "p"),
    ]
    let ordered = SuiteRunner.inFileOrder(results, files: ["b.yaml", "a/b/x.yaml", "a/b.yaml"])
    #expect(
      ordered.map { "\($0.file):\($0.location.line) \($0.name)" } == [
        "b.yaml:1 x", "b.yaml:1 x", "a/b/x.yaml:3 v", "a/b/x.yaml:9 y", "a/b.yaml:2 w", "a/b.yaml:2 z",
        "yy.yaml:1 p", "zz.yaml:1 q",
      ])
    #expect(ordered[0].snapshotsUsed.isEmpty && ordered[1].snapshotsUsed == ["second"])
  }

  /// Which files a folder's search keeps out: those in a snapshot folder or a data folder
  /// (`data`, `NAME.data`), wherever it is in the path, and no others; folders are split at the
  /// byte `/` (a combining mark after it does not hide the separator).
  @Test func aFileInASnapshotOrDataFolderIsKeptOut() {
    let out = [
      "a/data/x.yaml", "a/b.data/x.yaml", "a/__snapshots__/x.yaml", "/abs/data/x.yaml", "ü/data/名前.yaml",
      ".data/x.yaml", "data/x.yaml", "a/data/b/c/x.yaml", "a//data//x.yaml", "e\u{301}/data/x.yaml",
      "a/\u{301}/data/x.yaml",
    ]
    let kept = [
      "data.yaml", "a/database/x.yaml", "a/mydata/x.yaml", "a/x.data", "a/data.yaml", "a/datas/x.yaml",
      "a/data\u{301}/x.yaml", "a/b.data\u{301}/x.yaml", "a/.dat/x.yaml", "x.yaml", "", "/x.yaml",
    ]
    for file in out { #expect(SuiteRunner.isInDataFolder(file), "\(file.debugDescription)") }
    for file in kept { #expect(!SuiteRunner.isInDataFolder(file), "\(file.debugDescription)") }
  }
}
