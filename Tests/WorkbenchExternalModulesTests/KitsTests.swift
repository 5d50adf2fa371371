import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// One module, three kits: the countdown of Examples/countdown on the Swift, Python and
/// JavaScript kits passes the same scenarios and shows the same frames after every step; and a
/// module `new-module --language javascript` writes runs as printed, on the kit it carries.
struct KitsTests {
  static let examples = repositoryRoot() + "/Examples/countdown"
  static let binaries = String(ChildProcess.workbenchPath.dropLast("workbench".count))
  /// The countdown on each kit.
  static let countdowns = [
    ("swift", binaries + "countdown-module"), ("python", examples + "/countdown.py"),
    ("javascript", examples + "/countdown.js"),
  ]

  @Test func theCountdownShowsTheSameFramesAfterEveryStepOnEveryKit() throws {
    var traces: [(kit: String, folder: String)] = []
    for (kit, module) in Self.countdowns {
      let folder = makeTemporaryFolder() + "/" + kit
      let run = ChildProcess.runWorkbench(["run", "-m", module, Self.examples + "/Scenarios", "--trace", folder])
      #expect(run.status == 0, "\(kit): \(run.stdout)\(run.stderr)")
      #expect(run.stdout.hasSuffix("5 passed, 0 failed\n"), "\(kit): \(run.stdout)")
      traces.append((kit, folder))
    }
    let names = folderEntries(traces[0].folder)
    #expect(names.count == 6, "\(names)")  // 5 scenarios and the frames
    for (kit, folder) in traces.dropFirst() {
      #expect(folderEntries(folder) == names, "\(kit)")
      for name in names {
        let trace = try #require(traceWithoutTimings(folder + "/" + name), "\(kit) \(name)")
        #expect(trace == traceWithoutTimings(traces[0].folder + "/" + name), "\(kit) \(name)")
      }
    }
  }

  /// Two sessions on one module process keep their documents apart. `workbench explore` runs
  /// each random session twice side by side on the same module process; with seed 1 the
  /// countdown showed another frame in the second run within three sessions, on every kit: each
  /// kit kept one copy of a document for the whole process, and the host one record of the body
  /// it had sent, so one session's `seconds 1` or finished countdown leaked into the other's.
  @Test(arguments: countdowns)
  func twoSessionsOnOneModuleProcessKeepTheirDocumentsApart(_ countdown: (kit: String, module: String)) {
    let found = makeTemporaryFolder() + "/found.yaml"
    let run = ChildProcess.runWorkbench([
      "explore", "-m", countdown.module, "--screens", "countdown", "--seed", "1", "--runs", "10", "--steps", "50",
      "--out", found,
    ])
    #expect(run.status == 0, "\(countdown.kit): \(run.stdout)\(run.stderr)\(readTextFile(found) ?? "")")
    #expect(run.stdout.hasPrefix("explored 10 sessions (500 steps"), "\(countdown.kit): \(run.stdout)")
  }

  /// A command that sets a document to what it already holds commits nothing, on every kit: a
  /// second `seconds 1` leaves the egg at revision 2 (the Swift kit made revision 3, found by
  /// `explore --against`).
  @Test(arguments: countdowns)
  func aCommitThatChangesNothingMakesNoRevision(_ countdown: (kit: String, module: String)) {
    let run = ChildProcess.runWorkbench([
      "-w", ":memory:", "-m", countdown.module, "-c", "open countdown egg c; seconds 1; seconds 1; documents",
    ])
    #expect(run.status == 0, "\(countdown.kit): \(run.stdout)\(run.stderr)")
    #expect(run.stdout.contains("egg  countdown  revision 2 "), "\(countdown.kit): \(run.stdout)")
  }

  /// The scaffold's module runs on the kit it carries (node_modules/workbench-module), with no
  /// other kit to be found.
  @Test func aScaffoldedJavaScriptModuleWorksAsPrinted() {
    let folder = makeTemporaryFolder()
    let created = ChildProcess.runWorkbench(["new-module", "tally", "--language", "javascript", "--path", folder])
    #expect(created.status == 0, "\(created.stderr)")
    #expect(created.stdout.contains("module-check ./tally.js"))
    let kit = readTextFile(folder + "/tally/node_modules/workbench-module/workbench-module.js")
    #expect(kit == readTextFile(repositoryRoot() + "/Kits/javascript/workbench-module.js"))
    let module = folder + "/tally/tally.js"
    let alone: [String: String?] = ["NODE_PATH": nil]
    let run = ChildProcess.runWorkbench(["run", "--module", module, folder + "/tally/Scenarios"], environment: alone)
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    let check = ChildProcess.runWorkbench(["module-check", module], environment: alone)
    #expect(check.status == 0, "\(check.stdout)")
  }

  /// Each kit's README shows a counter module in 30 lines: it is the file a reader saves, and it
  /// passes module-check and counts now and later (a timer's commit) in a scenario.
  @Test(arguments: [("python", "counter.py"), ("javascript", "counter.js")])
  func theModuleInAKitsReadmeWorksAsShown(kit: String, file: String) throws {
    let readme = try #require(readTextFile(repositoryRoot() + "/Kits/\(kit)/README.md"))
    let fence = kit == "python" ? "```python\n" : "```js\n"
    let start = try #require(readme.firstRange(of: fence))
    let end = try #require(readme[start.upperBound...].firstRange(of: "```"))
    let code = String(readme[start.upperBound..<end.lowerBound])
    #expect(code.split(separator: "\n", omittingEmptySubsequences: false).count <= 31, "about 30 lines: \(code)")
    let folder = makeTemporaryFolder()
    writeTextFile(code, to: folder + "/" + file)
    chmod(folder + "/" + file, 0o755)
    writeTextFile(
      """
      scenario: The README's counter counts now and later
      windows:
        c: counter counter
      steps:
        - c: add 2
        - c: later 500
        - expect:
            c: {count: 2, pending: 1}
        - do: clock advance 499ms
        - expect:
            c: {count: 2, pending: 1}
        - do: clock advance 1ms
        - expect:
            c: {count: 3, pending: 0}

      """, to: folder + "/counter.yaml")
    let run = ChildProcess.runWorkbench(["run", "-m", folder + "/" + file, folder + "/counter.yaml"])
    #expect(run.status == 0, "\(kit): \(run.stdout)\(run.stderr)")
    let check = ChildProcess.runWorkbench(["module-check", folder + "/" + file])
    #expect(check.status == 0, "\(kit): \(check.stdout)")
  }
}
