import Ledger
import WorkbenchCore
import WorkbenchExternalModules

/// Protocol 2's timers through a module process: the host's clock reaches a module's timer and
/// the module answers with the windows it changed. A kettle in Perl and one on the Python kit
/// (one timer per step), and the ledger's search-and-settle (its debounce and load timers) built
/// in against the same ledger as a process.
@MainActor
enum TimerBenchmark {
  static func run(iterations: Int, file: String = #filePath) -> [String] {
    var root = file.split(separator: "/", omittingEmptySubsequences: false)
    root.removeLast(3)  // Sources/workbench-bench/TimerBenchmark.swift
    let repository = root.joined(separator: "/")
    var lines = ["timers through a module process (\(iterations) each, virtual clock; wall time per step):"]
    let kettles = [
      ("kettle in Perl", repository + "/Tests/ProcessModules/Kettle/kettle.pl"),
      ("kettle on the Python kit", repository + "/Examples/kettle/kettle.py"),
    ]
    for (name, path) in kettles {
      do {
        let module = try ExternalModule(path: path)
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
          "  \(name.padded(to: 26))one timer due, both windows updated   p50 \(format(percentile(samples, 50) * 1e6, 1)) µs   "
            + "p99 \(format(percentile(samples, 99) * 1e6, 1)) µs")
      } catch {
        lines.append("  \(name): \(error)")
      }
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
    return lines
  }
}

extension String {
  fileprivate func padded(to width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}
