import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
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

  /// Commands given bound with the line are what runs: the line only names it.
  @Test func commandsBoundAlreadyAreWhatRuns() throws {
    let session = try session()
    let resolver = session.host.resolver
    let directory = session.host.directory
    let tokens = try CommandTokenizer.commands(in: "select 3")[0]
    let bound = try resolver.bind(try resolver.resolve(tokens, in: directory, window: "left"), in: directory)
    try session.run("select 2", commands: [bound], frontEnd: QuietFrontEnd())
    #expect(session.host.window(named: "left")?.frame["selected"] == .integer(3))
  }

  /// A command bound against one session's windows finds its window again, by how it named it,
  /// in another session (as a scenario's plan runs in its session, and a journal's step in a
  /// replay): the window named `left` there, whatever its number, and its ids checked there.
  @Test func aBoundCommandFindsItsWindowByItsLabel() throws {
    let planned = try session()
    let resolver = planned.host.resolver
    let tokens = try CommandTokenizer.commands(in: "select 3")[0]
    let bound = try resolver.bind(
      try resolver.resolve(tokens, in: planned.host.directory, window: "left"), in: planned.host.directory)
    let other = try session()
    try other.run("open catalog library right; close left", frontEnd: QuietFrontEnd())
    // `left` is gone there: the command says so, as a line naming it would.
    #expect(throws: CommandError.self) { try other.run("x", commands: [bound], frontEnd: QuietFrontEnd()) }
    try other.run("open catalog library left", frontEnd: QuietFrontEnd())
    try other.run("x", commands: [bound], frontEnd: QuietFrontEnd())
    #expect(other.host.window(named: "left")?.frame["selected"] == .integer(3))
    #expect(other.host.window(named: "right")?.frame["selected"] == .null)
    // A window argument is the window of that label there too: `left` is window 1 where the
    // command was bound and window 3 here.
    let focus = try resolver.bind(
      try resolver.resolve(try CommandTokenizer.commands(in: "focus left")[0], in: planned.host.directory),
      in: planned.host.directory)
    #expect(planned.host.window(named: "left")?.id.number == 1)
    #expect(other.host.window(named: "left")?.id.number == 3)
    try other.run("focus right", frontEnd: QuietFrontEnd())
    try other.run("x", commands: [focus], frontEnd: QuietFrontEnd())
    #expect(other.host.focusedWindow?.label == "left")
    // An id the window's rows do not have is refused where it runs, as its word would be.
    let missing = try resolver.bind(
      try resolver.resolve(
        try CommandTokenizer.commands(in: "select 30")[0], in: planned.host.directory, window: "left"),
      in: planned.host.directory)
    try other.run("remove 30", in: "left", frontEnd: QuietFrontEnd())
    #expect(throws: CommandError.self) { try other.run("x", commands: [missing], frontEnd: QuietFrontEnd()) }
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
