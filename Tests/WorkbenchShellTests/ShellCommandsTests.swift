import BuiltInModules
import Testing
import WorkbenchSession

@testable import WorkbenchCore
@testable import WorkbenchModuleAPI
@testable import WorkbenchShell

/// The shell brings its own commands (`record`, `source`, `history`, `set`, `watch`, `quit`,
/// `exit`) to the sessions it runs; the core keeps only their names and why a session without
/// the shell refuses them.
@MainActor
struct ShellCommandsTests {
  /// A front end that keeps the questions it is asked and whether it was told to quit.
  final class Asked: SessionFrontEnd {
    var questions: [UnsavedWorkQuestion] = []
    var quitted = 0
    var requests: [FrontEndRequest] = []
    func show(_ output: CommandOutput, reports: Bool) throws(CommandError) {}
    func relaunched(warnings: [RestorationWarning]) throws(CommandError) {}
    func unsavedWork(_ question: UnsavedWorkQuestion) throws(CommandError) { questions.append(question) }
    func carryOut(_ request: FrontEndRequest) throws(CommandError) { requests.append(request) }
    func quit() throws(CommandError) { quitted += 1 }
    func problem(_ message: String) {}
  }

  /// The lines of the sample document the editor opens, before the draft adds one.
  static let savedLines = 3

  func sessionWithADraft() throws -> WorkbenchSession {
    let session = WorkbenchSession(
      registry: try ShellCommands.registry(modules: builtInModules), environment: ScreenEnvironment())
    try session.run("open editor notes e", frontEnd: QuietFrontEnd())
    #expect(lines(session) == Self.savedLines)
    try session.run("append a thought", frontEnd: QuietFrontEnd())
    #expect(session.host.window(named: "e")?.frame["dirty"] == true)
    return session
  }

  func lines(_ session: WorkbenchSession) -> Int? {
    session.host.window(named: "e")?.frame["lines"]?.elements?.count
  }

  @Test func quitWithoutAChoiceAsksAboutTheDraftAndDoesNotEnd() throws {
    let session = try sessionWithADraft()
    let asked = Asked()
    try session.run("quit", frontEnd: asked)
    #expect(asked.questions.map(\.windows) == [[WindowID(1)]])
    #expect(asked.questions.map(\.quitting) == [true])
    #expect(asked.quitted == 0)
  }

  @Test func quitKeepEndsWithTheDraftKept() throws {
    let session = try sessionWithADraft()
    let asked = Asked()
    try session.run("quit keep", frontEnd: asked)
    #expect(asked.questions.isEmpty && asked.quitted == 1)
    #expect(session.host.window(named: "e")?.frame["dirty"] == true)
  }

  @Test func quitDiscardAndExitSaveDoWhatTheySay() throws {
    let discarding = try sessionWithADraft()
    let asked = Asked()
    try discarding.run("quit discard", frontEnd: asked)
    #expect(asked.quitted == 1)
    #expect(discarding.host.window(named: "e")?.frame["dirty"] == false)
    #expect(lines(discarding) == Self.savedLines)

    let saving = try sessionWithADraft()
    try saving.run("exit save", frontEnd: asked)
    #expect(asked.quitted == 2)
    #expect(saving.host.window(named: "e")?.frame["dirty"] == false)
    #expect(lines(saving) == Self.savedLines + 1)
    #expect(saving.host.documents["notes"]?.revision == 2)
  }

  /// Nothing after `quit` on the line runs.
  @Test func nothingAfterQuitRuns() throws {
    let session = try sessionWithADraft()
    let asked = Asked()
    try session.run("quit keep; append more", frontEnd: asked)
    #expect(asked.quitted == 1)
    #expect(lines(session) == Self.savedLines + 1)
  }

  /// The shell's own commands reach it as its own requests, through the session unread.
  @Test func theShellsRequestsReachItAsTheyWereMade() throws {
    let session = try sessionWithADraft()
    let asked = Asked()
    try session.run("history 3; set json on; set output csv; watch 500ms frame", frontEnd: asked)
    #expect(
      asked.requests.compactMap { $0.value as? ShellRequest } == [
        .history(count: 3), .set(option: "json", on: true), .output("csv"),
        .watch(interval: .milliseconds(500), line: "frame"),
      ])
  }

  /// Two requests are the same when they are of one type and equal: what makes a command's
  /// `SessionRequest` comparable although the core cannot read the shell's requests.
  @Test func aFrontEndRequestEqualsOnlyTheSameRequestOfItsType() {
    let history = SessionRequest.frontEnd(FrontEndRequest(ShellRequest.history(count: 3)))
    #expect(history == .frontEnd(FrontEndRequest(ShellRequest.history(count: 3))))
    #expect(history != .frontEnd(FrontEndRequest(ShellRequest.history(count: 4))))
    #expect(history != .frontEnd(FrontEndRequest(3)))
    #expect(history != .recordStop)
  }

  /// Where the shell is not (a scenario's session), its commands are refused with the reason
  /// the host keeps, and no module may take their names.
  @Test func aSessionWithoutTheShellRefusesItsCommandsWithTheReason() throws {
    let bare = try ModuleRegistry(modules: builtInModules)
    for spec in ShellCommands.all {
      guard case .failure(.frontEndOnly(let name, let reason)) = bare.router.route(spec.name, screen: nil) else {
        Issue.record("\(spec.name) was not refused")
        continue
      }
      #expect(name == spec.name && reason.contains("`\(spec.name)`"), "\(reason)")
      #expect(!bare.router.names(forScreen: nil).contains(spec.name))
    }
    let shell = try ShellCommands.registry(modules: builtInModules)
    for spec in ShellCommands.all {
      guard case .success(let route) = shell.router.route(spec.name, screen: nil) else {
        Issue.record("\(spec.name) does not route in the shell")
        continue
      }
      #expect(route.spec.name == spec.name && route.module == nil)
    }
    let host = Host(registry: bare)
    #expect(throws: CommandError.self) { try host.run(line: "history") }
  }

  /// `record` is made of subcommands, as a host command can be: the first word picks one.
  @Test func recordsFirstWordPicksItsSubcommand() throws {
    let host = Host(registry: try ShellCommands.registry(modules: builtInModules))
    let refused = #expect(throws: CommandError.self) { try host.run(line: "record") }
    #expect(refused?.message == "record needs a subcommand (start, stop). Usage: record start FILE [replace] | stop")
    #expect(
      try host.results(line: "record start out.yaml").map(\.request) == [
        .recordStart(path: "out.yaml", replacing: false)
      ])
    #expect(
      try host.results(line: "record start out.yaml replace").map(\.request) == [
        .recordStart(path: "out.yaml", replacing: true)
      ])
    #expect(host.completions(for: "record s") == ["start", "stop"])
    let help = try host.run(line: "help record").first.map { "\($0)" } ?? ""
    #expect(help.contains("record start FILE"))
    #expect(help.contains("Stop recording and write the scenario"))
  }

  /// A front end brings only the commands the host reserves for front ends.
  @Test func aFrontEndCannotBringACommandTheHostDoesNotReserve() {
    let stray = CommandSpec("stray", summary: "not reserved") { _ in .nothing }
    #expect(throws: RegistrationError.self) { try ModuleRegistry(modules: []).bringing(frontEnd: [stray]) }
  }
}
