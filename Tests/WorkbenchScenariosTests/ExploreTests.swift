import BuiltInModules
import Catalog
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios

/// `workbench explore` finds bugs planted in a module it knows nothing about, shrinks each to a
/// few steps, and writes a scenario that fails the same way under the runner; the same seed
/// finds the same.
@MainActor
@Suite struct ExploreTests {
  /// A refusal that changes the document, only once the count is past 12 (a sequence of
  /// bumps). (A refused command's view changes the host takes back itself.)
  @Test func aRefusalThatChangesStateIsFoundAndShrunk() throws {
    let (explorer, report) = try explore(PlantedModule(bug: .refusalChangesState))
    let failure = try #require(report.failure, "not found in \(report.sessions) sessions")
    #expect(failure.property == .refusalChangesNothing)
    #expect(report.sessions <= 50)
    let shrunk = try #require(report.shrunk)
    #expect(shrunk.steps.count <= 6, "\(shrunk.steps.map(\.line))")
    #expect(shrunk.windows.count <= 2, "\(shrunk.windows.map(\.name))")
    // The scenario written fails under the runner, at its last expectation.
    let text = try #require(explorer.scenarioText(for: report))
    let results = try run(text, modules: [PlantedModule(bug: .refusalChangesState)])
    #expect(results.count == 1)
    let message = results.first?.failure?.message ?? ""
    #expect(message.contains("the frames do not match"), "\(message)\n\(text)")
    // The same seed finds the same, shrunk the same.
    let (_, again) = try explore(PlantedModule(bug: .refusalChangesState))
    #expect(again.failingSeed == report.failingSeed)
    #expect(again.shrunk?.steps.map(\.line) == shrunk.steps.map(\.line))
  }

