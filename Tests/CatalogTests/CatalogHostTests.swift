import Catalog
import Testing
import WorkbenchCore

/// The catalog through the host's command language, as the shell and scenarios drive it.
@MainActor
@Suite struct CatalogHostTests {
  let host: Host

  init() throws {
    host = try Host(modules: [CatalogModule()])
    _ = try host.run(line: "open catalog library left; open catalog library right")
  }

  private func frame(_ window: String) -> FrameValue { host.window(named: window)?.frame ?? .null }
  private func rows(_ window: String) -> [Int] {
    frame(window)["rows"]?.elements?.compactMap { $0["id"]?.integerValue } ?? []
  }
  private func failure(_ line: String) -> String? {
    do {
      _ = try host.run(line: line)
      return nil
    } catch {
      return error.message
    }
  }

  @Test func twoWindowsOnOneCatalogKeepTheirOwnViewState() throws {
    _ = try host.run(line: "@left select 2; @left query the")
    #expect(frame("left")["selected"] == 2)
    #expect(frame("right")["selected"] == .null)
    #expect(frame("right")["query"] == "")
    #expect(rows("left") == [1, 3, 6, 10, 15, 25, 29])
  }

  @Test func editsInOneWindowReachTheOther() throws {
    _ = try host.run(line: "@right select 4; @left remove 4")
    #expect(frame("right")["selected"] == .null)
    #expect(!rows("right").contains(4))
    _ = try host.run(line: "@left add Dune Messiah")
    #expect(frame("right")["total"] == 30)
    #expect(host.document(named: "library")?.revision == 3)
  }

  @Test func undoingARenameKeepsTheSearch() throws {
    _ = try host.run(line: "@left query swift; @left rename 1 Swift in Depth")
    #expect(frame("left")["rows"]?.elements?.first?["title"] == "Swift in Depth")
    _ = try host.run(line: "@left undo")
    #expect(frame("left")["query"] == "swift")
    #expect(frame("left")["rows"]?.elements?.first?["title"] == "The Swift Programming Language")
    #expect(frame("right")["rows"]?.elements?.first?["title"] == "The Swift Programming Language")
  }

  @Test func viewUndoStepsBackThroughTheWindowsOwnChanges() throws {
    _ = try host.run(line: "@left query a; @left query ab; @left select 3")
    _ = try host.run(line: "@left undo view")
    #expect(frame("left")["selected"] == .null)
    _ = try host.run(line: "@left undo view")
    #expect(frame("left")["query"] == "a")
    #expect(frame("right")["query"] == "")
  }

  @Test func badInputIsRejectedWithAMessageAndChangesNothing() throws {
    let before = (frame("left"), frame("right"), host.document(named: "library")?.revision)
    #expect(failure("@left select 999") == "no book with id 999")
    #expect(failure("@left select two") == "ID must be a book id (a whole number), not 'two'")
    #expect(failure("@left rename 2") == "missing TITLE. Usage: rename ID TITLE...")
    #expect(failure("@left rename 2 \"   \"") == "book 2 has an empty title: every book needs one")
    #expect(failure("@left move 2 99") == "POSITION must be between 1 and 30, not 99")
    #expect(failure("@left only-selected maybe")?.hasPrefix("SWITCH must be one of on, off") == true)
    #expect(failure("@nowhere select 1")?.hasPrefix("no window 'nowhere'") == true)
    #expect((frame("left"), frame("right"), host.document(named: "library")?.revision) == before)
  }

  @Test func completionOffersBookIds() {
    #expect(host.completions(for: "select 2").prefix(3) == ["2", "20", "21"])
  }
}
