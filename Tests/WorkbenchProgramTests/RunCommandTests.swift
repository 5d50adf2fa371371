import Testing
import WorkbenchModuleAPI
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench run` and `workbench check` through the built binary, as CI uses them.
@Suite struct RunCommandTests {
  /// `workbench run ARGUMENTS` started in `folder` (where `.workbench/` is kept), each call with
  /// the same isolated environment.
  static func runner(in folder: String) -> (String) -> ProcessResult {
    let environment = ChildProcess.environment(ChildProcess.isolated([:]))
    return { arguments in
      ChildProcess.run(
        "/bin/sh", ["-c", "cd '\(folder)' && exec '\(ChildProcess.workbenchPath)' run \(arguments)"], input: [],
        environment: environment)
    }
  }

  /// A folder with two files: one passing and one failing scenario, tagged differently.
  private func suiteFolder() -> String {
    let folder = makeTemporaryFolder()
    writeTextFile(
      """
      scenario: Passes
      tags: [fast]
      windows:
        main: catalog library
      steps:
        - main: select 2
        - expect:
            main: {selected: 2}
      ---
      scenario: Also passes
      tags: [slow]
      windows:
        main: catalog library
      steps:
        - main: query dune
        - expect:
            main: {rows: [27]}
      """, to: folder + "/a.yaml")
    writeTextFile(
      """
      scenario: Fails
      tags: [fast]
      windows:
        main: catalog library
      steps:
        - main: select 2
        - expect:
            main: {selected: 3}
      """, to: folder + "/b.yaml")
    return folder
  }

  @Test func aFailingScenarioExitsWithOneAndReportsItsPlace() {
    let folder = suiteFolder()
    let result = ChildProcess.runWorkbench(["run", "--jobs", "1", folder])
    #expect(result.status == 1)
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.last == "2 passed, 1 failed")
    #expect(result.stdout.contains("✘ Fails  \(folder)/b.yaml:1"))
    #expect(result.stdout.contains("   \(folder)/b.yaml:7:5: expect: main"))
    #expect(result.stdout.contains("         expected: 3"))
    #expect(!result.stdout.contains("\u{1B}["))
  }

  /// Traces are written as scenarios finish, on the run's output queue, and worker processes
  /// send theirs to the parent: both ways must give the same files, frames with their fields
  /// in order. A second run into the folder leaves no trace of a scenario it did not run.
  @Test func tracesFromWorkersAreTheTracesOfOneProcess() throws {
    let folder = suiteFolder()
    let serial = makeTemporaryFolder() + "/one"
    let parallel = makeTemporaryFolder() + "/two"
    #expect(ChildProcess.runWorkbench(["run", "--jobs", "1", folder, "--trace", serial]).status == 1)
    #expect(ChildProcess.runWorkbench(["run", "--jobs", "2", folder, "--trace", parallel]).status == 1)
    let names = ["frames.jsonl", "\(folder.dropFirst())/a.yaml.1.trace.json".replacing("/", with: "_")]
    for name in names {
      let trace = try #require(traceWithoutTimings(serial + "/" + name), "\(name)")
      #expect(trace == traceWithoutTimings(parallel + "/" + name), "\(name)")
    }
    let frames = try #require(readTextFile(serial + "/frames.jsonl"))
    #expect(frames.contains(#""value":{"query":"#), "a frame's fields keep their order")
    // Run only the slow one again: the other traces go.
    #expect(ChildProcess.runWorkbench(["run", "--tag", "slow", folder, "--trace", parallel, "-j", "2"]).status == 0)
    #expect(readTextFile(parallel + "/" + names[1]) == nil)
    #expect(readTextFile(parallel + "/frames.jsonl") != nil)
  }

  @Test func allPassingExitsWithZero() {
    let result = ChildProcess.runWorkbench(["run", "--tag", "slow", suiteFolder()])
    #expect(result.status == 0)
    #expect(result.stdout.hasSuffix("1 passed, 0 failed\n"))
  }

  @Test func fileErrorsAndUsageErrorsExitWithTwo() {
    let folder = suiteFolder()
    writeTextFile("scenario: Broken\nsteps:\n  - nowhere: select 1\n", to: folder + "/c.yaml")
    let result = ChildProcess.runWorkbench(["run", "-j", "1", folder])
    #expect(result.status == 2)
    #expect(result.stderr.contains("\(folder)/c.yaml:3:5: unknown window or step kind 'nowhere'"))
    #expect(ChildProcess.runWorkbench(["run", "--jobz", "2", folder]).status == 2)
    #expect(ChildProcess.runWorkbench(["run", "/no/such/folder"]).status == 2)
  }

  @Test func checkValidatesWithoutRunning() {
    let folder = suiteFolder()
    let good = ChildProcess.runWorkbench(["check", folder])
    #expect(good.status == 0)
    #expect(good.stdout == "2 files ok (3 scenarios), 0 with errors\n")
    writeTextFile("scenario: x\nsteps:\n\t- do: help\n", to: folder + "/tab.yaml")
    let bad = ChildProcess.runWorkbench(["check", folder])
    #expect(bad.status == 2)
    #expect(bad.stderr == "error: \(folder)/tab.yaml:3:1: tabs cannot indent YAML: use spaces\n")
  }

  @Test func filtersSelectByNameAndTag() {
    let folder = suiteFolder()
    let listed = ChildProcess.runWorkbench(["run", "--list", folder])
    #expect(listed.status == 0)
    #expect(listed.stdout.split(separator: "\n").count == 3)
    #expect(listed.stdout.contains("\(folder)/a.yaml:10  Also passes  [slow]"))
    let filtered = ChildProcess.runWorkbench(["run", "--list", "--filter", "^Al", folder])
    #expect(filtered.stdout == "\(folder)/a.yaml:10  Also passes  [slow]\n")
    let excluded = ChildProcess.runWorkbench(["run", "--list", "--exclude-tag", "slow", "--tag", "fast", folder])
    #expect(excluded.stdout.split(separator: "\n").count == 2)
    let nothing = ChildProcess.runWorkbench(["run", "--list", "--tag", "no-such-tag", folder])
    #expect(nothing.status == 0)
    #expect(nothing.stdout == "")
    let none = ChildProcess.runWorkbench(["run", "--tag", "no-such-tag", folder])
    #expect(none.status == 5)
    #expect(none.stdout.contains("0 passed, 0 failed\nno scenario was run"))
  }

  @Test func reportsAreWrittenAsJUnitAndJSON() throws {
    let folder = suiteFolder()
    let result = ChildProcess.runWorkbench([
      "run", "-j", "1", "--junit", folder + "/report.xml", "--json", folder + "/report.json", folder,
    ])
    #expect(result.status == 1)
    let junit = try #require(readTextFile(folder + "/report.xml"))
    #expect(junit.contains(#"<testsuites name="workbench scenarios" tests="3" failures="1" errors="0""#))
    #expect(junit.contains(#"<testcase classname="\#(folder)/b.yaml" name="Fails""#))
    #expect(junit.contains(#"<failure message="the frames do not match the expectation" type="failure">"#))
    let json = try #require(readTextFile(folder + "/report.json"))
    #expect(json.contains(#""passed" : 2"#))
    #expect(json.contains(#""failed" : 1"#))
  }

  @Test func workersAndShardsRunTheSameScenarios() throws {
    let folder = suiteFolder()
    for index in 1...4 {
      writeTextFile(
        "scenario: Extra \(index)\nwindows:\n  main: catalog library\nsteps:\n  - main: select \(index)\n",
        to: folder + "/extra\(index).yaml")
    }
    func names(_ arguments: [String]) -> [String] {
      let result = ChildProcess.runWorkbench(["run"] + arguments + [folder])
      return result.stdout.split(separator: "\n").filter { $0.hasPrefix("✔") || $0.hasPrefix("✘") }.map(String.init)
        .sorted()
    }
    let serial = names(["--jobs", "1"])
    #expect(serial.count == 7)
    let parallel = names(["--jobs", "3"])
    #expect(parallel.map { $0.split(separator: "(").first } == serial.map { $0.split(separator: "(").first })
    let shards = names(["--shard", "1/2", "-j", "1"]) + names(["--shard", "2/2", "-j", "1"])
    #expect(shards.count == 7)
    let parallelRun = ChildProcess.runWorkbench(["run", "--jobs", "3", folder])
    #expect(parallelRun.status == 1)
    #expect(parallelRun.stdout.hasSuffix("6 passed, 1 failed\n"))
  }

  @Test func orphanedSnapshotsAreReported() {
    let folder = suiteFolder()
    let snapshots = folder + "/__snapshots__/a"
    _ = ChildProcess.run("/bin/mkdir", ["-p", snapshots], input: [], environment: [])
    writeTextFile("old text\n", to: snapshots + "/gone-1.txt")
    let result = ChildProcess.runWorkbench(["run", "-j", "1", folder])
    #expect(
      result.stdout.contains("warning: orphaned snapshot \(snapshots)/gone-1.txt: no scenario uses it; delete it"))
  }

  @Test func repeatRunsEachScenarioSeveralTimes() {
    let result = ChildProcess.runWorkbench(["run", "--repeat", "3", "--tag", "slow", suiteFolder()])
    #expect(result.status == 0)
    #expect(result.stdout.contains("Also passes (run 3 of 3)"))
    #expect(result.stdout.hasSuffix("3 passed, 0 failed\n"))
  }

  @Test func failFastStopsAtTheFirstFailure() {
    let folder = suiteFolder()
    writeTextFile(
      "scenario: After\nwindows:\n  main: catalog library\nsteps:\n  - main: select 1\n", to: folder + "/c.yaml")
    let result = ChildProcess.runWorkbench(["run", "--fail-fast", "-j", "1", folder])
    #expect(result.status == 1)
    #expect(!result.stdout.contains("After"))
  }

  /// Workers start while the parent still looks for the files; whatever the looking finds (a
  /// path that is not there, one file, none, fewer files than jobs), the run says the same as
  /// with one job. The parent looks late here, so the workers wait on an empty queue first.
  @Test func workersStartedBeforeTheFilesAreFoundEndAsTheRunDoes() {
    let folder = suiteFolder()
    let one = makeTemporaryFolder()
    writeTextFile(
      "scenario: Alone\nwindows:\n  main: catalog library\nsteps:\n  - main: select 1\n", to: one + "/a.yaml")
    let empty = makeTemporaryFolder()
    let late: [String: String?] = ["WORKBENCH_TEST_FIND_FILES_LATE": "100"]
    for jobs in ["1", "2", "5"] {
      let missing = ChildProcess.runWorkbench(["run", "-j", jobs, folder, folder + "/nowhere"], environment: late)
      #expect(missing.status == 2, "-j \(jobs): \(missing.stdout)\(missing.stderr)")
      #expect(missing.stderr.contains("no such file or folder: \(folder)/nowhere"), "\(missing.stderr)")
      #expect(!missing.stdout.contains("✔"), "-j \(jobs): nothing runs: \(missing.stdout)")
      let alone = ChildProcess.runWorkbench(["run", "-j", jobs, one], environment: late)
      #expect(alone.status == 0 && alone.stdout.hasSuffix("1 passed, 0 failed\n"), "-j \(jobs): \(alone.stdout)")
      let nothing = ChildProcess.runWorkbench(["run", "-j", jobs, empty], environment: late)
      #expect(nothing.status == 5, "-j \(jobs): \(nothing.stdout)\(nothing.stderr)")
      let fewer = ChildProcess.runWorkbench(["run", "-j", jobs, folder], environment: late)
      #expect(fewer.status == 1 && fewer.stdout.hasSuffix("2 passed, 1 failed\n"), "-j \(jobs): \(fewer.stdout)")
      // A shard's selection is what its workers are told: the two shards run each scenario once.
      let shards = ["1/2", "2/2"].map { shard in
        ChildProcess.runWorkbench(["run", "-j", jobs, "--shard", shard, folder], environment: late).stdout
          .split(separator: "\n").filter { $0.hasPrefix("✔") || $0.hasPrefix("✘") }
          .map { String($0.split(separator: "(")[0]) }
      }
      #expect(
        (shards[0] + shards[1]).sorted()
          == fewer.stdout.split(separator: "\n").filter {
            $0.hasPrefix("✔") || $0.hasPrefix("✘")
          }.map { String($0.split(separator: "(")[0]) }.sorted(), "-j \(jobs): \(shards)")
      #expect(!shards[0].isEmpty && !shards[1].isEmpty, "-j \(jobs): \(shards)")
    }
  }

  /// A filter or tag that selects nothing is no success: exit 5, saying what matched nothing.
  @Test func selectingNothingExitsFive() {
    let folder = suiteFolder()
    for jobs in ["1", "2"] {
      let result = ChildProcess.runWorkbench(["run", "-j", jobs, "--tag", "nonexistent", folder])
      #expect(result.status == 5, "\(result.stdout)")
      #expect(result.stdout.contains("no scenario was run: nothing in \(folder) matched --tag nonexistent"))
    }
    #expect(ChildProcess.runWorkbench(["run", "--tag", "slow", folder]).status == 0)
  }

  /// `workbench run` alone runs the project's Scenarios/ folder; data folders beside scenarios
  /// hold documents, not scenarios.
  @Test func runWithoutAPathRunsScenariosAndSkipsDataFolders() {
    let project = makeTemporaryFolder()
    for folder in ["/Scenarios", "/Scenarios/data", "/Scenarios/session.data"] { mkdir(project + folder, 0o755) }
    writeTextFile("books:\n  - {id: 1, title: Kept apart}\n", to: project + "/Scenarios/data/library.yaml")
    writeTextFile("books:\n  - {id: 1, title: Recorded}\n", to: project + "/Scenarios/session.data/library.yaml")
    writeTextFile(
      "scenario: Uses a data file\ndocuments:\n  small: {kind: catalog, file: data/library.yaml}\n"
        + "windows:\n  main: catalog small\nsteps:\n  - main: select 1\n"
        + "  - expect:\n      main: {detail: {title: Kept apart}}\n",
      to: project + "/Scenarios/uses-data.yaml")
    let environment = ChildProcess.environment(ChildProcess.isolated([:]))
    let result = ChildProcess.run(
      "/bin/sh", ["-c", "cd '\(project)' && exec '\(ChildProcess.workbenchPath)' run"], input: [],
      environment: environment)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.hasSuffix("1 passed, 0 failed\n"), "\(result.stdout)")
    let elsewhere = ChildProcess.run(
      "/bin/sh", ["-c", "cd '\(project)/Scenarios/data' && exec '\(ChildProcess.workbenchPath)' run"], input: [],
      environment: environment)
    #expect(elsewhere.status == 2)
    #expect(elsewhere.stderr.contains("there is no Scenarios/ folder here"))
  }

  /// An error in a document's data file says which scenario loaded it.
  @Test func anErrorInADataFileNamesTheScenarioThatLoadedIt() {
    let folder = makeTemporaryFolder()
    mkdir(folder + "/data", 0o755)
    writeTextFile("books:\n  - {id: 1, title: A}\n  - {id: 1, title: B}\n", to: folder + "/data/lib.yaml")
    writeTextFile(
      "scenario: Loads data\ndocuments:\n  lib:\n    kind: catalog\n    file: data/lib.yaml\nsteps:\n  - do: documents\n",
      to: folder + "/uses.yaml")
    let result = ChildProcess.runWorkbench(["run", folder + "/uses.yaml"])
    #expect(result.status == 2)
    #expect(
      result.stderr.contains(
        "\(folder)/data/lib.yaml:3:5: document 'lib' is not a valid catalog document: duplicate book id 1"),
      "\(result.stderr)")
    #expect(result.stderr.contains("(the data of document 'lib', loaded at \(folder)/uses.yaml:5:11)"))
  }

  /// With several workers, results print in file order, not in the order workers finish.
  /// Workers finish in any order; the reports list the scenarios as one process runs them: the
  /// paths in the order they were named (the file named first, though its path sorts last),
  /// a folder's files as its search finds them.
  @Test func reportsListScenariosInTheOrderOneProcessRunsThem() throws {
    let folder = makeTemporaryFolder()
    mkdir(folder + "/a", 0o755)
    mkdir(folder + "/a/b", 0o755)
    for (file, name) in [("a/b/x.yaml", "In the folder b"), ("a/b.yaml", "Beside it"), ("c.yaml", "Named first")] {
      writeTextFile(
        "scenario: \(name)\nwindows:\n  main: catalog library\nsteps:\n  - main: select 1\n", to: folder + "/" + file)
    }
    func order(jobs: String) throws -> [String] {
      let report = folder + "/report-\(jobs).xml"
      let result = ChildProcess.runWorkbench(["run", "-j", jobs, "--junit", report, folder + "/c.yaml", folder + "/a"])
      #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
      let junit = try #require(readTextFile(report))
      return junit.split(separator: "\n").compactMap { line in
        line.contains("<testcase ") ? String(line.split(separator: " name=\"")[1].prefix { $0 != "\"" }) : nil
      }
    }
    let expected = ["Named first", "Beside it", "In the folder b"]
    #expect(try order(jobs: "1") == expected)
    #expect(try order(jobs: "2") == expected)
  }

  @Test func resultsPrintInFileOrderWithWorkers() {
    let folder = makeTemporaryFolder()
    writeTextFile(
      "scenario: Slow first file\nwindows:\n  main: catalog library\nsteps:\n  - repeat: 1000\n    steps:\n"
        + "      - main: query the\n      - main: query\n",
      to: folder + "/a.yaml")
    writeTextFile(
      "scenario: Fast second file\nwindows:\n  main: catalog library\nsteps:\n  - main: select 2\n",
      to: folder + "/b.yaml")
    let result = ChildProcess.runWorkbench(["run", "-j", "2", folder])
    #expect(result.status == 0, "\(result.stdout)")
    let lines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("✔") }
    #expect(lines.count == 2)
    #expect(lines.first?.contains("Slow first file") == true, "\(result.stdout)")
  }

  /// `--last-failed` runs what failed last time in this folder (everything when nothing did);
  /// `-q` prints only failures and the summary.
  @Test func lastFailedAndQuiet() {
    let folder = suiteFolder()
    let run = Self.runner(in: folder)
    let first = run("-j 1 -q .")
    #expect(first.status == 1)
    #expect(!first.stdout.contains("✔"), "\(first.stdout)")  // quiet: no passing lines
    #expect(first.stdout.contains("✘ Fails"))
    #expect(readTextFile(folder + "/.workbench/last-failed") == "./b.yaml:1\tFails\n")
    let again = run("--last-failed -j 2 .")
    #expect(again.status == 1)
    #expect(again.stdout.hasSuffix("0 passed, 1 failed\n"), "\(again.stdout)")
    // Fixed: the last failures pass, and then nothing is recorded as failed.
    writeTextFile(
      "scenario: Fails\nwindows:\n  main: catalog library\nsteps:\n  - main: select 2\n", to: folder + "/b.yaml")
    let fixed = run("--last-failed .")
    #expect(fixed.status == 0)
    #expect(fixed.stdout.hasSuffix("1 passed, 0 failed\n"), "\(fixed.stdout)")
    let everything = run("--last-failed .")
    #expect(everything.stdout.hasPrefix("no failures recorded by the last run here: running everything\n"))
    #expect(everything.stdout.hasSuffix("3 passed, 0 failed\n"), "\(everything.stdout)")
  }

  /// Failures are kept by what names a scenario (its file and name; a row of a table by its
  /// values), not by the line it started at: lines added above it do not lose it, nor run
  /// another scenario in its place. A row is its own entry everywhere a line is printed or
  /// taken: the console, `FILE:LINE` (its own line runs it alone), `--shell` at its line, the
  /// JUnit file and the traces (one per row and per run of `--repeat`).
  @Test func rowsAndFailuresAreKeptByWhatNamesThem() throws {
    let folder = makeTemporaryFolder()
    let table = """
      scenario: Searching "${query}" finds ${count} books
      windows:
        main: catalog library
      steps:
        - main: query ${query}
        - expect:
            main:
              matches: ${count}
      examples:
        - {query: dune, count: 99}
        - {query: GÖDEL, count: 1}
        - {query: zzz, count: 0}

      """
    writeTextFile(table, to: folder + "/t.yaml")
    writeTextFile(
      "scenario: Other\nwindows:\n  main: catalog library\nsteps:\n  - main: select 2\n", to: folder + "/u.yaml")
    let run = Self.runner(in: folder)
    let first = run("-j 2 . --junit j.xml --trace tr --repeat 2")
    #expect(first.status == 1)
    #expect(first.stdout.contains("✘ Searching \"dune\" finds 99 books (run 1 of 2)  ./t.yaml:10 "), "\(first.stdout)")
    #expect(first.stdout.contains("✔ Searching \"zzz\" finds 0 books (run 2 of 2)  ./t.yaml:12 "), "\(first.stdout)")
    #expect(first.stdout.contains("open the session there: workbench run ./t.yaml:10 --shell\n"), "\(first.stdout)")
    let junit = try #require(readTextFile(folder + "/j.xml"))
    #expect(
      junit.matches(of: /line="(\d+)"/).map { String($0.1) } == ["10", "10", "11", "11", "12", "12", "1", "1"],
      "\(junit)"
    )
    for row in 10...12 {
      for round in 1...2 {
        #expect(readTextFile(folder + "/tr/t.yaml.\(row).run\(round).trace.json") != nil, "row \(row), run \(round)")
      }
    }
    #expect(readTextFile(folder + "/.workbench/last-failed") == "./t.yaml:10\tSearching \"dune\" finds 99 books\n")
    // A row by its own line, alone; the scenario's first line runs every row.
    #expect(run("./t.yaml:11").stdout.hasSuffix("1 passed, 0 failed\n"))
    #expect(run("./t.yaml:5").stdout.hasSuffix("2 passed, 1 failed\n"))
    // --shell at a row's line opens that row where its run stopped (its failing step).
    let shell = run("./t.yaml:10 --shell")
    #expect(
      shell.stdout.contains("opened \"Searching \"dune\" finds 99 books\" (./t.yaml:10:5) after step 2 of 2"),
      "\(shell.stdout)\(shell.stderr)")
    // Two comment lines above: the record still names the row, which runs alone.
    writeTextFile("# one\n# two\n" + table, to: folder + "/t.yaml")
    let again = run("--last-failed .")
    #expect(again.stdout.contains("✘ Searching \"dune\" finds 99 books  ./t.yaml:12 "), "\(again.stdout)")
    #expect(again.stdout.hasSuffix("0 passed, 1 failed\n"), "\(again.stdout)")
    // A folder where nothing failed says so, not that it holds no scenario.
    let elsewhere = run("--last-failed ./u.yaml")
    #expect(elsewhere.status == 5)
    #expect(
      elsewhere.stdout.contains("no scenario in ./u.yaml failed in the last run (--last-failed)"), "\(elsewhere.stdout)"
    )
  }

  /// Messages that said what was not so: a parameter reaches `repeat` (it said "a count from 1
  /// to 1000" of a count of 4), a line no scenario holds is named as such (it said the file
  /// "holds no scenario"), and `-k`'s help says it is case-sensitive and how to ignore case.
  @Test func messagesSayWhatIsSo() throws {
    let folder = makeTemporaryFolder()
    writeTextFile(
      "# a comment\n\nscenario: Repeat ${count}\nwindows:\n  main: catalog library\nsteps:\n  - repeat: ${count}\n"
        + "    steps:\n      - main: query dune\nexamples:\n  - {count: 4}\n", to: folder + "/r.yaml")
    let repeated = ChildProcess.runWorkbench(["run", "-v", folder + "/r.yaml"])
    #expect(repeated.status == 0, "\(repeated.stdout)\(repeated.stderr)")
    #expect(repeated.stdout.matches(of: /main: query dune/).count == 4, "\(repeated.stdout)")
    writeTextFile(
      "scenario: Bad\nwindows:\n  main: catalog library\nsteps:\n  - repeat: ${count}\n    steps:\n"
        + "      - main: query dune\nexamples:\n  - {count: many}\n", to: folder + "/bad.yaml")
    let bad = ChildProcess.runWorkbench(["run", folder + "/bad.yaml"])
    #expect(bad.stderr.contains("repeat is a count from 1 to 1000, not 'many'"), "\(bad.stderr)")
    let comment = ChildProcess.runWorkbench(["run", folder + "/r.yaml:1"])
    #expect(comment.status == 5)
    #expect(comment.stdout.contains("r.yaml:1 (a line no scenario holds)"), "\(comment.stdout)")
    let help = ChildProcess.runWorkbench(["run", "--help"])
    #expect(help.stdout.contains("case-sensitive: `(?i)` ignores case"), "\(help.stdout)")
  }

  /// The JSON report's schema, and the suite folder with a table of two rows and a file that
  /// does not load beside it.
  private func reportSchemaAndSuite() throws -> (SchemaValidator, String) {
    let schemaText = try #require(readTextFile(repositoryRoot() + "/docs/run-report.schema.json"))
    let validator = SchemaValidator(root: try FrameValue.parse(json: Array(schemaText.utf8)))
    let folder = suiteFolder()
    writeTextFile(
      "scenario: Row ${q}\nwindows:\n  main: catalog library\nsteps:\n  - main: query ${q}\nexamples:\n"
        + "  - {q: dune}\n  - {q: the}\n", to: folder + "/rows.yaml")
    writeTextFile("scenario: Tab\nsteps:\n\t- x\n", to: folder + "/tab.yaml")
    writeTextFile(
      "scenario: Dimmer\nskip: the bridge has no dimmer yet\nwindows:\n  main: catalog library\nsteps:\n  - main: query x\n",
      to: folder + "/skip.yaml")
    return (validator, folder)
  }

  /// `run --json` keeps to docs/run-report.schema.json (it had no schema of its own, and failed
  /// output.schema.json, which is the shell's): a passing and a failing scenario, rows of a
  /// table, a file that does not load, `-v`, `--coverage`, `--repeat` and `-x`, by one job and
  /// by workers.
  @Test func theJSONReportKeepsToItsSchema() throws {
    let (validator, folder) = try reportSchemaAndSuite()
    let run = Self.runner(in: folder)
    var seen: Set<String> = []
    for arguments in ["-j 1", "-j 2 -v", "-j 1 --coverage c.json --force --repeat 2", "-j 2 -x"] {
      let result = run(". --json r.json " + arguments)
      #expect([1, 2].contains(result.status), "\(arguments): \(result.stdout)")
      let report = try FrameValue.parse(json: Array(try #require(readTextFile(folder + "/r.json")).utf8))
      let problems = validator.validate(report)
      #expect(problems.isEmpty, "\(arguments): \(problems)")
      if case .object(let object) = report { seen.formUnion(object.members.map(\.key)) }
      for scenario in report["scenarios"]?.elements ?? [] {
        if case .object(let object) = scenario { seen.formUnion(object.members.map(\.key)) }
      }
    }
    // What the schema describes was met: rows, failures, logs, a stop at the first failure.
    #expect(
      seen.isSuperset(of: ["isRow", "failure", "stepLog", "filesNotRunAfterFailure", "tags", "skipped"]), "\(seen)")
    // JUnit carries the tags too, as properties of each test case (pytest writes its markers so),
    // and a skipped scenario as skipped, with its reason.
    _ = run(". --junit j.xml")
    let junit = try #require(readTextFile(folder + "/j.xml"))
    #expect(junit.contains(#"<property name="tag" value="#), "\(junit)")
    #expect(junit.contains(#"<skipped message="the bridge has no dimmer yet"/>"#), "\(junit)")
    #expect(junit.contains(#"skipped="1""#), "\(junit)")
  }

  /// `report` merges the traces of a matrix's shards into JUnit and JSON as one run would have
  /// written them, as Playwright's merge-reports does (it wrote HTML only): every scenario of
  /// every shard, each row its own, and a file that did not load as its mistakes.
  @Test func reportMergesShardsIntoJUnitAndJSON() throws {
    let (validator, folder) = try reportSchemaAndSuite()
    let run = Self.runner(in: folder)
    let whole = run(". --json whole.json")
    for shard in 1...2 { _ = run(". --shard \(shard)/2 --trace t\(shard)") }
    let merged = ChildProcess.run(
      "/bin/sh",
      ["-c", "cd '\(folder)' && exec '\(ChildProcess.workbenchPath)' report t1 t2 --junit j.xml --json r.json"],
      input: [], environment: ChildProcess.environment(ChildProcess.isolated([:])))
    #expect(merged.status == 1, "\(merged.stdout)\(merged.stderr)")
    #expect(merged.stdout.contains("wrote j.xml, r.json: "), "\(merged.stdout)")
    let report = try FrameValue.parse(json: Array(try #require(readTextFile(folder + "/r.json")).utf8))
    #expect(validator.validate(report).isEmpty, "\(validator.validate(report))")
    let full = try FrameValue.parse(json: Array(try #require(readTextFile(folder + "/whole.json")).utf8))
    for key in ["passed", "failed", "skipped", "errors"] {
      #expect(report[key] == full[key], "\(key): \(report.jsonText)")
    }
    #expect(report["skipped"] == .integer(1), "\(report.jsonText)")
    let junit = try #require(readTextFile(folder + "/j.xml"))
    #expect(junit.contains(#"<skipped message="the bridge has no dimmer yet"/>"#), "\(junit)")
    #expect(
      junit.contains(#"name="Row dune" file="./rows.yaml" line="7""#) && junit.contains(#"name="Row the""#), "\(junit)")
    #expect(junit.contains("tabs cannot indent YAML"), "\(junit)")
    #expect(whole.status == 2)
  }

  /// `skip:` marks a scenario not to run, as pytest's skip marker: it is listed with its reason,
  /// counted apart from passes and failures, and a run of only skipped scenarios succeeds. A
  /// reason that is not text is refused at its place. (There was no way to skip one: JUnit
  /// never had a skipped entry.)
  @Test func aSkippedScenarioIsListedWithItsReasonAndCountedApart() throws {
    let folder = makeTemporaryFolder()
    writeTextFile(
      "scenario: Later\nskip: waits for the dimmer\nwindows:\n  main: catalog library\nsteps:\n  - main: select 99\n"
        + "---\nscenario: Now\nwindows:\n  main: catalog library\nsteps:\n  - main: select 2\n", to: folder + "/s.yaml")
    let run = Self.runner(in: folder)
    let both = run("s.yaml")
    #expect(both.status == 0, "\(both.stdout)")
    #expect(both.stdout.contains("↷ Later  s.yaml:1 (skipped: waits for the dimmer)"), "\(both.stdout)")
    #expect(both.stdout.hasSuffix("1 passed, 0 failed, 1 skipped\n"), "\(both.stdout)")
    let only = run("s.yaml:1")
    #expect(only.status == 0 && only.stdout.hasSuffix("0 passed, 0 failed, 1 skipped\n"), "\(only.stdout)")
    writeTextFile("scenario: Bad\nskip: [x]\nsteps:\n  - do: windows\n", to: folder + "/bad.yaml")
    let bad = run("bad.yaml")
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("error: bad.yaml:2:7: skip is the reason the scenario is not run"), "\(bad.stderr)")
    // The trace says so, and the report built from it too.
    #expect(run("s.yaml --trace t").status == 0)
    let trace = try #require(readTextFile(folder + "/t/s.yaml.1.trace.json"))
    #expect(trace.contains(#""status":"skipped""#) && trace.contains(#""skipped":"waits for the dimmer""#), "\(trace)")
  }

  /// `--baseline` pairs a failure with its green run by file and name, then by name alone, as
  /// `workbench diff` does: a baseline traced from another path to the same files (`./s`
  /// against `s`) pairs (none of 2 failures did), and the report names the first divergence.
  @Test func theBaselinePairsFailuresByName() throws {
    let folder = makeTemporaryFolder()
    mkdir(folder + "/s", 0o755)
    for name in ["a", "b"] {
      writeTextFile(
        "scenario: Query \(name)\nwindows:\n  main: catalog library\nsteps:\n  - main: query dune\n  - expect:\n"
          + "      main: {matches: 1}\n", to: folder + "/s/\(name).yaml")
    }
    let run = Self.runner(in: folder)
    #expect(run("./s --trace green").status == 0)
    for name in ["a", "b"] {
      writeTextFile(
        "scenario: Query \(name)\nwindows:\n  main: catalog library\nsteps:\n  - main: query zzz\n  - expect:\n"
          + "      main: {matches: 1}\n", to: folder + "/s/\(name).yaml")
    }
    #expect(run("s --html r.html --baseline green").status == 1)
    let page = try #require(readTextFile(folder + "/r.html"))
    #expect(page.matches(of: /"divergence":/).count == 2, "\(page.suffix(4000))")
  }

  /// A file that fails to load is a failure everywhere a run reports: the console lists every
  /// mistake in it, the JSON report has each, the HTML report shows the file as failed with
  /// them, and `--last-failed` (with no path: the last run's) runs the whole file again.
  @Test func aFileThatDoesNotLoadIsAFailureInEveryReport() throws {
    let folder = suiteFolder()
    writeTextFile(
      "scenario: Broken\nwindows:\n  main: catalog library\nsteps:\n  - main: selcet 4\n"
        + "  - expect:\n      main: {selcted: 4}\n", to: folder + "/c.yaml")
    let run = Self.runner(in: folder)
    let first = run("-j 1 . --json r.json --html r.html")
    #expect(first.status == 2)
    #expect(first.stderr.contains("./c.yaml:5:11: unknown command 'selcet'"), "\(first.stderr)")
    #expect(first.stderr.contains("./c.yaml:7:14: main shows catalog, whose frame has no field 'selcted'"))
    // The summary on stdout names the file too: a log that interleaves the streams says where.
    #expect(
      first.stdout.contains("1 file could not be loaded (its errors are on stderr): ./c.yaml:5:11\n"), "\(first.stdout)"
    )
    let json = try #require(readTextFile(folder + "/r.json"))
    #expect(json.contains("\"errors\" : 2"), "\(json)")
    let html = try #require(readTextFile(folder + "/r.html"))
    #expect(html.contains("./c.yaml could not be loaded"))
    #expect(html.contains("unknown command 'selcet'"))
    #expect(readTextFile(folder + "/.workbench/last-failed") == "./b.yaml:1\tFails\n./c.yaml\n")
    // No path: the last run's. The broken file is loaded again (still broken), b runs, a does not.
    let again = run("--last-failed -j 1")
    #expect(again.status == 2, "\(again.stdout)\(again.stderr)")
    #expect(again.stderr.contains("./c.yaml:5:11"))
    #expect(again.stdout.hasSuffix("0 passed, 1 failed\n"), "\(again.stdout)")
    // Fixed, the file's scenarios run with the last failures: c passes, b still fails, a waits.
    writeTextFile(
      "scenario: Broken\nwindows:\n  main: catalog library\nsteps:\n  - main: select 4\n", to: folder + "/c.yaml")
    let fixed = run("--last-failed -j 1")
    #expect(fixed.stdout.contains("✔ Broken"), "\(fixed.stdout)")
    #expect(fixed.stdout.hasSuffix("1 passed, 1 failed\n"), "\(fixed.stdout)")
  }

  /// `FILE:LINE` runs the scenario holding that line, as an editor or a failure message names
  /// it; `-k` filters by name and `-x` stops at the first failure, as pytest spells them.
  @Test func aLineSelectsItsScenarioAndPytestsSpellingsWork() {
    let folder = suiteFolder()
    let atLine = ChildProcess.runWorkbench(["run", "-j", "1", folder + "/a.yaml:12"])
    #expect(atLine.stdout.contains("✔ Also passes"), "\(atLine.stdout)")
    #expect(!atLine.stdout.contains("✔ Passes "), "\(atLine.stdout)")
    #expect(atLine.stdout.hasSuffix("1 passed, 0 failed\n"))
    let withWorkers = ChildProcess.runWorkbench(["run", "-j", "2", folder + "/a.yaml:3", folder + "/b.yaml"])
    #expect(withWorkers.stdout.hasSuffix("1 passed, 1 failed\n"), "\(withWorkers.stdout)")
    let missing = ChildProcess.runWorkbench(["run", folder + "/nothing.yaml:3"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("nothing.yaml:3: there is no file"), "\(missing.stderr)")
    let filtered = ChildProcess.runWorkbench(["run", "-j", "1", "-k", "^Also", folder])
    #expect(filtered.stdout.hasSuffix("1 passed, 0 failed\n"), "\(filtered.stdout)")
    let stopped = ChildProcess.runWorkbench(["run", "-j", "1", "-x", folder + "/b.yaml", folder + "/a.yaml"])
    #expect(stopped.status == 1)
    #expect(stopped.stdout.hasSuffix("0 passed, 1 failed\n"), "\(stopped.stdout)")
  }

  /// Shards split by scenario, so one big file splits; with the durations of an earlier run's
  /// report, a slow scenario gets a shard to itself.
  @Test func shardsSplitOneFileAndBalanceByDurations() throws {
    let folder = makeTemporaryFolder()
    var text = ""
    for index in 1...4 {
      let steps =
        index == 1
        ? "  - repeat: 1000\n    steps:\n      - main: query the\n      - main: query\n" : "  - main: select \(index)\n"
      text += "scenario: Part \(index)\nwindows:\n  main: catalog library\nsteps:\n\(steps)---\n"
    }
    writeTextFile(String(text.dropLast(4)), to: folder + "/one.yaml")
    func names(_ arguments: [String]) -> [String] {
      let result = ChildProcess.runWorkbench(["run", "-j", "1"] + arguments + [folder + "/one.yaml"])
      return result.stdout.split(separator: "\n").filter { $0.hasPrefix("✔") }.map {
        String($0.split(separator: " ")[2])
      }
    }
    let first = names(["--shard", "1/2"])
    let second = names(["--shard", "2/2"])
    #expect(first.count == 2 && second.count == 2, "\(first) \(second)")  // dealt out in turn
    #expect(Set(first + second) == ["1", "2", "3", "4"])
    // An earlier run's report: Part 1 is slow, so it is alone in its shard.
    let report = ChildProcess.runWorkbench(["run", "--json", folder + "/report.json", folder + "/one.yaml"])
    #expect(report.status == 0)
    let balanced = [
      names(["--shard", "1/2", "--durations", folder + "/report.json"]),
      names(["--shard", "2/2", "--durations", folder + "/report.json"]),
    ]
    #expect(balanced.contains(["1"]), "\(balanced)")
    #expect(Set(balanced.flatMap { $0 }) == ["1", "2", "3", "4"])
    let bad = ChildProcess.runWorkbench(["run", "--shard", "1/2", "--durations", folder + "/one.yaml", folder])
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("is not a JSON report written by `workbench run --json`"))
    // A file that is not there is said so; durations without shards are no silent no-op.
    let missing = ChildProcess.runWorkbench(["run", "--shard", "1/2", "--durations", folder + "/nosuch.json", folder])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("nosuch.json: there is no such file"), "\(missing.stderr)")
    let unsharded = ChildProcess.runWorkbench(["run", "--durations", folder + "/report.json", folder + "/one.yaml"])
    #expect(unsharded.status == 2)
    #expect(unsharded.stderr.contains("--durations balances the shards of --shard I/N"), "\(unsharded.stderr)")
  }

  /// A file that does not load is dealt to a shard like a scenario, and that shard reports it
  /// and fails: across a matrix (with `--durations` too) every broken file is reported once,
  /// and no matrix goes green over one (a tab error and a misspelt command were reported by no
  /// shard, whose exits were 2/0/5, or 0/0/5 with `--durations`).
  @Test func everyFileThatDoesNotLoadIsReportedByOneShard() throws {
    let folder = makeTemporaryFolder()
    writeTextFile(
      "scenario: Good\nwindows:\n  main: catalog library\nsteps:\n  - main: query dune\n", to: folder + "/a.yaml")
    writeTextFile("scenario: Tab\nsteps:\n\t- x\n", to: folder + "/b.yaml")
    writeTextFile(
      "scenario: Typo\nwindows:\n  main: catalog library\nsteps:\n  - main: qeury dune\n", to: folder + "/c.yaml")
    let report = ChildProcess.runWorkbench(["run", "--json", folder + "/report.json", folder])
    #expect(report.status == 2)
    for durations in [[], ["--durations", folder + "/report.json"]] {
      for jobs in ["1", "2"] {
        var reported: [String] = []
        var statuses: [Int32] = []
        for shard in 1...3 {
          let result = ChildProcess.runWorkbench(["run", "-j", jobs, "--shard", "\(shard)/3"] + durations + [folder])
          statuses.append(result.status)
          reported += ["b.yaml", "c.yaml"].filter { result.stderr.contains($0) }
          if ["b.yaml", "c.yaml"].contains(where: { result.stderr.contains($0) }) {
            #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
          }
        }
        #expect(reported.sorted() == ["b.yaml", "c.yaml"], "\(durations) -j \(jobs): \(reported) \(statuses)")
        #expect(statuses.contains(2), "\(statuses)")
      }
    }
  }

  /// `-x` with workers: the run stops handing out files at the first failure, and what the
  /// workers were running finishes and is reported, so every scenario of the files before the
  /// failing one is in the summary, as with `-j 1` (one went unreported in 8 of 9 runs); the
  /// summary says the run stopped and how many files it did not reach.
  @Test func stoppingAtTheFirstFailureWithWorkersReportsWhatRan() throws {
    let folder = makeTemporaryFolder()
    for index in 1...14 {
      writeTextFile(
        "scenario: s\(index)\nwindows:\n  main: catalog library\nsteps:\n  - main: query dune\n",
        to: folder + "/s\(index < 10 ? "0" : "")\(index).yaml")
    }
    writeTextFile(
      "scenario: fails\nwindows:\n  main: catalog library\nsteps:\n  - expect:\n      main: {query: nope}\n",
      to: folder + "/s08b.yaml")
    let alone = ChildProcess.runWorkbench(["run", "-x", "-j", "1", folder])
    #expect(alone.status == 1)
    #expect(
      alone.stdout.hasSuffix("stopped at the first failure (-x): 6 files not run\n\n8 passed, 1 failed\n"),
      "\(alone.stdout)")
    for _ in 1...4 {
      let result = ChildProcess.runWorkbench(["run", "-x", "-j", "2", folder])
      #expect(result.status == 1)
      let passed = Set(
        result.stdout.split(separator: "\n").filter { $0.hasPrefix("✔") }.map { $0.split(separator: " ")[1] })
      #expect(passed.isSuperset(of: (1...8).map { "s\($0)" }), "\(result.stdout)")
      #expect(result.stdout.contains("stopped at the first failure (-x): "), "\(result.stdout)")
    }
  }

  /// `-v` prints each step under its scenario, the failing one marked, with one job or several.
  @Test func verbosePrintsEachStep() {
    let folder = suiteFolder()
    for jobs in ["1", "2"] {
      let result = ChildProcess.runWorkbench(["run", "-v", "-j", jobs, folder])
      #expect(result.status == 1)
      #expect(result.stdout.contains("    ✔ 15:11  main: query dune\n"), "\(result.stdout)")
      #expect(result.stdout.contains("    ✔ 6:11  main: select 2\n    ✘ 7:5  expect: main\n"), "\(result.stdout)")
    }
  }

  @Test func aRecordedSessionPassesWhenRun() throws {
    let folder = makeTemporaryFolder()
    let input = """
      open catalog library left
      select 3
      record start \(folder)/recorded.yaml
      query the
      open catalog library right
      @right select 1
      @left rename 3 "Art of Programming"
      relaunch
      record stop
      """
    let shell = ChildProcess.runWorkbench([], input: Array((input + "\n").utf8))
    #expect(shell.status == 0, "\(shell.stderr)")
    let recorded = try #require(readTextFile(folder + "/recorded.yaml"))
    // Six steps, and a `clock advance` wherever the machine was slow enough between two piped
    // lines for the real clock to count the pause (more than 20 ms: under a loaded test run).
    let advances = recorded.split(separator: "\n").filter { $0.hasPrefix("  - do: clock advance ") }.count
    #expect(
      shell.stdout.contains("wrote \(folder)/recorded.yaml (\(6 + advances) steps, 0 facts)"), "\(shell.stdout)")
    #expect(recorded.contains("  - left: query the\n"))
    #expect(recorded.contains("  - right: select 1\n"))
    let run = ChildProcess.runWorkbench(["run", "--exhaustive", folder + "/recorded.yaml"])
    #expect(run.status == 1)  // exhaustive: the recording asserts only the final frames
    let plain = ChildProcess.runWorkbench(["run", folder + "/recorded.yaml"])
    #expect(plain.status == 0, "\(plain.stdout)")
  }

  /// With no temporary folder to put the workers' list of files in, the run goes on in its own
  /// process and says so.
  @Test func withoutATemporaryFolderTheRunGoesOnInProcess() {
    let folder = suiteFolder()
    let result = ChildProcess.runWorkbench(["run", "-j", "2", folder], environment: ["TMPDIR": folder + "/missing"])
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.hasSuffix("2 passed, 1 failed\n"), "\(result.stdout)")
    #expect(result.stderr.contains("warning: running in this process"), "\(result.stderr)")
  }

  /// More files than the workers' queue holds at once (shrunk to one page, 1,024 files, here):
  /// the rest go in as workers take files, and every file runs and prints once.
  @Test func aQueueLongerThanItsPipeHandsOutEveryFile() {
    let folder = makeTemporaryFolder()
    for index in 1...1500 {
      writeTextFile(
        "scenario: File \(index)\nwindows:\n  main: catalog library\nsteps:\n  - main: select 1\n",
        to: folder + "/file\(index).yaml")
    }
    let result = ChildProcess.runWorkbench(
      ["run", "-j", "2", folder], environment: ["WORKBENCH_TEST_QUEUE_PIPE_SIZE": "4096"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasSuffix("1500 passed, 0 failed\n"))
    let printed = result.stdout.split(separator: "\n").filter { $0.hasPrefix("✔ File ") }
    #expect(printed.count == 1500)
    #expect(Set(printed.map { $0.split(separator: " ")[2] }).count == 1500)
  }

  /// The report draws the ledger feed's state machine with Graphviz where `dot` is on the PATH
  /// (drawn while the scenarios run), and gives the Mermaid text where it is not.
  @Test func theReportDrawsItsDiagramWithGraphvizWhenThereIsOne() throws {
    let folder = makeTemporaryFolder()
    writeTextFile(
      "scenario: Feed\nwindows:\n  main: feed account\nsteps:\n  - do: clock advance 1s\n"
        + "  - expect:\n      main: {state: loaded}\n",
      to: folder + "/feed.yaml")
    let hasDot = ["/usr/bin/dot", "/usr/local/bin/dot"].contains { (path: String) in access(path, X_OK) == 0 }
    if hasDot {
      let run = ChildProcess.runWorkbench(["run", "-j", "1", folder + "/feed.yaml", "--html", folder + "/drawn.html"])
      #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
      let page = try #require(readTextFile(folder + "/drawn.html"))
      #expect(page.contains(#""svg":"\u003csvg"#), "no SVG in the page's data")
    }
    let run = ChildProcess.runWorkbench(
      ["run", "-j", "1", folder + "/feed.yaml", "--html", folder + "/text.html"],
      environment: ["PATH": folder + "/no-such-folder"])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    let page = try #require(readTextFile(folder + "/text.html"))
    #expect(page.contains(#""svg":null"#))
    #expect(page.contains("stateDiagram"))
  }
}