  /// A module whose frames depend on more than the session's steps (a count kept across
  /// sessions): the second run of the same steps shows another frame.
  @Test func aSessionThatDoesNotReplayIsFound() throws {
    let (explorer, report) = try explore(PlantedModule(bug: .divergentReplay))
    let failure = try #require(report.failure)
    // A window made again counts as another session too: found either way.
    #expect([.replaysEqual, .rebuiltIsSame].contains(failure.property), "\(failure)")
    #expect((report.shrunk?.steps.count ?? 99) <= 3, "\(report.shrunk?.steps.map(\.line) ?? [])")
    // The frames of the session explore ran are not those of another session: the runner fails.
    let written = try #require(explorer.written(for: report))
    #expect(written.failsUnderRun, "\(written.text)")
    // A relation, not the frames one run showed: the sound module passes the file.
    if failure.property == .replaysEqual {
      #expect(written.text.contains("\nholds: replayed\n"), "\(written.text)")
    }
    #expect(
      try run(written.text, modules: [PlantedModule(bug: nil)]).allSatisfy { $0.failure == nil }, "\(written.text)")
  }

  /// A fact kept where a replay cannot find it (under the session's number, not the
  /// window's): the second run, a replay of the first's recording, asks for what it lacks.
  @Test func aFactAReplayCannotFindIsFound() throws {
    let (_, report) = try explore(PlantedModule(bug: .factOfAnotherSession))
    let failure = try #require(report.failure, "not found in \(report.sessions) sessions")
    #expect(failure.property == .replaysEqual)
    #expect(failure.detail.contains("which the recording does not have"), "\(failure.detail)")
    let shrunk = try #require(report.shrunk)
    #expect(shrunk.steps.map(\.line).last?.hasSuffix("draw") == true, "\(shrunk.steps.map(\.line))")
    #expect(shrunk.steps.count <= 2, "\(shrunk.steps.map(\.line))")
    // Run once, the session is sound; written as a recording of its first run, its replay under
    // the runner asks for the fact the recording lacks, as explore's did.
    let (explorer, _) = try explore(PlantedModule(bug: .factOfAnotherSession))
    let written = try #require(explorer.written(for: report))
    #expect(written.failsUnderRun)
    #expect(written.text.contains("\nfacts:"), "\(written.text)")
    // Its expectation is the recorded run's frame, drawn from the recorded fact (another live
    // run draws another number).
    let kept = written.text.firstMatch(of: /draw: \[([0-9]+)\]/)?.1
    #expect(kept != nil && kept == written.text.firstMatch(of: /drawn: ([0-9]+)/)?.1, "\(written.text)")
    let results = try run(written.text, modules: [PlantedModule(bug: .factOfAnotherSession)])
    let message = results.first?.failure?.message ?? ""
    #expect(message.hasPrefix("the replay diverged from its recording: the replay asked for draw #1"), "\(message)")
  }

  /// A failure the runner does not meet when it runs the file once (here: the session of a
  /// module whose refusal changed its count, written for the module without that bug) is
  /// written with a note at its top saying so, and reported as passing under `workbench run`.
  @Test func aFileThatPassesWhenRunOnceSaysSo() throws {
    let (_, report) = try explore(PlantedModule(bug: .refusalChangesState))
    var options = Explorer.Options()
    options.seed = 7
    let sound = Explorer(registry: try ModuleRegistry(modules: [PlantedModule(bug: nil)]), options: options)
    let written = try #require(sound.written(for: report))
    #expect(!written.failsUnderRun)
    let lines = written.text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines[3].hasPrefix("# Run once by `workbench run`, this scenario passes"), "\(written.text)")
    #expect(lines[4].hasPrefix("scenario: "), "\(written.text)")
    #expect(try run(written.text, modules: [PlantedModule(bug: nil)]).allSatisfy { $0.failure == nil })
  }

  /// A refusal that leaves a value in the screen model beside the view state, seen only at a
  /// later command: no frame changes at the refusal, and a replay does the same, so only the
  /// window opened again from its document and view state shows it.
  @Test func stateKeptOutsideTheViewStateIsFoundByOpeningTheWindowAgain() throws {
    // The count reaches its end late in a session, and the carry shows only at a later `step`.
    let (explorer, report) = try explore(PlantedModule(bug: .refusalLeavesACarry), runs: 400)
    let failure = try #require(report.failure, "not found in \(report.sessions) sessions")
    #expect(failure.property == .rebuiltIsSame, "\(failure)")
    let shrunk = try #require(report.shrunk)
    #expect(shrunk.steps.count <= 8, "\(shrunk.steps.map(\.line))")
    #expect(shrunk.steps.last?.line.hasPrefix("step") == true, "\(shrunk.steps.map(\.line))")
    #expect(!shrunk.rebuilds.isEmpty)
    // The file opens the windows again where explore did, and fails under the runner there.
    let text = try #require(explorer.scenarioText(for: report))
    #expect(text.contains("- do: reopen"), "\(text)")
    #expect(explorer.written(for: report)?.failsUnderRun == true, "\(text)")
    let results = try run(text, modules: [PlantedModule(bug: .refusalLeavesACarry)])
    #expect(
      results.first?.failure?.message.hasPrefix(
        "a window rebuilt from its document and view state is not the same window")
        == true, "\(text)")
    // A relation, not the frames the bug showed: the file is the regression test, passing on
    // the sound module.
    #expect(text.contains("\nholds: rebuilt\n"), "\(text)")
    #expect(try run(text, modules: [PlantedModule(bug: nil)]).allSatisfy { $0.failure == nil }, "\(text)")
    // The sound module passes with the same seed, its windows opened again as often.
    let (_, sound) = try explore(PlantedModule(bug: nil))
    #expect(sound.failure == nil)
    #expect(sound.rebuilds > 50, "\(sound.rebuilds)")
  }

  /// An undo a window forgets (it takes in only a higher count): right after a bump, `undo`
  /// leaves the window showing the bumped count. Every window on the count forgets alike, and a
  /// replay does the same: the undo property finds it, and the file says what the window showed
  /// before the bump.
  @Test func anUndoAWindowForgetsIsFound() throws {
    let module = PlantedModule(bug: .undoKeepsTheHighest)
    let (explorer, report) = try explore(module)
    let failure = try #require(report.failure, "not found in \(report.sessions) sessions")
    #expect([.undoRestores, .rebuiltIsSame].contains(failure.property), "\(failure)")
    let shrunk = try #require(report.shrunk)
    #expect(shrunk.steps.count <= 3, "\(shrunk.steps.map(\.line))")
    let text = try #require(explorer.scenarioText(for: report))
    #expect(explorer.written(for: report)?.failsUnderRun == true, "\(text)")
    let results = try run(text, modules: [module])
    #expect(results.first?.failure?.message.contains("the frames do not match") == true, "\(text)")
    // Without windows opened again, the undo property is what finds it.
    let here = SourceLocation(file: "<test>", line: 1, column: 1)
    let session = try explorer.session(
      windows: [WindowSeed(name: "w1", screen: "planted", document: "tally", location: here)],
      reading: [("w1", "bump"), ("w1", "undo")])
    let found = explorer.check(session).failure
    #expect(found?.property == .undoRestores, "\(String(describing: found))")
    #expect(found?.detail.contains("value 0 before, 1 now") == true, "\(String(describing: found))")
    // A timer set before the change and still waiting, as it was, does not stop the comparison
    // (a module with a timer every midnight had none of its undos compared).
    let ringing = try explorer.session(
      windows: [WindowSeed(name: "w1", screen: "planted", document: "tally", location: here)],
      reading: [("w1", "ring"), ("w1", "bump"), ("w1", "undo")])
    let foundRinging = explorer.check(ringing).failure
    #expect(foundRinging?.property == .undoRestores, "\(String(describing: foundRinging))")
    // The sound module's undos and redos are compared, and pass.
    let (_, sound) = try explore(PlantedModule(bug: nil))
    #expect(sound.failure == nil)
    #expect(sound.historyChecks > 20, "\(sound.historyChecks)")
  }

  /// A window that misses a change another window made: after `settle`, two windows on one
  /// count with one step show different counts. It holds a copy of the document of its own, so
  /// the same window opened again from the document shows the count too, and an undo of the
  /// bump is a document it misses as well: explore finds whichever comes first, and a session
  /// that opens no window again finds the two windows disagree.
  @Test func aWindowThatMissesAChangeIsFound() throws {
    let (explorer, report) = try explore(PlantedModule(bug: .staleWindow))
    let failure = try #require(report.failure, "not found in \(report.sessions) sessions")
    #expect([.windowsAgree, .rebuiltIsSame, .undoRestores].contains(failure.property), "\(failure)")
    let shrunk = try #require(report.shrunk)
    #expect(shrunk.steps.count <= 3, "\(shrunk.steps.map(\.line))")
    let text = try #require(explorer.scenarioText(for: report))
    let results = try run(text, modules: [PlantedModule(bug: .staleWindow)])
    let message = results.first?.failure?.message ?? ""
    #expect(message.contains("the frames do not match"), "\(message)\n\(text)")
    // Without windows opened again: the two windows disagree after `settle`.
    let here = SourceLocation(file: "<test>", line: 1, column: 1)
    let session = try explorer.session(
      windows: [
        WindowSeed(name: "w1", screen: "planted", document: "tally", location: here),
        WindowSeed(name: "w2", screen: "planted", document: "tally", location: here),
      ], reading: [("w1", "bump"), (nil, "settle")])
    let found = explorer.check(session).failure
    #expect(found?.property == .windowsAgree, "\(String(describing: found))")
    #expect(found?.windows == ["w1", "w2"])
  }

  /// A timer that fires twice for one `ring`, found by the module's own rule (an `always:`
  /// file): the alarm goes off at most once.
  @Test func aTimerThatFiresTwiceBreaksTheModulesOwnRule() throws {
    let module = PlantedModule(bug: .timerFiresTwice)
    let always = "always:\n  planted:\n    fired: {$between: [0, 1]}\n"
    let invariants = try ScenarioLoader(modules: [module]).loadInvariants(
      bytes: Array(always.utf8), path: "/tmp/always.yaml")
    let (explorer, report) = try explore(module, invariants: invariants)
    let failure = try #require(report.failure, "not found in \(report.sessions) sessions")
    #expect(failure.property == .always, "\(failure)")
    #expect(failure.detail.contains("/tmp/always.yaml:2:3"), "\(failure.detail)")
    let shrunk = try #require(report.shrunk)
    #expect(shrunk.steps.count <= 4, "\(shrunk.steps.map(\.line))")
    #expect(shrunk.steps.filter { $0.line.hasSuffix("ring") }.count == 2, "\(shrunk.steps.map(\.line))")
    let text = try #require(explorer.scenarioText(for: report))
    #expect(text.contains("fired: {'$between': [0, 1]}"), "\(text)")
    let results = try run(text, modules: [module])
    let message = results.first?.failure?.message ?? ""
    #expect(message.contains("the frames do not match"), "\(message)\n\(text)")
    // Without the rule, a timer firing twice breaks nothing explore knows of.
    #expect(try explore(module).1.failure == nil)
  }

  /// An invariants file with a mistake says where and what to do.
  @Test(arguments: [
    ("always:\n  plante:\n    fired: 1\n", "2:3: no screen 'plante'. Did you mean 'planted'?"),
    ("always:\n  planted: 3\n", "2:12: the invariant of 'planted' is a mapping of frame fields"),
    ("alway:\n  planted: {fired: 1}\n", "1:1: unknown key 'alway' in an invariants file. Did you mean 'always'?"),
    ("description: x\n", "1:1: missing `always:`"),
    (
      "always:\n  catalog: {matchs: 1}\n", "2:13: screen 'catalog' has no frame field 'matchs'. Did you mean 'matches'?"
    ),
    ("- 1\n", "1:1: an invariants file is a mapping with `always:`, not a list"),
  ])
  func aBrokenInvariantsFileSaysWhere(text: String, said: String) throws {
    let loader = try ScenarioLoader(modules: [PlantedModule(bug: nil), CatalogModule()])
    #expect(throws: (any Error).self) {
      try loader.loadInvariants(bytes: Array(text.utf8), path: "/tmp/always.yaml")
    }
    do {
      _ = try loader.loadInvariants(bytes: Array(text.utf8), path: "/tmp/always.yaml")
    } catch {
      #expect("\(error)".hasPrefix("/tmp/always.yaml:" + said), "\(error)")
    }
  }

  /// Without a planted bug, nothing is found: the numbers `draw` takes from outside differ on
  /// every ask, and the second run of each session is served the first's.
  @Test func aSoundModuleGivesNothing() throws {
    let drawsBefore = plantedDraws
    let (_, report) = try explore(PlantedModule(bug: nil))
    #expect(plantedDraws > drawsBefore, "no session drew")
    #expect(report.failure == nil, "\(String(describing: report.failure))")
    #expect(report.sessions == 50)
    #expect(report.steps == 50 * 20)
  }

  /// Fixed seeds, and one new one a run (each case's argument names it).
  nonisolated static let seeds: [UInt64] = [7, 0x5EED_0039, UInt64.random(in: 1...UInt64(UInt32.max))]

  /// Determinism as a property: for any seed, exploring twice runs the same sessions and finds
  /// and shrinks the same; dealt out in three parts (as `--jobs 3` deals them), the lowest
  /// failing session of the parts, shrunk, is what one run found, and a sound module's parts add
  /// up to one run's counts.
  @Test(arguments: seeds) func theSameSeedFindsTheSameInOneRunOrInParts(seed: UInt64) throws {
    for bug in [PlantedModule.Bug.refusalChangesState, .staleWindow, nil] {
      let said = "seed \(seed), bug \(bug.map { "\($0)" } ?? "none")"
      let (explorer, one) = try explore(PlantedModule(bug: bug), seed: seed)
      let (_, two) = try explore(PlantedModule(bug: bug), seed: seed)
      #expect(one.sessions == two.sessions && one.steps == two.steps && one.refused == two.refused, "\(said)")
      #expect(one.failure == two.failure, "\(said)")
      #expect(one.shrunk?.steps.map(\.line) == two.shrunk?.steps.map(\.line), "\(said)")
      var lowest: Int?
      var parts = Explorer.Report()
      for part in 0..<3 {
        let failing = explorer.explore(part: part, of: 3) { _, outcome in parts.add(outcome) }
        if let run = failing?.run { lowest = min(lowest ?? run, run) }
      }
      guard let lowest else {
        #expect(one.failure == nil, "\(said): one run found what the parts did not")
        #expect(parts.sessions == one.sessions && parts.steps == one.steps && parts.checks == one.checks, "\(said)")
        continue
      }
      let finished = explorer.finish(Explorer.Report(), failingRun: lowest)
      #expect(finished.failingSeed == one.failingSeed, "\(said)")
      #expect(finished.failure == one.failure, "\(said)")
      #expect(finished.shrunk?.steps.map(\.line) == one.shrunk?.steps.map(\.line), "\(said)")
      #expect(finished.shrunk?.windows.map(\.name) == one.shrunk?.windows.map(\.name), "\(said)")
    }
  }

  /// A session moved back in time and forward again is the same session: on the editor, an
  /// `undo view` in a window that is not the focused one, then a move back over it and forward
  /// again (the journal replayed the undo in the focused window, and the title came back). The
  /// shrunk session explore found at seed 1, and explore over those screens, pass with moves
  /// compared.
  @Test func aMoveBackAndForwardInTimeIsTheSameSession() throws {
    let registry = try ModuleRegistry(modules: BuiltInModules.builtInModules)
    var options = Explorer.Options()
    options.screens = ["editor"]
    options.runs = 60
    let explorer = Explorer(registry: registry, options: options)
    let here = SourceLocation(file: "<test>", line: 1, column: 1)
    let windows = ["w1", "w2"].map { WindowSeed(name: $0, screen: "editor", document: "notes", location: here) }
    var session = try explorer.session(windows: windows, reading: [("w1", "title the"), ("w1", "undo view")])
    session.travel = 2
    let outcome = explorer.check(session, secondRun: false)
    #expect(outcome.failure == nil, "\(outcome.failure?.detail ?? "")")
    #expect(outcome.travels == 1)
    let report = explorer.explore()
    #expect(report.failure == nil, "\(report.failure?.detail ?? "")")
    #expect(report.travels > 0)
    // Its failure is written as a scenario that travels where explore did.
    var failed = Explorer.Report()
    failed.failure = Explorer.Failure(property: .travelIsSame, step: 1, detail: "", windows: ["w1"])
    failed.original = session
    failed.shrunk = session
    let text = try #require(explorer.scenarioText(for: failed))
    #expect(
      text.contains("  - w1: undo view\n  - do: travel back 2\n  - do: travel forward 2\n  - expect:\n"), "\(text)")
    let file = try ScenarioLoader(registry: registry).load(bytes: Array(text.utf8), path: "<written>")
    #expect(file.scenarios.allSatisfy { ScenarioRunner(registry: registry).run($0).passed }, "\(text)")
  }

  private func explore(
    _ module: PlantedModule, invariants: [Invariant] = [], seed: UInt64 = 7, runs: Int = 50
  ) throws -> (
    Explorer, Explorer.Report
  ) {
    var options = Explorer.Options()
    options.invariants = invariants
    options.seed = seed
    options.runs = runs
    options.steps = 20
    let registry = try ModuleRegistry(modules: [module])
    let explorer = Explorer(registry: registry, options: options)
    let report = explorer.explore()
    // Every file explore writes loads.
    if report.failure != nil, let written = explorer.written(for: report) {
      #expect(throws: Never.self) {
        _ = try ScenarioLoader(registry: registry).load(bytes: Array(written.text.utf8), path: "<written>")
      }
      #expect(!written.text.contains("# This file does not load"), "\(written.text)")
    }
    return (explorer, report)
  }

  private func run(_ text: String, modules: [any FeatureModule]) throws -> [ScenarioResult] {
    let loader = try ScenarioLoader(modules: modules)
    let file = try loader.load(bytes: Array(text.utf8), path: "/tmp/explore-test.yaml")
    let runner = ScenarioRunner(modules: modules)
    return file.scenarios.map { runner.run($0) }
  }

  /// A written file "fails the same way" only where explore put the finding (its last step) and
  /// in the finding's window; one that fails at another step, or in another window, is not
  /// passed off as the finding's regression test.
  @Test func aFileThatFailsAnotherWayIsNotCalledTheFinding() throws {
    let registry = try ModuleRegistry(modules: [CatalogModule()])
    let explorer = Explorer(registry: registry, options: Explorer.Options())
    let finding = Explorer.Failure(property: .rebuiltIsSame, step: 1, detail: "", windows: ["left"])
    let file = { (steps: String) in
      """
      scenario: written
      documents:
        shelf: {kind: catalog, books: []}
      windows:
        left: catalog shelf
        right: catalog shelf
      steps:
      \(steps)
      """
    }
    let expectLeft = "  - left: sort reverse\n  - expect:\n      left: {total: 3}\n"
    #expect(explorer.runnerOutcome(file(expectLeft), of: finding) == .failsAsFound)
    let refusedBefore = "  - left: select 99\n  - expect:\n      left: {total: 3}\n"
    guard case .failsOtherwise(let how) = explorer.runnerOutcome(file(refusedBefore), of: finding) else {
      Issue.record("a refusal before the expectation passed for the finding")
      return
    }
    #expect(how == "at line 8, `left: select 99`: no book with id 99", "\(how)")
    let otherWindow = "  - left: sort reverse\n  - expect:\n      right: {total: 3}\n"
    guard case .failsOtherwise(let where_) = explorer.runnerOutcome(file(otherWindow), of: finding) else {
      Issue.record("a failure in another window passed for the finding")
      return
    }
    #expect(where_.hasSuffix(", not in left"), "\(where_)")
    #expect(explorer.runnerOutcome(file("  - expect:\n      left: {total: 0}\n"), of: finding) == .passes)
    guard case .doesNotLoad = explorer.runnerOutcome(file("  - left: nosuch\n"), of: finding) else {
      Issue.record("a file that does not load was run")
      return
    }
  }

  /// Session time that matters to a module: waits are drawn on the scales of the timers pending
  /// (the next one exactly, and multiples of it) and of a day, never past the horizon (explore
  /// once let no more than 22 s pass in 100 sessions, and never fired a daily timer). Not a
  /// day while a timer is due within 86.4 s: a day would fire one that sets itself again more
  /// than a thousand times (a window ticking every second took 86,400 round trips to its module
  /// in each run, and 5 sessions took 34 s).
  @Test func waitsAreDrawnOnTheTimersScalesUpToTheHorizon() throws {
    let registry = try ModuleRegistry(modules: BuiltInModules.builtInModules)
    let here = SourceLocation(file: "<test>", line: 1, column: 1)
    let seed = WindowSeed(name: "f", screen: "feed", document: "account", location: here)
    for horizon in [Explorer.Options().horizon, .seconds(3600)] {
      var options = Explorer.Options()
      options.horizon = horizon
      let explorer = Explorer(registry: registry, options: options)
      let live = try explorer.start(try explorer.session(windows: [seed], reading: []))
      let next = try #require(live.host.clock.untilNextTimer, "the feed loads as it opens")
      var random = SplitMix64(seed: 11)
      let drawn = (0..<400).map { _ in explorer.wait(in: live, &random) }
      let durations = drawn.compactMap(SessionClock.parseDuration)
      #expect(durations.count == drawn.count, "\(drawn)")
      #expect(durations.allSatisfy { $0 <= horizon && $0 <= next * 1000 }, "\(drawn)")
      #expect(durations.contains(next), "\(next) never drawn: \(Set(drawn))")
      // Its load done, nothing is due: a day is drawn where the horizon lets it.
      _ = try live.host.run(line: "settle")
      #expect(live.host.clock.untilNextTimer == nil)
      let later = (0..<400).compactMap { _ in SessionClock.parseDuration(explorer.wait(in: live, &random)) }
      #expect(later.contains(.seconds(86_400)) == (horizon >= .seconds(86_400)), "\(Set(later))")
    }
  }

  /// The ledger's feed asks the network and starts a load as it opens: opened again, it is
  /// served the answers the session took and catches up with its load at once, so it is rebuilt
  /// and compared like any window (it was never opened again before: `notReopened: [feed]`).
  @Test func theFeedIsOpenedAgainServedWhatItTook() throws {
    var options = Explorer.Options()
    options.screens = ["feed"]
    options.seed = 1
    options.runs = 40
    let explorer = Explorer(registry: try ModuleRegistry(modules: BuiltInModules.builtInModules), options: options)
    #expect(explorer.screensNotReopened.isEmpty, "\(explorer.whyNotReopened)")
    let report = explorer.explore()
    #expect(report.failure == nil, "\(String(describing: report.failure))")
    #expect(report.rebuilds > 50, "\(report.rebuilds)")
    #expect(report.endedAtRebuild == 0, "\(report.endedAtRebuildWhy ?? "")")
  }

  /// `reopen` in a settled session: the feed shows at once the rows it showed, loaded, served the
  /// answer the session took, without the network counting another request; opened while a
  /// load waits, it starts that load again on the clock.
  @Test func aFeedOpenedAgainIsServedWhatItTookAndCatchesUp() throws {
    let text = """
      scenario: the feed opened again
      windows:
        main:
          screen: feed
          document: account
      steps:
        - main: search rent
        - do: settle
        - expect:
            main: {state: loaded, query: rent, count: 1, serverRequests: 1}
        - do: reopen
        - expect:
            main: {state: loaded, query: rent, count: 1, serverRequests: 1}
        - main: search coffee
        - do: reopen
        - expect:
            main: {state: loading, query: coffee}
        - do: settle
        - expect:
            main: {state: loaded, query: coffee, rows: [48]}

      """
    let results = try run(text, modules: BuiltInModules.builtInModules)
    #expect(results.count == 1)
    #expect(results.allSatisfy { $0.failure == nil }, "\(results.map { $0.failure?.message ?? "" })")
  }

  /// A screen whose windows are not opened again says why, in words a module author can act on:
  /// one that starts, as it opens, a timer that sets itself again at once.
  @Test func aScreenNotOpenedAgainSaysWhy() throws {
    var options = Explorer.Options()
    options.screens = ["planted"]
    let explorer = Explorer(
      registry: try ModuleRegistry(modules: [PlantedModule(bug: .loopsAsItOpens)]), options: options)
    #expect(explorer.screensNotReopened == ["planted"])
    let why = explorer.whyNotReopened
    #expect(why.map(\.screen) == ["planted"])
    #expect(why.first?.reason.hasPrefix("opened again, it") == true, "\(why)")
    let sound = Explorer(registry: try ModuleRegistry(modules: [PlantedModule(bug: nil)]), options: options)
    #expect(sound.screensNotReopened.isEmpty, "\(sound.whyNotReopened)")
  }

  /// Two frames that differ deep inside are told apart where they differ, not cut at a prefix
  /// both share.
  @Test func aDifferenceIsShownWhereItIs() {
    let card: (Int, String) -> FrameValue = { ["id": .integer($0), "title": .string($1)] }
    let board: (String) -> FrameValue = { title in
      [
        "columns": [
          ["id": "todo", "cards": [card(1, "Write the protocol"), card(2, "Check a module")]],
          ["id": "doing", "cards": [card(3, title)]],
        ],
        "selected": 1,
      ]
    }
    #expect(
      Explorer.difference(board("a"), board("b"), first: "where they stayed open", second: "opened again")
        == #": columns[1].cards[0].title "a" where they stayed open, "b" opened again"#)
    var longer = board("a")
    if case .object(var object) = longer, case .list(var columns)? = object["columns"] {
      columns.append(["id": "done", "cards": []])
      object["columns"] = .list(columns)
      longer = .object(object)
    }
    #expect(Explorer.difference(board("a"), longer) == #": columns[2] nothing, then {"id":"done","cards":[]}"#)
    #expect(Explorer.difference(board("a"), board("a")) == "")
  }
}

