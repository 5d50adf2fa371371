import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Determinism as a property (issue #37): random sessions in the shell, on real time, through a
/// pseudo-terminal, against the countdown on each kit: commands, waits, chained timers, a
/// button's live events, a commit from a timer. Each session is recorded and replayed; the
/// replay passes, and the frame after every command is the one the live session showed. Fixed
/// seeds, and one new seed a run (each case's arguments name its seed).
struct RecordedSessionsReplayTests {
  static let seeds: [UInt64] = [0xC0FF_EE01, 0x5EED_0002, UInt64.random(in: 1...UInt64(UInt32.max))]

  @Test(arguments: KitsTests.countdowns.map { $0.0 }, seeds)
  func aRecordedSessionReplaysFrameForFrame(kit: String, seed: UInt64) throws {
    let module = try #require(KitsTests.countdowns.first { $0.0 == kit }?.1)
    var random = SplitMix64(seed: seed)
    let folder = makeTemporaryFolder()
    let recording = folder + "/session.yaml"
    let environment = PseudoTerminalSession.environment(folder)
    let session = try #require(
      PseudoTerminalSession(arguments: ["-w", ":memory:", "-m", module], environment: environment))
    let prompt = "c countdown:egg> "
    #expect(session.waitFor("workbench> "), "\(kit) seed \(seed)")
    session.type("record start \(recording)\r")
    #expect(session.waitFor("recording to", after: 0))
    session.type("open countdown egg c\r")
    #expect(session.waitFor(prompt))

    // Each command, and the frame it showed (nil when it was refused).
    var live: [(line: String, frame: String?)] = []
    for _ in 0..<10 {
      if Bool.random(using: &random) { session.pass(milliseconds: Int.random(in: 20...900, using: &random)) }
      let line: String
      switch Int.random(in: 0..<10, using: &random) {
      case 0, 1, 2: line = "start"
      case 3, 4: line = "pause"
      case 5, 6: line = "press"
      case 7: line = "reset"
      default: line = "seconds \(Int.random(in: 1...3, using: &random))"
      }
      let mark = session.transcript.count
      session.type(line + "\r")
      // The line is accepted when the terminal echoes it with the Enter ("start\r\n": a
      // redisplay while it was typed, for a timer's frame, shows it without one); what follows,
      // up to the next prompt, is the line's own output: a change taken in before its command,
      // then the command's frame or its error. What timers and live changes print above the
      // prompt meanwhile comes before the echo or after that prompt.
      guard session.waitFor(line + "\r\n", after: mark),
        let accepted = session.offset(after: line + "\r\n", from: mark),
        session.waitFor(prompt, after: accepted)
      else {
        Issue.record("\(kit) seed \(seed): `\(line)` did not run: \(session.screen(from: mark).debugDescription)")
        return
      }
      let printed = session.screen(from: accepted)
      let output = printed.firstRange(of: prompt).map { String(printed[..<$0.lowerBound]) } ?? printed
      live.append((line, output.contains("error:") ? nil : Self.frameTexts(in: output).last))
    }
    session.pass(milliseconds: Int.random(in: 0...1200, using: &random))
    let mark = session.transcript.count
    session.type("record stop\r")
    #expect(session.waitFor("wrote", after: mark), "\(kit) seed \(seed): \(session.screen(from: mark))")
    #expect(session.waitFor(prompt, after: session.offset(after: "wrote", from: mark) ?? mark))
    session.type("\u{04}")
    #expect(session.exitStatus() == 0)

    let text = try #require(readTextFile(recording))
    let traces = folder + "/traces"
    let replayed = ChildProcess.runWorkbench(["run", "-m", module, recording, "--trace", traces])
    #expect(replayed.status == 0, "\(kit) seed \(seed): the replay failed\n\(replayed.stdout)\n\(text)")
    // The replay's frame of `c` after each of its steps, by the frames' texts.
    let steps = try Self.framesAfterCommands(in: traces, window: "c")
    let shownLive = live.filter { $0.frame != nil }
    #expect(
      steps.map { $0.line } == shownLive.map { "c: " + $0.line }, "\(kit) seed \(seed): the steps differ\n\(text)")
    for (step, shown) in zip(steps, shownLive) where step.frame != shown.frame {
      let message =
        "\(kit) seed \(seed): after `\(shown.line)` live showed \(shown.frame ?? "nothing"), the replay "
        + "\(step.frame ?? "nothing")\n\(text)"
      Issue.record(Comment(rawValue: message))
      break
    }
  }

  /// The countdown's frame texts (`running: 2500 ms left (finished 0, presses 1)`) in order.
  static func frameTexts(in text: String) -> [String] {
    text.split(whereSeparator: \.isNewline).compactMap { line in
      guard let start = line.firstRange(of: #/(idle|running|paused|done): /#)?.lowerBound,
        line.contains(" ms left (finished ")
      else { return nil }
      return String(line[start...].prefix { $0 != "\u{1B}" })
    }
  }

  /// The command steps of the one trace in `folder` that passed, each with `window`'s frame text
  /// after it (commands that failed, as the live ones did, are left out).
  static func framesAfterCommands(in folder: String, window: String) throws -> [(line: String, frame: String?)] {
    var texts: [String: String] = [:]
    for line in (readTextFile(folder + "/frames.jsonl") ?? "").split(separator: "\n") {
      let frame = try FrameValue.parse(json: Array(line.utf8))
      if let hash = frame["hash"]?.stringValue { texts[hash] = frame["text"]?.stringValue }
    }
    let name = try #require(folderEntries(folder).first { $0.hasSuffix(".trace.json") })
    let trace = try FrameValue.parse(json: Array((readTextFile(folder + "/" + name) ?? "").utf8))
    var current: String?
    var steps: [(line: String, frame: String?)] = []
    for step in trace["steps"]?.elements ?? [] {
      if let hash = step["frames"]?[window]?.stringValue { current = texts[hash] }
      guard step["kind"]?.stringValue == "command", step["outcome"]?.stringValue == "passed",
        let line = step["text"]?.stringValue, line.hasPrefix(window + ": ")
      else { continue }
      steps.append((line, current))
    }
    return steps
  }
}
