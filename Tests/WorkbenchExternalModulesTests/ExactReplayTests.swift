import Testing
import WorkbenchTestSupport

/// What an external module needs to replay exactly (issue #37), held with the kettle written in
/// Perl from docs/protocol.md alone: a live change is handed back as its event, so the module's
/// state is what it was; changes come in at points the host chooses (`sync`), so a scenario
/// gives the same result every time; and a timer's work commits like a command's.
struct ExactReplayTests {
  let kettle = repositoryRoot() + "/Tests/ProcessModules/Kettle/kettle.pl"

  /// Recorded live, replayed with a kettle that stays quiet at the wall: the live step hands the
  /// recorded event back, so the module's own answer to the next command (`look`) is the switched
  /// kettle, not the one it had before; a replay that brought in only the recorded frames would
  /// show `cold` there.
  @Test func aReplayHandsTheRecordedEventBackSoTheModuleKnowsIt() throws {
    let folder = makeTemporaryFolder()
    let recording = folder + "/wall.yaml"
    let recorded = ChildProcess.runWorkbench(
      ["-w", ":memory:", "-m", kettle],
      input: Array(
        "record start \(recording)\nopen kettle kettle k\nopen kettle kettle j\n@k wall\n@j look\nrecord stop\n".utf8))
    #expect(recorded.status == 0, "\(recorded.stderr)")
    let text = try #require(readTextFile(recording))
    #expect(text.contains("event: {document: kettle}"), "\(text)")
    #expect(text.contains("- do: live") && text.contains("- j: look"), "\(text)")
    for mode in ["quiet-wall", ""] {
      let replayed = ChildProcess.runWorkbench(
        ["run", "-m", kettle, recording], environment: ["KETTLE_MODE": mode, "WORKBENCH_PROTOCOL_LOG": folder + "/log"])
      #expect(replayed.status == 0, "\(mode): \(replayed.stdout)")
    }
    // The replay asked the module to apply the event (and did not use the module's own change).
    let log = readTextFile(folder + "/log") ?? ""
    #expect(log.contains(#""type":"live""#) && log.contains(#""events":[{"document":"kettle"}]"#), "\(log)")
  }

  /// A change a module sends right behind its reply comes in before the next expectation, every
  /// time: the host asks for what the live sources saw (`sync`) before it checks one.
  @Test func aChangeRightBehindAReplyIsTakenEveryTime() {
    let folder = makeTemporaryFolder()
    writeTextFile(
      """
      scenario: Switched at the wall, again and again
      windows:
        a: kettle kettle
        b: kettle kettle
      steps:
        - repeat: 40
          steps:
            - a: stop
            - a: wall
            - expect:
                b: {state: on at the wall}

      """, to: folder + "/walls.yaml")
    let run = ChildProcess.runWorkbench(
      ["run", "-m", kettle, folder + "/walls.yaml"], environment: ["KETTLE_MODE": "change-after-reply"])
    #expect(run.status == 0, "\(run.stdout)")
  }

  /// A module that sends changes without saying it has live sources is stopped, saying what to
  /// declare; module-check fails it too.
  @Test func changesFromAModuleThatDeclaresNoLiveSourcesAreRefused() {
    let scenario = repositoryRoot() + "/Examples/kettle/Scenarios/wall.yaml"
    let run = ChildProcess.runWorkbench(
      ["run", "-m", kettle, scenario], environment: ["KETTLE_MODE": "undeclared-live"])
    #expect(run.status == 1)
    #expect(run.stdout.contains("its hello does not declare `liveSources: true`"), "\(run.stdout)")
    let check = ChildProcess.runWorkbench(["module-check", kettle], environment: ["KETTLE_MODE": "undeclared-live"])
    #expect(check.status == 1)
    #expect(check.stdout.contains("✘ changes") && check.stdout.contains("does not declare `liveSources: true`"))
    let declared = ChildProcess.runWorkbench(["module-check", kettle])
    #expect(declared.stdout.contains("✔ sync                        §19  ok"), "\(declared.stdout)")
  }

  /// A timer's work commits: the boil count is saved as the document's next revision, as a
  /// command's change would be; one made from a revision gone by is refused, said, and nothing
  /// is saved.
  @Test func aTimersCommitIsSavedOnlyFromTheRevisionItHad() {
    let folder = makeTemporaryFolder()
    let lines = "open kettle kettle k\n@k boil 20\nsettle\ndocuments\n"
    let saved = ChildProcess.runWorkbench(
      ["-w", folder + "/saved.workbench", "-m", kettle], input: Array(lines.utf8),
      environment: ["KETTLE_MODE": "commit-on-boil"])
    #expect(saved.status == 0, "\(saved.stderr)")
    #expect(saved.stdout.contains("kettle  kettle  revision 2"), "\(saved.stdout)")
    let exported = ChildProcess.runWorkbench(
      ["export", "kettle", folder + "/kettle.json", "-w", folder + "/saved.workbench"])
    #expect(exported.status == 0, "\(exported.stderr)")
    #expect(readTextFile(folder + "/kettle.json")?.contains("\"boiled\"") == true)
    let stale = ChildProcess.runWorkbench(
      ["-w", ":memory:", "-m", kettle, "--keep-going"], input: Array(lines.utf8),
      environment: ["KETTLE_MODE": "stale-commit"])
    #expect(
      stale.stderr.contains("changed kettle, which was not saved: document 'kettle' is at revision 1"),
      "\(stale.stderr)")
    #expect(stale.stdout.contains("kettle  kettle  revision 1"), "\(stale.stdout)")
  }
}