/// Sessions of the planted module so far, in this process: what a divergent replay reads.
@MainActor private var plantedSessions = 0
/// Draws so far, in this process: a source outside the session (a network, a device) that
/// answers differently every time it is asked.
@MainActor private var plantedDraws = 0

/// A count with a step, and the bug asked for.
private struct PlantedModule: FeatureModule {
  enum Bug {
    case refusalChangesState, divergentReplay, staleWindow, timerFiresTwice, factOfAnotherSession
    /// A refused `bump` leaves a carry in the screen model, beside its view state, which the
    /// next `step` adds: nothing shows it until then.
    case refusalLeavesACarry
    /// A window takes in a new count only when it is higher: an undo of a bump is lost on it.
    case undoKeepsTheHighest
    /// As it opens, a window starts a timer that sets itself again at once, without end.
    case loopsAsItOpens
  }
  let bug: Bug?

  struct Count: DocumentBody { var value: Int }
  struct View: ViewStateValue {
    var step = 1
    var refusals = 0
    /// What the last `draw` took from outside: shown, so kept where a window opened again finds it.
    var drawn = 0
  }

  @MainActor final class PlantedScreen: ScreenModel {
    var document: Count
    var view: View
    let bug: Bug?
    var session = 0
    /// How often the alarm went off since the last `ring`, and the one pending.
    var fired = 0
    /// The `refusalLeavesACarry` bug's carry, kept in the model.
    var carry = 0
    var alarm: Cancellation?
    var clock: (any SessionTime)?
    var facts: (any OutsideFacts)?

