import Ledger
import WorkbenchCore
import WorkbenchExternalModules
import WorkbenchModuleAPI
import WorkbenchModuleProtocol
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Protocol 2's timers through a module process: the host's clock reaches a module's timer and
/// the module answers with the windows it changed. The countdown of Examples/countdown on each
/// kit (one timer due a step, both windows on it updated), the kettle in Perl written from
/// docs/protocol.md alone, the ledger's search-and-settle (its debounce and load timers) built
/// in and as a process, and the built-ins' scenario folders run on the built-ins, on them as
/// Swift-kit processes and on their Python ports.
@MainActor
enum TimerBenchmark {
  static func run(iterations: Int, file: String = #filePath) -> [String] {
    var root = file.split(separator: "/", omittingEmptySubsequences: false)
    root.removeLast(3)  // Sources/workbench-bench/TimerBenchmark.swift
    let repository = root.joined(separator: "/")
    // The Python and JavaScript kits from the repository's packages, for the modules started here.
    let nodeModules = "/tmp/workbench-bench-node-modules-\(getpid())"
    mkdir(nodeModules, 0o755)
    symlink(repository + "/Kits/javascript", nodeModules + "/workbench-module")
    defer {
      unlink(nodeModules + "/workbench-module")
      rmdir(nodeModules)
    }
    setenv("PYTHONPATH", repository + "/Kits/python", 1)
    setenv("NODE_PATH", nodeModules, 1)
    var lines = ["timers through a module process (\(iterations) each, virtual clock; wall time per step):"]
    let processors = PipeFloor.allowedProcessors ?? "unknown"
    lines.append(
      processors.contains(where: { $0 == "-" || $0 == "," })
        ? "  not pinned (processors \(processors)): run under `taskset -c 0` for steady round trips"
        : "  pinned to processor \(processors)")
    // Each countdown's p50 for one timer, for the ratios to the floors below.
    var timerMedians: [String: Double] = [:]
    let countdowns = [
      ("countdown on the Swift kit", buildFolder() + "/countdown-module"),
      ("countdown on the Python kit", repository + "/Examples/countdown/countdown.py"),
      ("countdown on the JS kit", repository + "/Examples/countdown/countdown.js"),
    ]
    for (name, path) in countdowns {
      do {
        let (timers, lineSamples) = try countdownSteps(path: path, iterations: iterations, withLines: true)
        timerMedians[path] = percentile(timers, 50)
        lines.append(
          "  \(name.padded(to: 30))one timer due, both windows updated   p50 \(format(percentile(timers, 50) * 1e6, 1)) µs   "
            + "p99 \(format(percentile(timers, 99) * 1e6, 1)) µs")
        lines.append(
          "  \("".padded(to: 30))the line, with its sync              p50 \(format(percentile(lineSamples, 50) * 1e6, 1)) µs   "
            + "p99 \(format(percentile(lineSamples, 99) * 1e6, 1)) µs")
      } catch {
        lines.append("  \(name): \(error)")
      }
    }
    lines += floors(countdowns: countdowns, medians: timerMedians, iterations: iterations)
    do {
      let module = try ExternalModule(path: repository + "/Tests/ProcessModules/Kettle/kettle.pl")
      defer { module.shutdown() }
      let host = try Host(modules: [module], clock: .virtual)
      _ = try host.run(line: "open kettle kettle k; open kettle kettle other")
      var samples: [Double] = []
      for _ in 0..<iterations {
        _ = try host.run(line: "@k boil 10")
        let start = now()
        _ = try host.run(line: "clock advance 10ms")
        samples.append(now() - start)
      }
      lines.append(
        "  \("kettle in Perl".padded(to: 30))one timer due, both windows updated   p50 \(format(percentile(samples, 50) * 1e6, 1)) µs   "
          + "p99 \(format(percentile(samples, 99) * 1e6, 1)) µs")
    } catch {
      lines.append("  kettle in Perl: \(error)")
    }
    func settling(_ modules: [any FeatureModule]) throws -> [Double] {
      let host = try Host(modules: modules, clock: .virtual)
      _ = try host.run(line: "open feed account f; settle")
      var samples: [Double] = []
      for index in 0..<iterations {
        _ = try host.run(line: "@f search \(["rent", "coffee", "salary", "book"][index % 4])")
        let start = now()
        _ = try host.run(line: "settle")
        samples.append(now() - start)
      }
      return samples
    }
    do {
      let builtIn = try settling([LedgerModule()])
      let process = try ExternalModule(path: buildFolder() + "/ledger-module-process")
      defer { process.shutdown() }
      let external = try settling([process])
      for (name, samples) in [("ledger built in", builtIn), ("ledger as a process", external)] {
        lines.append(
          "  \(name.padded(to: 26))search, then settle (debounce, load)  p50 \(format(percentile(samples, 50) * 1e6, 1)) µs   "
            + "p99 \(format(percentile(samples, 99) * 1e6, 1)) µs")
      }
    } catch {
      lines.append("  ledger: \(error) (build ledger-module-process: swift build -c release)")
    }
    // The built-ins' scenario folders, as `workbench run` (the binary, one worker) runs them.
    let workbench = buildFolder() + "/workbench"
    let folders = [repository + "/Scenarios/ledger", repository + "/Scenarios/lights"]
    let without = ["--without-builtin", "ledger", "--without-builtin", "lights"]
    let runs: [(String, [String])] = [
      ("built in", []),
      (
        "as Swift-kit processes",
        without + ["-m", buildFolder() + "/ledger-module-process", "-m", buildFolder() + "/lights-module-process"]
      ),
      (
        "as Python ports",
        without + ["-m", repository + "/Examples/ledger/ledger.py", "-m", repository + "/Examples/lights/lights.py"]
      ),
    ]
    lines.append("the ledger's and the lights' scenario folders (`workbench run -j 1`, best of 3):")
    for (name, modules) in runs {
      let seconds = bestOf(3) { timeProcess(workbench, ["run", "-j", "1"] + modules + folders, strict: true) ?? .nan }
      lines.append("  \(name.padded(to: 30))\(format(seconds * 1e3, 0)) ms")
    }
    return lines
  }
}

