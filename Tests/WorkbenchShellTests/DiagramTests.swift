import Testing
import WorkbenchTestSupport

/// Diagrams are drawn from the code; the ones the docs embed are checked against it.
@Suite struct DiagramTests {
  @Test func theLedgerDocsEmbedTheFeedMachineAsTheCodeDrawsIt() throws {
    let generated = ChildProcess.runWorkbench(["diagram", "feed"])
    #expect(generated.status == 0)
    let doc = try #require(readTextFile(repositoryRoot() + "/docs/modules/ledger.md"))
    #expect(
      doc.contains("```mermaid\n" + generated.stdout + "```\n"),
      "docs/modules/ledger.md is stale: paste the output of `workbench diagram feed` into its mermaid block")
  }

  @Test func theFeedMachineDiagramHasEveryTransitionOfTheTable() {
    let mermaid = ChildProcess.runWorkbench(["diagram", "feed"]).stdout
    for line in [
      "[*] --> idle", "idle --> loading: appeared", "loading --> empty: loadSucceeded (no rows)",
      "loading --> loaded: loadSucceeded (rows)", "loading --> failed: loadFailed", "failed --> loading: retryTapped",
      "loading --> loading: queryChanged",
    ] {
      #expect(mermaid.contains("  " + line + "\n"), "missing: \(line)")
    }
    #expect(!mermaid.contains("failed --> loading: queryChanged"))  // not a transition in the table
    let dot = ChildProcess.runWorkbench(["diagram", "feed", "--dot"]).stdout
    #expect(dot.hasPrefix("digraph \"the feed's state machine\" {"))
    #expect(dot.contains("\"failed\" -> \"loading\" [label=\"retryTapped\"];"))
  }

  @Test func theModulesDiagramAndErrors() {
    let modules = ChildProcess.runWorkbench(["diagram", "modules"]).stdout
    #expect(modules.hasPrefix("flowchart LR\n"))
    #expect(modules.contains("screen_feed -->|shows| document_ledger"))
    let unknown = ChildProcess.runWorkbench(["diagram", "fede"])
    #expect(unknown.status == 2)
    #expect(unknown.stderr.contains("no diagram 'fede'. Did you mean 'feed'?"))
    let list = ChildProcess.runWorkbench(["diagram"])
    #expect(list.status == 0)
    #expect(list.stdout.contains("feed     from the ledger module: the feed's state machine"))
  }
}