    init(document: Count, viewState: View, environment: ScreenEnvironment) {
      self.document = document
      self.view = viewState
      self.bug = nil
    }

    init(document: Count, bug: Bug?, services: SessionServices) {
      self.document = document
      self.view = View()
      self.bug = bug
      self.clock = services.clock
      self.facts = services.facts
      plantedSessions += 1
      session = plantedSessions
      if bug == .loopsAsItOpens { loop() }
    }

    func loop() {
      alarm = clock?.schedule(after: .zero) { [weak self] in self?.loop() }
    }

    /// The alarm and what it drew are each window's own.
    static var ownFields: [String] { ["fired", "drawn"] }
    /// How often the alarm went off is about the window's life: one opened again has heard none.
    static var lifetimeFields: [String] { ["fired"] }

    func documentReplaced(_ document: Count) {
      // The bug: only the window that made the change sees it (`bump` sets its own).
      if bug == .undoKeepsTheHighest, document.value < self.document.value { return }
      if bug != .staleWindow { self.document = document }
    }

    func ring() {
      // The bug: the alarm already set is not cancelled, so both go off.
      if bug != .timerFiresTwice { alarm?.cancel() }
      fired = 0
      alarm = clock?.schedule(after: .milliseconds(100)) { [weak self] in self?.fired += 1 }
    }