extension TimerBenchmark {
  /// The Swift kit's countdown timer alone (the first figure of `run`), for a profiler to watch
  /// with nothing else in the process: the host's side here, the kit's in `countdown-module`.
  static func swiftKitTimer(iterations: Int) -> String {
    do {
      let (samples, _) = try countdownSteps(
        path: buildFolder() + "/countdown-module", iterations: iterations, withLines: false)
      return
        "countdown on the Swift kit, one timer due (\(samples.count)): p50 \(format(percentile(samples, 50) * 1e6, 1)) µs   "
        + "p99 \(format(percentile(samples, 99) * 1e6, 1)) µs"
    } catch {
      return "countdown on the Swift kit: \(error)"
    }
  }

  /// A countdown of the module at `path` in two windows, stepped `iterations` times: the timer
  /// alone (the clock moved, the module told, both windows updated), and, `withLines`, every
  /// other step a whole line that moves the clock (before it, the host asks the module's live
  /// sources: `sync`). The countdown is started again off the clock before it reaches zero.
  static func countdownSteps(path: String, iterations: Int, withLines: Bool) throws -> (
    timers: [Double], lines: [Double]
  ) {
    let module = try ExternalModule(path: path)
    defer { module.shutdown() }
    let host = try Host(modules: [module], clock: .virtual)
    _ = try host.run(line: "open countdown egg c; open countdown egg other; @c seconds 3600; @c start")
    var timers: [Double] = []
    var lines: [Double] = []
    timers.reserveCapacity(iterations)
    for index in 0..<iterations {
      if index % 3000 == 2999 { _ = try host.run(line: "@c reset; @c start") }
      let start = now()
      if withLines, index % 2 == 1 {
        _ = try host.run(line: "clock advance 1000ms")
        lines.append(now() - start)
      } else {
        try host.clock.advance(by: .seconds(1))
        timers.append(now() - start)
      }
    }
    return (timers, lines)
  }

