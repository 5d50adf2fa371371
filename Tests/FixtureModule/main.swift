// A module for the host's isolation tests: `poke` behaves as WORKBENCH_FIXTURE says
// (`ok`, `trap`, `hang`, `garbage`, `print`; `close-input` closes its end of the request pipe,
// `deaf` answers and then stops reading, `bad-commit` answers with a commit that is not JSON,
// `fork` starts a `sleep` that holds its pipes and prints its pid to stderr and to
// WORKBENCH_FIXTURE_PID_FILE; `twice` answers twice, `ok-reply`, `no-frame` and `bad-facts`
// answer with the wrong kind of message, `loud` prints 3 MB to stderr). With `silent` the
// module never sends its handshake. `weigh` reads a fact from outside, for recording tests.
// `wall-later` plays a switch at the wall a moment later, seen by a live source on a pipe: the
// kit sends the change unasked (protocol 2, §19); with `wall-once` the switch happens at once,
// and only the first time any session asks (a device changes once). `slow` takes WORKBENCH_FIXTURE_SLOW_MS (500 by
// default) of real time before it pokes. `kill-host-once` kills its host (SIGKILL) at the first
// poke of any process, WORKBENCH_FIXTURE_MARK marking that it has. `escapes` puts terminal control (a clipboard write, a
// screen clear) in the label every frame shows.
import WorkbenchModuleKit

#if canImport(Glibc)
  import Glibc
#endif

struct TallyDocument: DocumentBody {
  var pokes: Int
  /// Anything, to make a big document for the benchmark.
  var notes: [String]? = nil
}

struct TallyViewState: ViewStateValue {
  var label = "tally"
}

/// A switch at the wall, as a device the module watches: events come down a pipe, from another
/// thread, and the session's live source reads each as an event and applies it
/// (`services.addLiveSource(named:)`): the kit sends the event with the change, and a replay
/// hands the recorded one back.
@MainActor
final class WallSwitch {
  private var ends: [Int32] = [-1, -1]
  private(set) var switches = 0

  init(services: SessionServices) {
    if pipe(&ends) == 0 {
      _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
    }
    let readEnd = ends[0]
    services.addLiveSource(
      named: "wall", descriptor: { readEnd },
      read: {
        var events: [FrameValue] = []
        var bytes = [UInt8](repeating: 0, count: 64)
        while case let count = read(readEnd, &bytes, bytes.count), count > 0 {
          events += bytes[..<count].map { .integer(Int($0)) }
        }
        return events
      },
      apply: { [weak self] _ in self?.switches += 1 })
  }

  /// Whether the switch that happens once (`wall-once`) has happened, in any session.
  private static var switchedOnce = false

  /// The device's side: a switch a moment from now, on a thread of its own.
  func switchLater() {
    let writeEnd = ends[1]
    if getenv("WORKBENCH_FIXTURE").map({ String(cString: $0) }) == "wall-once" {
      guard !Self.switchedOnce else { return }
      Self.switchedOnce = true
      var byte: UInt8 = 1
      _ = write(writeEnd, &byte, 1)
      return
    }
    Task.detached {
      try? await Task.sleep(for: .milliseconds(50))
      var byte: UInt8 = 1
      _ = write(writeEnd, &byte, 1)
    }
  }

  static func of(_ services: SessionServices) -> WallSwitch {
    services.shared(WallSwitch.self) { WallSwitch(services: services) }
  }
}

@MainActor
final class TallyScreen: ScreenModel {
  private(set) var document: TallyDocument
  private(set) var viewState: TallyViewState
  private let wall: WallSwitch

  init(document: TallyDocument, viewState: TallyViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
    wall = WallSwitch.of(environment.services)
  }

  func documentReplaced(_ document: TallyDocument) { self.document = document }
  func restore(_ viewState: TallyViewState) { self.viewState = viewState }
  func rename(_ label: String) { viewState.label = label }
  var frame: FrameValue {
    let label = wall.switches > 0 ? "switched at the wall \(wall.switches)" : viewState.label
    // `escapes`: terminal control in what the module shows (a title, a clipboard write).
    let escapes = getenv("WORKBENCH_FIXTURE").map { String(cString: $0) } == "escapes"
    return [
      "pokes": .integer(document.pokes),
      "label": .string(escapes ? "\u{1B}]52;c;c2VjcmV0\u{07}\u{1B}[2J" + label : label),
    ]
  }
  static var frameFields: [String]? { ["pokes", "label"] }
}

enum FixtureArguments {
  static let times = Argument<Int>.integer("times", in: 1...100).optional
  static let label = Argument<String>.rest("text")
  static let unit = Argument<String>.choice("unit", ["kg", "lb"], help: "what to weigh in (asked of the scale)")
    .optional
  static let other = Argument<WindowID>.window("from", help: "another tally window")
}

struct FixtureModule: FeatureModule {
  /// Whether the switch at the wall is declared as a live source (unless a mode makes the
  /// fixture misbehave, whose tests count its requests).
  static var declaresWall: Bool {
    [nil, "wall-later", "wall-once"].contains(getenv("WORKBENCH_FIXTURE").map { String(cString: $0) })
  }