    /// Takes a number from outside, as a fact of the window's (`window`: the window's number),
    /// so a recording keeps it. The bug: the fact is kept under the session's number instead,
    /// which a replay does not have.
    func draw(window: Int) {
      let scope = "window \(bug == .factOfAnotherSession ? session : window)"
      view.drawn =
        facts?.value(of: "draw", in: scope) {
          plantedDraws += 1
          // Past every range a command takes (a step is 1 to 5): explore's guided arguments,
          // taken from what windows show, then fare alike whatever was drawn before (small
          // draws made one exploration's refusals differ from another's of the same seed).
          return .integer(1000 + plantedDraws)
        }.integerValue ?? 0
    }
    func restore(_ viewState: View) { view = viewState }
    var viewState: View { view }

    var frame: FrameValue {
      var members: [(key: String, value: FrameValue)] = [
        ("value", .integer(document.value)), ("step", .integer(view.step)), ("refusals", .integer(view.refusals)),
        ("fired", .integer(fired)), ("drawn", .integer(view.drawn)),
      ]
      if bug == .divergentReplay, view.step == 3 { members.append(("opened", .integer(session))) }
      return .object(FrameObject(members: members))
    }
  }

  static let step = Argument<Int>.integer("size", in: 1...5)

  var manifest: ModuleManifest { ModuleManifest(name: "planted", version: "1.0", summary: "a count") }