  /// The countdown's own timer request and reply, as its module process exchanged them (from
  /// the protocol log of a session with one timer), or `nil`.
  static func timerExchange(path: String) -> (request: [UInt8], reply: FrameValue)? {
    let log = "/tmp/workbench-bench-protocol-\(getpid()).jsonl"
    unlink(log)
    setenv("WORKBENCH_PROTOCOL_LOG", log, 1)
    defer {
      unsetenv("WORKBENCH_PROTOCOL_LOG")
      unlink(log)
    }
    guard let module = try? ExternalModule(path: path) else { return nil }
    defer { module.shutdown() }
    guard let host = try? Host(modules: [module], clock: .virtual),
      (try? host.run(line: "open countdown egg c; open countdown egg other; @c seconds 3600; @c start")) != nil,
      (try? host.clock.advance(by: .seconds(1))) != nil, let bytes = try? FileSystem.read(log)
    else { return nil }
    let messages = String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap {
      try? FrameValue.parse(json: Array($0.utf8))
    }
    guard let index = messages.lastIndex(where: { $0["from"] == "host" && $0["message"]?["type"] == "timer" }),
      index + 1 < messages.count, let request = messages[index]["message"],
      let reply = messages[index + 1]["message"]
    else { return nil }
    return (Array(request.jsonText.utf8), reply)
  }

  /// The floors of the countdown's timer round trip: a C child that answers over the same
  /// framing without parsing, and a Python child that decodes the request and encodes the reply,
  /// both with the countdown's own messages; the Swift kit's p50 as a ratio to the C floor, the
  /// Python kit's to the Python floor.
  ///
  /// A ratio is of the least p50 of three rounds, each kit run right after its floor: a moment's
  /// disturbance only ever adds time, and measured once, far apart, a floor and its kit each
  /// caught one at times (the Python ratio read 2.39x and 5.50x on one afternoon).
  static func floors(countdowns: [(String, String)], medians: [String: Double], iterations: Int) -> [String] {
    guard let swift = countdowns.first?.1, countdowns.count > 1,
      let exchange = timerExchange(path: swift), let folder = FileSystem.makeTemporaryFolder(prefix: "workbench-floor")
    else { return ["  floors: the countdown's timer exchange could not be read"] }
    let python = countdowns[1].1
    defer {
      for name in ["floor.c", "floor", "floor.py", "reply.json"] { unlink(folder + "/" + name) }
      rmdir(folder)
    }
    let replyPath = folder + "/reply.json"
    guard FileSystem.write(exchange.reply.jsonText, to: replyPath),
      FileSystem.write(PipeFloor.pythonSource, to: folder + "/floor.py")
    else { return ["  floors: no temporary files"] }
    var lines = [
      "  floors: the same framing, the countdown's own timer request (\(exchange.request.count) bytes) and reply "
        + "(\(exchange.reply.jsonText.utf8.count) bytes)"
    ]
    let cFloor = PipeFloor.buildC(in: folder)
    // The least p50 of each, over the rounds: the kits' first from the runs above.
    var least: [String: Double] = [:]
    var p99s: [String: Double] = [:]
    func note(_ name: String, _ samples: [Double]?) {
      guard let samples, !samples.isEmpty else { return }
      let median = percentile(samples, 50)
      if median < least[name] ?? .infinity {
        least[name] = median
        p99s[name] = percentile(samples, 99)
      }
    }
    for kit in [swift, python] { if let median = medians[kit] { least[kit] = median } }
    for round in 0..<3 {
      if let cFloor {
        note("c", PipeFloor.roundTrips([cFloor, replyPath], request: exchange.request, iterations: iterations))
      }
      note(
        "python",
        PipeFloor.roundTrips(
          ["python3", folder + "/floor.py", replyPath], request: exchange.request, iterations: iterations))
      guard round > 0 else { continue }
      for kit in [swift, python] {
        note(kit, try? countdownSteps(path: kit, iterations: iterations, withLines: false).timers)
      }
    }
    func line(_ name: String, _ key: String) -> Double? {
      guard let median = least[key] else {
        lines.append("  \(name.padded(to: 30))could not be run")
        return nil
      }
      lines.append(
        "  \(name.padded(to: 30))one round trip                        p50 \(format(median * 1e6, 1)) µs   "
          + "p99 \(format((p99s[key] ?? median) * 1e6, 1)) µs  (least p50 of 3 rounds)")
      return median
    }
    let c = line("C child, no parsing", "c")
    let pythonFloor = line("Python child, decode + encode", "python")
    if let c, let swiftKit = least[swift] {
      lines.append(
        "  countdown on the Swift kit: \(format(swiftKit / c, 2))x the C floor (least p50s of 3 rounds, "
          + "\(format(swiftKit * 1e6, 1)) µs; the host's own share is the next line's)")
    }
    if let c { lines += hostAlone(swiftKit: swift, cFloor: c, in: folder, iterations: iterations) }
    if let pythonFloor, let pythonKit = least[python] {
      lines.append(
        "  countdown on the Python kit: \(format(pythonKit / pythonFloor, 2))x the Python floor (least p50s of 3 "
          + "rounds, \(format(pythonKit * 1e6, 1)) µs; goal: at most 2x)")
    }
    return lines
  }
}

