import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench diff A B` on traces and on scenario files, as a CI job or a person compares runs.
@Suite struct DiffCommandTests {
  static let sending = """
    scenario: Sending twice
    windows:
      main: feed account
    steps:
      - main: send 5.00 req-1 Sam Rivera
      - main: send 7.00 req-2 Sam Rivera
      - expect:
          main: {balance: "1818.41"}

    """

  @Test func aTraceFolderAndTheScenariosItCameFromAgree() {
    let folder = makeTemporaryFolder()
    let scenario = folder + "/sending.yaml"
    writeTextFile(Self.sending, to: scenario)
    let traced = ChildProcess.runWorkbench(["run", scenario, "--trace", folder + "/traces"])
    #expect(traced.status == 0, "\(traced.stdout)\(traced.stderr)")
    let same = ChildProcess.runWorkbench(["diff", folder + "/traces", scenario])
    #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
    #expect(same.stdout.contains("same    \"Sending twice\""), "\(same.stdout)")
    #expect(same.stdout.hasSuffix("1 scenario compared: 0 differ\n"), "\(same.stdout)")
  }

  @Test func anEditedStepIsNamedWithEveryFieldThatDiffers() {
    let folder = makeTemporaryFolder()
    let before = folder + "/before.yaml"
    let after = folder + "/after.yaml"
    writeTextFile(Self.sending, to: before)
    writeTextFile(
      Self.sending.replacing("send 7.00 req-2", with: "send 9.00 req-2"), to: after)
    let result = ChildProcess.runWorkbench(["diff", before, after])
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(
      result.stdout.contains("after step 2: main: send 9.00 req-2 Sam Rivera (\(after):6:11)"), "\(result.stdout)")
    #expect(result.stdout.contains("    step\n        A: main: send 7.00 req-2 Sam Rivera\n"), "\(result.stdout)")
    #expect(
      result.stdout.contains("    main.balance\n        A: \"1818.41\"\n        B: \"1816.41\"\n"), "\(result.stdout)")
  }

  /// A recording edited to ask something else: the facts served and the outcome differ too.
  @Test func anEditedRecordingShowsTheFactsItNoLongerServes() throws {
    let folder = makeTemporaryFolder()
    let recorded = try #require(readTextFile(repositoryRoot() + "/Scenarios/recorded/settled-feed.yaml"))
    let original = folder + "/settled.yaml"
    let edited = folder + "/edited.yaml"
    writeTextFile(recorded, to: original)
    writeTextFile(recorded.replacing("search rent", with: "search coffee"), to: edited)
    let result = ChildProcess.runWorkbench(["diff", original, edited])
    #expect(result.status == 1)
    #expect(
      result.stdout.contains("    facts\n        A: network.latency #1 of window 1\n        B: (none)"),
      "\(result.stdout)")
    #expect(
      result.stdout.contains("    outcome\n        A: passed\n        B: failed: the replay diverged"),
      "\(result.stdout)")
  }

  @Test func scenariosOnOneSideOnlyAreNamedAndMistakesAreUsageErrors() {
    let folder = makeTemporaryFolder()
    mkdir(folder + "/a", 0o755)
    mkdir(folder + "/b", 0o755)
    writeTextFile(Self.sending, to: folder + "/a/sending.yaml")
    writeTextFile(Self.sending, to: folder + "/b/sending.yaml")
    writeTextFile(Self.sending.replacing("Sending twice", with: "Another"), to: folder + "/b/other.yaml")
    let result = ChildProcess.runWorkbench(["diff", folder + "/a", folder + "/b"])
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("only B  \"Another\""), "\(result.stdout)")
    #expect(result.stdout.contains("1 scenario compared: 0 differ, 0 only in A, 1 only in B"), "\(result.stdout)")
    let missing = ChildProcess.runWorkbench(["diff", folder + "/a", folder + "/nowhere"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("nowhere: no such file or folder"), "\(missing.stderr)")
    let one = ChildProcess.runWorkbench(["diff", folder + "/a"])
    #expect(one.status == 2)
    #expect(one.stderr.hasPrefix("workbench diff: name two runs to compare, A and B\n"), "\(one.stderr)")
    #expect(one.stderr.contains("\nusage: workbench diff A B"), "\(one.stderr)")
  }
}
