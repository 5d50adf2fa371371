import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The HTML report, opened in a real browser (headless Chromium): the DOM after its scripts
/// ran. CI installs Debian's `chromium` and sets WORKBENCH_REQUIRE_CHROMIUM, so there the test
/// cannot be skipped; elsewhere it runs where a Chromium is installed.
struct ReportBrowserTests {
  static let chromium: String? = {
    if let given = getenv("CHROMIUM").map({ String(cString: $0) }) { return given }
    return ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
      access($0, X_OK) == 0
    }
  }()
  static let required = getenv("WORKBENCH_REQUIRE_CHROMIUM") != nil

  /// The page's DOM after its scripts ran, opened at `fragment`.
  private func dom(_ page: String, fragment: String = "", profile: String) -> String {
    guard let chromium = Self.chromium else { return "" }
    let result = ChildProcess.run(
      chromium,
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)", "--virtual-time-budget=3000",
        "--dump-dom", "file://\(page)\(fragment)",
      ], input: [], environment: ChildProcess.environment(["HOME": profile]))
    return result.stdout
  }

  /// The page opened in `chromium`, and the lines its console logged (an uncaught error among them).
  private static func openLogging(_ page: String, chromium: String, profile: String) -> (ProcessResult, [Substring]) {
    let opened = ChildProcess.run(
      chromium,
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)", "--virtual-time-budget=3000",
        "--enable-logging=stderr", "--v=0", "--dump-dom", "file://\(page)",
      ], input: [], environment: ChildProcess.environment(["HOME": profile]))
    return (opened, opened.stderr.split(separator: "\n").filter { $0.contains("CONSOLE") })
  }

  /// The text of the element with `id`, tags removed (enough for these checks).
  private func section(_ html: String, from marker: String) -> String {
    guard let start = html.firstRange(of: marker) else { return "" }
    return String(html[start.lowerBound...].prefix(20_000))
  }

  /// A file that could not be loaded is a failed entry with no step: chosen (it is the failure
  /// listed first), the page shows its mistakes, and its script throws nothing (it threw
  /// `TypeError: Cannot read properties of undefined (reading 'text')` in renderScenario).
  /// A scenario marked `skip:` is listed with its own mark, counted apart in the summary, and
  /// shows its reason when chosen (it is first), with no script error: it ran no step.
  @Test(
    .enabled(if: !ChildProcess.isSanitized, "a browser adds nothing under a sanitizer"),
    .enabled(if: chromium != nil || required, "no Chromium is installed (CI sets WORKBENCH_REQUIRE_CHROMIUM)"))
  func aSkippedScenarioShowsItsReason() throws {
    let chromium = try #require(Self.chromium, "WORKBENCH_REQUIRE_CHROMIUM is set, and no Chromium was found")
    let folder = makeTemporaryFolder()
    mkdir(folder + "/suite", 0o755)
    writeTextFile(
      "scenario: Later\nskip: waits for the dimmer\nwindows:\n  main: catalog library\nsteps:\n  - main: query x\n",
      to: folder + "/suite/a.yaml")
    writeTextFile(
      "scenario: Good\nwindows:\n  main: catalog library\nsteps:\n  - main: query dune\n", to: folder + "/suite/b.yaml")
    let page = folder + "/report.html"
    let run = ChildProcess.runWorkbench(["run", "-j", "1", folder + "/suite", "--html", page])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    let (opened, console) = Self.openLogging(page, chromium: chromium, profile: folder + "/profile")
    #expect(!console.contains { $0.contains("Uncaught") }, "\(console)")
    #expect(opened.stdout.contains("0 failed, 1 passed, 1 skipped, "), "\(opened.stdout.suffix(3000))")
    #expect(opened.stdout.contains(#"<span class="skipped">↷ </span>Later"#), "\(opened.stdout.suffix(3000))")
    #expect(opened.stdout.contains("skipped: waits for the dimmer"), "\(opened.stdout.suffix(3000))")
  }

  @Test(
    .enabled(if: !ChildProcess.isSanitized, "a browser adds nothing under a sanitizer"),
    .enabled(if: chromium != nil || required, "no Chromium is installed (CI sets WORKBENCH_REQUIRE_CHROMIUM)"))
  func aFileThatDoesNotLoadShowsWithoutAScriptError() throws {
    let chromium = try #require(Self.chromium, "WORKBENCH_REQUIRE_CHROMIUM is set, and no Chromium was found")
    let folder = makeTemporaryFolder()
    mkdir(folder + "/suite", 0o755)
    writeTextFile(
      "scenario: Good\nwindows:\n  main: catalog library\nsteps:\n  - main: query dune\n", to: folder + "/suite/a.yaml")
    writeTextFile("scenario: Tab\nsteps:\n\t- x\n", to: folder + "/suite/b.yaml")
    let page = folder + "/report.html"
    let run = ChildProcess.runWorkbench(["run", "-j", "1", folder + "/suite", "--html", page])
    #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
    let (opened, console) = Self.openLogging(page, chromium: chromium, profile: folder + "/profile")
    #expect(!console.contains { $0.contains("Uncaught") }, "\(console)")
    #expect(opened.stdout.contains("b.yaml could not be loaded"), "\(opened.stdout.suffix(3000))")
    #expect(opened.stdout.contains("tabs cannot indent YAML"), "\(opened.stdout.suffix(3000))")
    #expect(opened.stdout.contains("No step ran: the file could not be loaded."), "\(opened.stdout.suffix(3000))")
  }

  @Test(
    .enabled(if: !ChildProcess.isSanitized, "a browser adds nothing under a sanitizer"),
    .enabled(if: chromium != nil || required, "no Chromium is installed (CI sets WORKBENCH_REQUIRE_CHROMIUM)"))
  func theReportWorksInARealBrowser() throws {
    _ = try #require(Self.chromium, "WORKBENCH_REQUIRE_CHROMIUM is set, and no Chromium was found")
    let folder = makeTemporaryFolder()
    mkdir(folder + "/suite", 0o755)
    writeTextFile(
      """
      scenario: A feed that loads
      tags: [ledger]
      windows:
        main: feed account
      steps:
        - do: clock advance 1s
        - expect:
            main: {state: loaded}
      """, to: folder + "/suite/feed.yaml")
    writeTextFile(
      """
      scenario: A deliberate failure
      tags: [catalog]
      windows:
        left: catalog library
        right: catalog library
      steps:
        - left: select 2
        - right: query the
        - expect:
            left: {selected: 2}
            right: {query: thy}
      """, to: folder + "/suite/failing.yaml")
    let page = folder + "/report.html"
    let run = ChildProcess.runWorkbench(["run", "-j", "1", folder + "/suite", "--html", page, "--trace", folder + "/t"])
    #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
    let size = readBytes(page)?.count ?? 0
    #expect(size > 10_000 && size < 2_000_000, "\(size) bytes")

    // The failure is listed first and chosen; its diff is shown.
    let opened = dom(page, profile: folder + "/profile")
    let list = section(opened, from: "id=\"scenarios\"")
    let failedAt = list.firstRange(of: "scenario failed")?.lowerBound
    let passedAt = list.firstRange(of: "scenario passed")?.lowerBound
    #expect(failedAt != nil && passedAt != nil && failedAt! < passedAt!, "\(list.prefix(600))")
    #expect(opened.contains("<pre class=\"diff\">right.query"), "the expectation diff is missing")
    #expect(opened.contains("Step 3: expect: left: "), "the failing step is not the one chosen")
    // The window whose expectation failed is shown first.
    let frames = section(opened, from: "id=\"frames\"")
    let rightAt = frames.firstRange(of: "data-window=\"right\"")?.lowerBound
    let leftAt = frames.firstRange(of: "data-window=\"left\"")?.lowerBound
    #expect(rightAt != nil && leftAt != nil && rightAt! < leftAt!, "\(frames.prefix(600))")

    // Choosing a step changes the frames shown: after step 0 nothing is selected in left;
    // after step 1 book 2 is.
    let before = section(dom(page, fragment: "#s=0&t=0", profile: folder + "/profile"), from: "id=\"frames\"")
    let after = section(dom(page, fragment: "#s=0&t=1", profile: folder + "/profile"), from: "id=\"frames\"")
    #expect(!before.isEmpty && before != after)
    #expect(after.contains("<mark>▸  2  Structure and Interpretation"), "\(after.prefix(800))")
    #expect(!before.contains("▸  2"))

    // Each step gives the command that opens the session after it in the shell.
    let second = dom(page, fragment: "#s=0&t=2", profile: folder + "/profile")
    #expect(
      second.contains("<code id=\"shell-command\">workbench run \(folder)/suite/failing.yaml:8 --shell</code>"),
      "\(section(second, from: "step-title").prefix(600))")

    // Beside the feed window, its state machine with the current state marked.
    let feed = dom(page, fragment: "#s=1&t=2", profile: folder + "/profile")
    #expect(
      feed.contains("class=\"diagram\" data-state=\"loaded\""), "\(section(feed, from: "id=\"frames\"").prefix(800))")
    #expect(feed.contains("current"), "no state is marked in the diagram")

    // A screenshot, as a reader sees it.
    let shot = folder + "/report.png"
    _ = ChildProcess.run(
      Self.chromium!,
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=\(folder)/profile",
        "--window-size=1280,900", "--virtual-time-budget=3000", "--screenshot=\(shot)", "file://\(page)",
      ], input: [], environment: ChildProcess.environment(["HOME": folder + "/profile"]))
    #expect((readBytes(shot)?.count ?? 0) > 10_000, "no screenshot")
  }

  /// `run --coverage FILE --html REPORT`: the report's coverage page (`#coverage`, or its button)
  /// lists each module's commands, the ones never carried out marked, and draws the feed's
  /// machine with the transitions taken and those never taken told apart.
  @Test(
    .enabled(if: !ChildProcess.isSanitized, "a browser adds nothing under a sanitizer"),
    .enabled(if: chromium != nil || required, "no Chromium is installed (CI sets WORKBENCH_REQUIRE_CHROMIUM)"))
  func theCoveragePageShowsWhatRanAndWhatDidNot() throws {
    _ = try #require(Self.chromium, "WORKBENCH_REQUIRE_CHROMIUM is set, and no Chromium was found")
    let folder = makeTemporaryFolder()
    writeTextFile(
      """
      scenario: A feed that loads and fails
      windows:
        main: feed account
      steps:
        - do: clock advance 1s
        - do: network fail
        - main: refresh
        - do: clock advance 1s
        - expect:
            main: {state: failed}
      """, to: folder + "/feed.yaml")
    let page = folder + "/report.html"
    let run = ChildProcess.runWorkbench(
      ["run", "-j", "1", folder + "/feed.yaml", "--html", page, "--coverage", folder + "/coverage.json"])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    #expect(
      run.stdout.contains("coverage: ledger: 2 of 16 commands run, 2 carried out; feed: 4 of 8 transitions taken"),
      "\(run.stdout)")
    let opened = dom(page, fragment: "#coverage", profile: folder + "/profile")
    let shown = section(opened, from: "id=\"scenario\"")
    #expect(shown.contains("<h2>Coverage</h2>"), "\(shown.prefix(800))")
    #expect(shown.contains("<tr class=\"never\"><td>retry</td><td>0</td><td>0</td></tr>"), "\(shown.prefix(3000))")
    #expect(shown.contains("<tr class=\"\"><td>refresh</td><td>1</td><td>0</td></tr>"), "\(shown.prefix(3000))")
    #expect(shown.contains("feed: 4 of 8 transitions taken"))
    #expect(
      shown.contains("never taken: loading → empty, loading → loading, empty → loading, failed → loading"),
      "\(shown.prefix(6000))")
    // Drawn by Graphviz where it is installed: taken edges green, the others dashed red.
    if access("/usr/bin/dot", X_OK) == 0 {
      #expect(shown.contains("<svg"), "no drawing")
      #expect(shown.contains("stroke=\"#1a7f37\"") && shown.contains("stroke=\"#cf222e\""), "\(shown.prefix(6000))")
    }
  }
}