extension TimerBenchmark {
  /// The host's own share of a countdown step: the Swift kit's countdown recorded (every message
  /// it sent, from the protocol log), then the same steps against a C child that replays those
  /// messages without reading the requests, beside the Swift kit itself. What the replay costs is
  /// the host's work and the pipes', which no kit can take away: it bounds how close to the C
  /// floor any kit's step can come.
  static func hostAlone(swiftKit: String, cFloor: Double?, in folder: String, iterations: Int) -> [String] {
    let log = folder + "/recorded.jsonl"
    let replies = folder + "/replies"
    defer {
      for path in [log, replies, folder + "/replayer", folder + "/replayer.c"] { unlink(path) }
    }
    setenv("WORKBENCH_PROTOCOL_LOG", log, 1)
    let recorded = try? countdownSteps(path: swiftKit, iterations: iterations, withLines: false)
    unsetenv("WORKBENCH_PROTOCOL_LOG")
    guard recorded != nil, let bytes = try? FileSystem.read(log, limit: 1 << 30) else {
      return ["  the host alone: the Swift kit's messages could not be recorded"]
    }
    guard let replayer = compileC(PipeFloor.replayerSource, to: folder + "/replayer") else {
      return ["  the host alone: no C compiler"]
    }
    var framed: [UInt8] = []
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
      guard let entry = try? FrameValue.parse(json: Array(line)), entry["from"] == "module",
        let message = entry["message"]
      else { continue }
      let body = Array(message.jsonText.utf8)
      let length = UInt32(body.count)
      framed += [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
      framed += body
    }
    guard FileSystem.write(bytes: framed, to: replies) else { return ["  the host alone: no temporary file"] }
    setenv("WORKBENCH_BENCH_REPLIES", replies, 1)
    defer { unsetenv("WORKBENCH_BENCH_REPLIES") }
    guard let alone = try? countdownSteps(path: replayer, iterations: iterations, withLines: false).timers,
      let kit = try? countdownSteps(path: swiftKit, iterations: iterations, withLines: false).timers
    else { return ["  the host alone: the replay of the Swift kit's messages did not run as recorded"] }
    let (hostP50, kitP50) = (percentile(alone, 50), percentile(kit, 50))
    return [
      "  the host alone (a C child replays the Swift kit's recorded messages)  p50 \(format(hostP50 * 1e6, 1)) µs   "
        + "p99 \(format(percentile(alone, 99) * 1e6, 1)) µs",
      "    beside the Swift kit's p50 \(format(kitP50 * 1e6, 1)) µs: the host and the pipes are "
        + "\(format(100 * hostP50 / kitP50, 0))% of a step"
        + (cFloor.map { ", \(format(hostP50 / $0, 2))x the C floor by themselves" } ?? ""),
    ]
  }

