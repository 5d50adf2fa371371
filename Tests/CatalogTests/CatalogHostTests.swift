import Catalog
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

/// The catalog through the host's command language, as the shell and scenarios drive it.
@MainActor
@Suite struct CatalogHostTests {
  let host: Host

  init() throws {
    host = try Host(modules: [CatalogModule()])
    _ = try host.run(line: "open catalog library left; open catalog library right")
  }

  private func rows(_ window: String) -> [Int] {
    host.frame(of: window)["rows"]?.elements?.compactMap { $0["id"]?.integerValue } ?? []
  }

  @Test func twoWindowsOnOneCatalogKeepTheirOwnViewState() throws {
    _ = try host.run(line: "@left select 2; @left query the")
    #expect(host.frame(of: "left")["selected"] == 2)
    #expect(host.frame(of: "right")["selected"] == .null)
    #expect(host.frame(of: "right")["query"] == "")
    #expect(rows("left") == [1, 3, 6, 10, 15, 25, 29])
  }

  @Test func editsInOneWindowReachTheOther() throws {
    _ = try host.run(line: "@right select 4; @left remove 4")
    #expect(host.frame(of: "right")["selected"] == .null)
    #expect(!rows("right").contains(4))
    _ = try host.run(line: "@left add Dune Messiah")
    #expect(host.frame(of: "right")["total"] == 30)
    #expect(host.document(named: "library")?.revision == 3)
  }

  @Test func undoingARenameKeepsTheSearch() throws {
    _ = try host.run(line: "@left query swift; @left rename 1 Swift in Depth")
    #expect(host.frame(of: "left")["rows"]?.elements?.first?["title"] == "Swift in Depth")
    _ = try host.run(line: "@left undo")
    #expect(host.frame(of: "left")["query"] == "swift")
    #expect(host.frame(of: "left")["rows"]?.elements?.first?["title"] == "The Swift Programming Language")
    #expect(host.frame(of: "right")["rows"]?.elements?.first?["title"] == "The Swift Programming Language")
  }

  @Test func viewUndoStepsBackThroughTheWindowsOwnChanges() throws {
    _ = try host.run(line: "@left query a; @left query ab; @left select 3")
    _ = try host.run(line: "@left undo view")
    #expect(host.frame(of: "left")["selected"] == .null)
    _ = try host.run(line: "@left undo view")
    #expect(host.frame(of: "left")["query"] == "a")
    #expect(host.frame(of: "right")["query"] == "")
  }

  @Test func badInputIsRejectedWithAMessageAndChangesNothing() throws {
    let before = (host.frame(of: "left"), host.frame(of: "right"), host.document(named: "library")?.revision)
    #expect(host.failure("@left select 999") == "no book with id 999")
    #expect(host.failure("@left select two") == "ID must be a book id (a whole number), not 'two'")
    #expect(host.failure("@left rename 2") == "missing TITLE. Usage: rename ID TITLE...")
    #expect(host.failure("@left rename 2 \"   \"") == "book 2 has an empty title: every book needs one")
    #expect(host.failure("@left move 2 99") == "POSITION must be between 1 and 30, not 99")
    #expect(host.failure("@left only-selected maybe")?.hasPrefix("SWITCH must be one of on, off") == true)
    #expect(host.failure("@nowhere select 1")?.hasPrefix("no window 'nowhere'") == true)
    #expect((host.frame(of: "left"), host.frame(of: "right"), host.document(named: "library")?.revision) == before)
  }

  @Test func completionOffersBookIds() {
    #expect(host.completions(for: "select 2").prefix(3) == ["2", "20", "21"])
  }
}