  @MainActor func register(into registrar: Registrar) {
    let bug = self.bug
    registrar.documentKind(Count.self, name: "count", summary: "a number", samples: ["tally": Count(value: 0)])
    registrar.screen(
      name: "planted", documentKind: "count", summary: "shows the count", render: { $0.jsonText },
      make: { (document: Count, _: View, environment: ScreenEnvironment) in
        PlantedScreen(document: document, bug: bug, services: environment.services)
      })
    registrar.command(
      CommandSpec("step", arguments: [Self.step], summary: "set the step", scope: .window(screens: ["planted"])) {
        context in
        let screen = try context.model(PlantedScreen.self)
        screen.view.step = min(5, context.arguments[Self.step] + screen.carry)
        screen.carry = 0
        return .frame(try context.requireWindow().id)
      })
    registrar.command(
      CommandSpec("bump", summary: "add the step", scope: .window(screens: ["planted"])) { context in
        let screen = try context.model(PlantedScreen.self)
        guard screen.document.value + screen.view.step <= 12 else {
          // The bug: the count is set back, then the command says it was refused.
          if bug == .refusalChangesState { try context.commit(Count(value: 0), summary: "reset") }
          if bug == .refusalLeavesACarry { screen.carry = 1 }
          throw CommandError("the count stops at 12")
        }
        let bumped = Count(value: screen.document.value + screen.view.step)
        try context.commit(bumped, summary: "bump")
        screen.document = bumped
        return .frame(try context.requireWindow().id)
      })
    registrar.command(
      CommandSpec("draw", summary: "take a number from outside", scope: .window(screens: ["planted"])) { context in
        let window = try context.requireWindow().id
        try context.model(PlantedScreen.self).draw(window: window.number)
        return .frame(window)
      })
    registrar.command(
      CommandSpec("ring", summary: "set the alarm", scope: .window(screens: ["planted"])) { context in
        try context.model(PlantedScreen.self).ring()
        return .frame(try context.requireWindow().id)
      })
  }
}