  var manifest: ModuleManifest { ModuleManifest(name: "fixture", version: "1.0", summary: "a module for tests") }

  /// How a child started with a bare `posix_spawn` ends when it writes to a pipe whose reader
  /// has gone: `/bin/echo` with its output on such a pipe.
  static func brokenPipeChild() -> String {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return "no pipe" }
    close(ends[0])
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
    var child: pid_t = 0
    let argv = [strdup("/bin/echo"), strdup("nobody reads this"), nil]
    let started = posix_spawn(&child, "/bin/echo", &actions, nil, argv, environ)
    argv.forEach { free($0) }
    posix_spawn_file_actions_destroy(&actions)
    close(ends[1])
    guard started == 0 else { return "no child" }
    var status: Int32 = 0
    waitpid(child, &status, 0)
    return status & 0x7f != 0
      ? "the child ended by signal \(status & 0x7f)" : "the child exited \((status >> 8) & 0xff)"
  }

  @MainActor func register(into registrar: Registrar) {
    // The switch at the wall is a live source (the host then asks for what it saw, `sync`),
    // declared unless a mode makes the fixture misbehave (whose tests count its requests).
    if Self.declaresWall { registrar.liveSource("wall") }
    registrar.diagram("pokes") {
      Diagram(
        title: "how a tally counts", isStateMachine: true, start: "idle", nodes: ["idle", "poked"],
        edges: [.init(from: "idle", to: "poked", label: "poke"), .init(from: "poked", to: "poked", label: "poke")])
    }
    registrar.documentKind(
      TallyDocument.self, name: "tally", summary: "pokes", samples: ["pokes": TallyDocument(pokes: 0)])
    registrar.screen(TallyScreen.self, name: "tally", documentKind: "tally", summary: "the pokes") { frame in
      "pokes: \(frame["pokes"]?.integerValue ?? 0) (\(frame["label"]?.stringValue ?? ""))"
    }
    registrar.command(
      CommandSpec(
        "poke", arguments: [FixtureArguments.times], summary: "poke the tally",
        scope: .window(screens: ["tally"])
      ) { context in
        let mode = getenv("WORKBENCH_FIXTURE").map { String(cString: $0) } ?? "ok"
        switch mode {
        case "trap": fatalError("the fixture traps on purpose")
        case "kill-host-once":
          // Kills the process that started it (the host: a worker of `explore --jobs`, as if
          // from outside), the first time any process pokes: WORKBENCH_FIXTURE_MARK is made then.
          if let mark = getenv("WORKBENCH_FIXTURE_MARK").map({ String(cString: $0) }),
            open(mark, O_WRONLY | O_CREAT | O_EXCL, 0o644) >= 0
          {
            kill(getppid(), SIGKILL)
          }
        case "hang": while true { sleep(60) }
        case "slow":
          let milliseconds = getenv("WORKBENCH_FIXTURE_SLOW_MS").flatMap { UInt32(String(cString: $0)) } ?? 500
          usleep(milliseconds * 1000)
        case "garbage":
          let junk = Array("this is not a length-prefixed message".utf8)
          _ = junk.withUnsafeBytes { write(ModuleMain.protocolDescriptor, $0.baseAddress, $0.count) }
        case "print": print("printing to stdout must not break the protocol")
        case "close-input": close(STDIN_FILENO)
        case "deaf":
          sendRawReply(#"{"type":"result","frame":{"pokes":0,"label":"deaf"},"text":"deaf","state":"{}"}"#)
          while true { sleep(60) }
        case "bad-commit":
          sendRawReply(
            #"{"type":"result","frame":{"pokes":0,"label":"bad"},"text":"bad","state":"{}","commit":"{not json"}"#)
          while true { sleep(60) }
        case "fork":
          var child: pid_t = 0
          let argv = [strdup("/bin/sleep"), strdup("300"), nil]
          posix_spawn(&child, "/bin/sleep", nil, nil, argv, environ)
          argv.forEach { free($0) }
          FileHandleless.error("grandchild \(child)\n")
          if let file = getenv("WORKBENCH_FIXTURE_PID_FILE") {
            let descriptor = open(file, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            let line = Array("\(child)\n".utf8)
            _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
          }
        case "fork-hang":
          // Starts a program, notes its own pid and the program's, and never answers: what a
          // signal to the program that started the module must end, both of them.
          var child: pid_t = 0
          let argv = [strdup("/bin/sleep"), strdup("300"), nil]
          posix_spawn(&child, "/bin/sleep", nil, nil, argv, environ)
          argv.forEach { free($0) }
          if let file = getenv("WORKBENCH_FIXTURE_PID_FILE") {
            let descriptor = open(file, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            let line = Array("\(getpid())\n\(child)\n".utf8)
            _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
          }
          while true { sleep(60) }
        case "loud":
          // 3 MB on standard error in one command: the log keeps at most 2 MB of it.
          let line = String(repeating: "x", count: 1023) + "\n"
          for _ in 0..<3072 { FileHandleless.error(line) }
        case "twice":
          // A reply of its own before the real one: two messages for one request.
          sendRawReply(#"{"type":"result","frame":{"pokes":99,"label":"early"},"text":"early","state":"{}"}"#)
        case "twice-late":
          // The same, with the second message a moment after the first: it comes in between
          // the host's lines, not behind the reply it read.
          sendRawReply(#"{"type":"result","frame":{"pokes":99,"label":"early"},"text":"early","state":"{}"}"#)
          usleep(50_000)
        case "wrong-id":
          // A well-formed result that names another request.
          sendRawReply(#"{"type":"result","frame":{"pokes":0,"label":"x"},"text":"x","state":"{}","id":999}"#)
          exit(0)
        case "ok-reply":
          sendRawReply(#"{"type":"ok"}"#)
          exit(0)  // (rather than wait to be stopped: module-check's later requests fail at once)
        case "no-frame":
          sendRawReply(#"{"type":"result","text":"no frame","state":"{}"}"#)
          exit(0)
        case "pipe-child":
          // A program the module starts, with nothing done about its signals: it writes to a
          // pipe whose reader has gone, and says how it ended.
          return .text(Self.brokenPipeChild())
        case "bad-facts":
          sendRawReply(#"{"type":"result","frame":{"pokes":0,"label":"x"},"text":"x","state":"{}","facts":5}"#)
          exit(0)
        default: break
        }
        let screen = try context.model(TallyScreen.self)
        let times = context.arguments[FixtureArguments.times] ?? 1
        try context.commit(TallyDocument(pokes: screen.document.pokes + times), summary: "poke")
        return .frame(try context.requireWindow().id)
      })
    // A "new build" for reload tests: with the file WORKBENCH_FIXTURE_EXTRA_FILE names present
    // when it starts, the module registers one more command and one more screen.
    if let extra = getenv("WORKBENCH_FIXTURE_EXTRA_FILE"), access(extra, F_OK) == 0 {
      registrar.command(CommandSpec("stamp", summary: "a command only a newer build has") { _ in .text("stamped") })
      registrar.screen(
        TallyScreen.self, name: "tally2", documentKind: "tally", summary: "a screen only a newer build has"
      ) { frame in "pokes: \(frame["pokes"]?.integerValue ?? 0) (second)" }
    }
    registrar.command(
      CommandSpec(
        "weigh", arguments: [FixtureArguments.unit],
        summary: "read the scale: a fact from outside (WORKBENCH_FIXTURE_SCALE, or the process id)",
        scope: .window(screens: ["tally"])
      ) { context in
        let window = try context.requireWindow()
        // `weigh UNIT` asks the scale a question (the unit): the reading answers it.
        let unit = context.arguments[FixtureArguments.unit]
        let reading = context.services.facts.value(
          of: "scale.reading", in: "window \(window.id.number)", asked: unit.map { ["unit": .string($0)] }
        ) {
          .integer(getenv("WORKBENCH_FIXTURE_SCALE").flatMap { Int(String(cString: $0)) } ?? Int(getpid()))
        }
        try context.model(TallyScreen.self).rename("weighed \(reading.integerValue ?? -1)")
        return .frame(window.id)
      })
    registrar.command(
      CommandSpec(
        "wall-later", summary: "a switch at the wall, a moment from now (seen by a live source)",
        scope: .window(screens: ["tally"])
      ) { context in
        // Undeclared (a mode whose tests count its requests), the switch never comes: a change
        // sent unasked then would be a violation, however slowly the host runs.
        if Self.declaresWall { WallSwitch.of(context.services).switchLater() }
        return .frame(try context.requireWindow().id)
      })
    registrar.command(
      CommandSpec(
        "copy", arguments: [FixtureArguments.other], summary: "take the label of another tally window",
        scope: .window(screens: ["tally"])
      ) { context in
        // The window argument is one of this session's windows (the host named it by its key).
        guard let other = context.session.windows.first(where: { $0.id == context.arguments[FixtureArguments.other] }),
          let label = other.frame["label"]?.stringValue
        else { throw CommandError("no tally window \(context.arguments[FixtureArguments.other].number) here") }
        try context.model(TallyScreen.self).rename(label)
        return .text("copied \(label)")
      })
    registrar.command(
      CommandSpec(
        "label", arguments: [FixtureArguments.label], summary: "name the tally in this window",
        scope: .window(screens: ["tally"])
      ) { context in
        try context.model(TallyScreen.self).rename(context.arguments[FixtureArguments.label])
        return .frame(try context.requireWindow().id)
      })
  }
}

/// Writes a reply message straight to the host, as a module that misbehaves after it would.
@MainActor func sendRawReply(_ json: String) {
  let body = Array(json.utf8)
  let length = UInt32(body.count)
  let frame =
    [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)] + body
  _ = frame.withUnsafeBytes { write(ModuleMain.protocolDescriptor, $0.baseAddress, $0.count) }
}

/// Standard error without Foundation.
enum FileHandleless {
  static func error(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }
}

if getenv("WORKBENCH_FIXTURE").map({ String(cString: $0) }) == "silent" {
  while true { sleep(60) }
}
ModuleMain.run(FixtureModule())
