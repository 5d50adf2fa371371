import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSession

/// A session runs a line's commands as they were read (a scenario's step, read by the loader;
/// a journal's step, as the words ran), without writing them out and reading them again.
@MainActor
@Suite struct SessionLineTests {
  private func session() throws -> WorkbenchSession {
    let registry = try ModuleRegistry(modules: builtInModules)
    let session = WorkbenchSession(registry: registry, environment: ScreenEnvironment())
    try session.run("open catalog library left", frontEnd: QuietFrontEnd())
    return session
  }

  /// Commands given with the line are what runs: the line only names it.
  @Test func commandsReadAlreadyAreWhatRuns() throws {
    let session = try session()
    let read = try CommandTokenizer.commands(in: "select 3")
    try session.run("select 2", commands: read, in: "left", frontEnd: QuietFrontEnd())
    #expect(session.host.window(named: "left")?.frame["selected"] == .integer(3))
  }

  /// A title with every character the command line gives a meaning to comes back whole when
  /// time travel replays the step that added it: the journal keeps the words as they ran.
  @Test func theJournalReplaysTheWordsAsTheyRan() throws {
    let session = try session()
    session.journal = try SessionJournal(startingAt: session)
    let title = #"a; b "c" # d \e @left 'f'"#
    try session.run("add \(CommandTokenizer.quoted(title))", in: "left", frontEnd: QuietFrontEnd())
    try session.run("select 31", in: "left", frontEnd: QuietFrontEnd())
    let before = session.host.window(named: "left")?.frame
    #expect(before?["detail"]?["title"] == .string(title))
    try session.run("travel back 2", frontEnd: QuietFrontEnd())
    #expect(session.host.window(named: "left")?.frame["selected"] == .null)
    try session.run("travel forward 2", frontEnd: QuietFrontEnd())
    #expect(session.host.window(named: "left")?.frame == before)
  }
}
