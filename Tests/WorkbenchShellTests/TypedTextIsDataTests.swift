import Testing
import WorkbenchTestSupport

/// What a user typed is data, whatever words it holds (see SessionSecretsTests for the store).
struct TypedTextIsDataTests {
  /// In the interactive shell: a query with the marker's words and an editor's kept draft both
  /// come back at the next start.
  @Test func aQueryWithTheMarkersWordsSurvivesQuitKeep() throws {
    let folder = makeTemporaryFolder()
    let environment: [String: String?] = [
      "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state", "WORKBENCH_NO_COLOR": "1",
    ]
    let first = try #require(PseudoTerminalSession(environment: environment))
    #expect(first.waitFor("workbench> "))
    first.type("open catalog library c\r")
    #expect(first.waitFor("c catalog:library> "))
    first.type("query workbench:secret:not-storable\r")
    #expect(first.waitFor("c catalog:library> ", after: first.transcript.count - 1))
    first.type("open editor notes e\r")
    #expect(first.waitFor("e editor:notes> "))
    let mark = first.transcript.count
    first.type("append kept for later\r")
    #expect(first.waitFor("e editor:notes> ", after: mark))
    first.type("quit keep\r")
    #expect(first.exitStatus() == 0, "\(first.screen())")
    #expect(!first.screen().contains("not saved"), "\(first.screen())")
    let again = try #require(PseudoTerminalSession(environment: environment))
    #expect(again.waitFor("e editor:notes> "), "\(again.screen())")
    again.type("windows\r")
    #expect(again.waitFor("[2 e]"), "\(again.screen())")
    again.type("state c\r")
    #expect(again.waitFor("workbench:secret:not-storable"), "\(again.screen())")
    again.type("lines\r")
    #expect(again.waitFor("kept for later"), "\(again.screen())")
    again.type("quit discard\r")
    #expect(again.exitStatus() == 0)
  }
}
