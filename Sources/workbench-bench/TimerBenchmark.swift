import Ledger
import WorkbenchCore
import WorkbenchExternalModules

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
    let countdowns = [
      ("countdown on the Swift kit", buildFolder() + "/countdown-module"),
      ("countdown on the Python kit", repository + "/Examples/countdown/countdown.py"),
      ("countdown on the JS kit", repository + "/Examples/countdown/countdown.js"),
    ]
    for (name, path) in countdowns {
      do {
        let module = try ExternalModule(path: path)
        defer { module.shutdown() }
        let host = try Host(modules: [module], clock: .virtual)
        _ = try host.run(line: "open countdown egg c; open countdown egg other; @c seconds 3600; @c start")
        // The timer alone (the clock moved, the module told, both windows updated), then a whole
        // line that moves the clock: before it, the host asks the module's live sources (`sync`).
        var timers: [Double] = []
        var lineSamples: [Double] = []
        for index in 0..<iterations {
          let start = now()
          if index % 2 == 0 {
            try host.clock.advance(by: .seconds(1))
            timers.append(now() - start)
          } else {
            _ = try host.run(line: "clock advance 1000ms")
            lineSamples.append(now() - start)
          }
        }
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

extension String {
  fileprivate func padded(to width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}