  /// What reading the countdown's recorded timer reply costs the host in-process, without the
  /// pipes: its JSON parse (and freeing what it built), and with the check field by field that
  /// makes it a `ModuleMessage`. The least of three rounds of `iterations` each.
  static func replyDecoding(iterations: Int) -> [String] {
    guard let exchange = timerExchange(path: buildFolder() + "/countdown-module") else {
      return ["reading a reply: the countdown module did not run (build countdown-module: swift build -c release)"]
    }
    let bytes = Array(exchange.reply.jsonText.utf8)
    guard let value = try? FrameValue.parse(json: bytes),
      case .success(let message) = ReplyRules.reply(value, toRequest: "timer")
    else { return ["reading a reply: the recorded reply did not read"] }
    var parse = Double.infinity
    var checked = Double.infinity
    var written = Double.infinity
    var direct = Double.infinity
    var requestParsed = Double.infinity
    var requestDirect = Double.infinity
    var output: [UInt8] = []
    var read = 0
    for _ in 0..<3 {
      var start = now()
      for _ in 0..<iterations {
        if case .object? = try? FrameValue.parse(json: bytes) { read += 1 }
      }
      parse = min(parse, (now() - start) / Double(iterations))
      start = now()
      for _ in 0..<iterations {
        if let value = try? FrameValue.parse(json: bytes), case .success = ReplyRules.reply(value, toRequest: "timer") {
          read += 1
        }
      }
      checked = min(checked, (now() - start) / Double(iterations))
      // The host's way: read straight from the text into the message.
      start = now()
      for _ in 0..<iterations {
        if let reply = ModuleMessage(json: bytes), case .success = ReplyRules.reply(reply, toRequest: "timer") {
          read += 1
        }
      }
      direct = min(direct, (now() - start) / Double(iterations))
      // The kit's side: the request, both ways.
      start = now()
      for _ in 0..<iterations {
        if let value = try? FrameValue.parse(json: exchange.request), (try? HostMessage(wire: value)) != nil {
          read += 1
        }
      }
      requestParsed = min(requestParsed, (now() - start) / Double(iterations))
      start = now()
      for _ in 0..<iterations where HostMessage(json: exchange.request) != nil { read += 1 }
      requestDirect = min(requestDirect, (now() - start) / Double(iterations))
      // The kit's side: the same reply written as the kit writes it, into a buffer kept.
      start = now()
      for _ in 0..<iterations {
        output.removeAll(keepingCapacity: true)
        message.appendWire(to: &output)
      }
      written = min(written, (now() - start) / Double(iterations))
    }
    guard read == 15 * iterations, ModuleMessage(json: bytes) == message else {
      return ["reading a reply: the recorded reply did not read"]
    }
    guard (try? FrameValue.parse(json: output)) == value else {
      return ["writing a reply: what was written reads otherwise"]
    }
    return [
      "reading the countdown's timer reply (\(bytes.count) bytes), in-process, least of 3 rounds of \(iterations):",
      "  parsed (and freed)                       \(format(parse * 1e6, 2)) µs",
      "  parsed and checked into a ModuleMessage  \(format(checked * 1e6, 2)) µs",
      "  read straight into a ModuleMessage       \(format(direct * 1e6, 2)) µs",
      "  written again as the kit writes it       \(format(written * 1e6, 2)) µs",
      "the timer request (\(exchange.request.count) bytes), as the kit reads it:",
      "  parsed and read into a HostMessage       \(format(requestParsed * 1e6, 2)) µs",
      "  read straight into a HostMessage         \(format(requestDirect * 1e6, 2)) µs",
    ]
  }

  /// The host's side of the countdown alone (`hostAlone`), many rounds, for a profiler to watch
  /// with no module doing work.
  static func hostAloneToProfile(iterations: Int) -> [String] {
    guard let folder = FileSystem.makeTemporaryFolder(prefix: "workbench-host-alone") else {
      return ["the host alone: no temporary folder"]
    }
    defer { rmdir(folder) }
    return hostAlone(swiftKit: buildFolder() + "/countdown-module", cFloor: nil, in: folder, iterations: iterations)
  }
}

extension String {
  fileprivate func padded(to width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}
