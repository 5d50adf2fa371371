import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Two shells on one workspace, each on a terminal of its own, as a person with two tmux panes
/// has them: the last to quit overwrote the windows the other had saved.
@Suite(.serialized) struct TwoShellsTests {
  @Test func eachShellsWindowsAreKeptWhicheverQuitsLast() throws {
    let folder = makeTemporaryFolder()
    let environment = PseudoTerminalSession.environment(folder)
    let first = try #require(PseudoTerminalSession(environment: environment))
    #expect(first.waitFor("workbench> "))
    first.type("open catalog library left\r")
    #expect(first.waitFor("left catalog:library> "))

    // The second starts with what the first saved, and each opens a window of its own: both
    // are window 2.
    let second = try #require(PseudoTerminalSession(environment: environment))
    #expect(second.waitFor("left catalog:library> "), "\(second.screen().debugDescription)")
    second.type("open catalog library right\r")
    #expect(second.waitFor("right catalog:library> "))
    var mark = first.transcript.count
    first.type("open catalog library notes\r")
    #expect(first.waitFor("notes catalog:library> ", after: mark))

    // The second quits first; the first, quitting last, used to save over it.
    second.type("quit\r")
    #expect(second.exitStatus() == 0)
    mark = first.transcript.count
    first.type("quit\r")
    #expect(first.exitStatus() == 0, "\(first.screen(from: mark).debugDescription)")

    // The next start has the three windows, and says which number changed: the first saved
    // last, so its window 2 keeps the number and the second's becomes 3.
    let next = try #require(PseudoTerminalSession(environment: environment))
    #expect(next.waitFor("> "))
    next.type("windows\r")
    for name in ["[1 left]", "[2 notes]", "[3 right]"] {
      #expect(next.waitFor(name), "\(next.screen().debugDescription)")
    }
    #expect(next.waitFor("two windows were saved as window 2"), "\(next.screen().debugDescription)")
    next.type("quit\r")
    #expect(next.exitStatus() == 0)
  }
}