extension Explorer {
  /// A session of `windows` whose steps are given as text (a step's window, `nil` for a step of
  /// the session's, and its command): each read once against the windows the session will have
  /// open, as a scenario's steps are, and kept as values, as explore draws them.
  ///
  /// - Throws: `CommandError` for a step that does not read as one command that binds.
  func session(windows: [WindowSeed], reading lines: [(window: String?, line: String)]) throws(CommandError)
    -> Session
  {
    var planned = PlannedWindows()
    for window in windows { planned.open(window.name, screen: window.screen) }
    let resolver = CommandResolver(registry: registry)
    var steps: [DrawnStep] = []
    for (window, line) in lines {
      let commands: [[CommandToken]]
      do {
        commands = try CommandTokenizer.commands(in: line)
      } catch {
        throw CommandError(error.message, column: error.column, isUsageError: true)
      }
      guard commands.count == 1 else { throw CommandError("a step of a session is one command: \(line)") }
      planned.current = window.flatMap { planned.findWindow(named: $0) }
      let bound = try resolver.bind(try resolver.resolve(commands[0], in: planned, window: window), in: planned)
      if let change = resolver.windowChange(of: bound) { planned.apply(change) }
      steps.append(DrawnStep(window: window, call: bound.call))
    }
    return Session(windows: windows, steps: steps)
  }
}
