import Editor
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

@Suite struct TextDocumentTests {
  @Test func titlesAreValidated() {
    #expect(throws: TextValidationError("the title is empty: give the document a title")) {
      try TextDocument(title: "  ", lines: [])
    }
    let long = String(repeating: "t", count: TextDocument.maximumTitleLength + 1)
    #expect(throws: TextValidationError.self) { try TextDocument(title: long, lines: []) }
    #expect(throws: TextValidationError.self) { try TextDocument(title: "T", lines: ["a\nb"]) }
  }
}

/// The editor through the host: drafts, the save use case, conflicts and their resolution.
@MainActor
@Suite struct EditorTests {
  let host: Host

  init() throws {
    host = try Host(modules: [EditorModule()])
    try host.seedDocument(named: "doc", kind: "text", json: Array(#"{"title": "Doc", "lines": ["one", "two"]}"#.utf8))
    _ = try host.run(line: "open editor doc first; open editor doc second")
  }

  private func lines(_ window: String) -> [String] {
    host.frame(of: window)["lines"]?.elements?.compactMap { $0["text"]?.stringValue } ?? []
  }

  @Test func editsStayInTheDraftUntilSaved() throws {
    _ = try host.run(line: "@first append three; @first replace 1 ONE; @first insert 1 zero; @first delete 3")
    #expect(lines("first") == ["zero", "ONE", "three"])
    #expect(host.frame(of: "first")["dirty"] == true)
    #expect(host.frame(of: "first")["baseRevision"] == 1)
    #expect(lines("second") == ["one", "two"])  // no leak into another window
    #expect(host.document(named: "doc")?.revision == 1)
    _ = try host.run(line: "@first save")
    #expect(lines("second") == ["zero", "ONE", "three"])
    #expect(host.frame(of: "first")["dirty"] == false)
    #expect(host.document(named: "doc")?.revision == 2)
  }

  @Test func saveRejectedByValidationKeepsTheDraft() throws {
    let long = String(repeating: "x", count: 81)
    #expect(host.failure("@first title \(long)")?.contains("the limit is 80") == true)
    _ = try host.run(line: "@first append more")
    #expect(host.failure("@second save") == "not saved: there are no changes to save")
    #expect(host.frame(of: "first")["dirty"] == true)
  }

  /// The seed's test: two editors of one revision; save the first, then the second.
  @Test func twoEditorsOfOneRevision() throws {
    _ = try host.run(line: "@first replace 1 from first; @second replace 2 from second")
    _ = try host.run(line: "@first save")
    let message = host.failure("@second save")
    #expect(message?.contains("the document moved to revision 2 since this draft started from revision 1") == true)
    #expect(host.document(named: "doc")?.revision == 2)
    #expect(lines("first") == ["from first", "two"])
    #expect(lines("second") == ["one", "from second"])  // the draft is kept
    #expect(host.frame(of: "second")["conflict"] == ["base": 1, "current": 2])

    guard case .text(let diff) = try host.run(line: "@second resolve diff").first else {
      Issue.record("no diff")
      return
    }
    // Removed lines come before added ones, as diff and git print them.
    let changed = diff.split(separator: "\n").filter { $0.hasPrefix("- ") || $0.hasPrefix("+ ") }
    #expect(changed == ["- from first", "- two", "+ one", "+ from second"], "\(diff)")

    _ = try host.run(line: "@second resolve keep")
    #expect(lines("first") == ["one", "from second"])
    #expect(host.frame(of: "second")["conflict"] == .null)
    #expect(host.document(named: "doc")?.revision == 3)
  }

  @Test func takingTheOtherVersionDropsTheDraft() throws {
    _ = try host.run(line: "@first append a; @second append b; @first save; @second resolve take")
    #expect(lines("second") == ["one", "two", "a"])
    #expect(host.frame(of: "second")["dirty"] == false)
  }

  @Test func badInputIsRefused() throws {
    #expect(host.failure("@first replace 9 x") == "there is no line 9: lines are numbered 1 to 2")
    #expect(host.failure("@first delete 2 1") == "the range 2-1 runs backwards")
    #expect(host.failure("@first insert 4 x") == "there is no line 4: lines are numbered 1 to 3")
    #expect(host.failure("@first resolve keep") == "there is no conflict to resolve in this window")
    #expect(host.failure("@first title \"\"") == "the title is empty: give the document a title")
    #expect(host.frame(of: "first")["dirty"] == false)
  }

  /// (Leaving the session with a draft, `quit`, is the shell's command: ShellQuitTests.)
  @Test func aDraftSurvivesARelaunchAndClosingNeedsAChoice() throws {
    _ = try host.run(line: "@first append kept")
    let record = try host.sessionRecord()
    let restored = try Host(modules: [EditorModule()], restoring: record)
    #expect(restored.window(named: "first")?.frame["lines"]?.elements?.count == 3)
    #expect(restored.window(named: "first")?.frame["dirty"] == true)
    #expect(
      try restored.results(line: "close first").map(\.request) == [
        .unsavedWork(windows: [WindowID(1)], quitting: false)
      ])
    #expect(restored.window(named: "first")?.frame["dirty"] == true)
  }
}
