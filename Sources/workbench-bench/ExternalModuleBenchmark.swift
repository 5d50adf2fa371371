import Catalog
import WorkbenchCore
import WorkbenchExternalModules
import WorkbenchModuleAPI

/// A command to a module in its own process against a command to a built-in module: the
/// latency the process boundary adds (two pipe writes, two reads, JSON both ways).
@MainActor
enum ExternalModuleBenchmark {
  static func run(commands: Int) -> [String] {
    let path = buildFolder() + "/workbench-fixture-module"
    do {
      let external = try ExternalModule(path: path)
      let host = try Host(modules: [CatalogModule(), external])
      _ = try host.run(line: "open tally pokes t; open catalog library c")
      func timings(_ line: (Int) -> String) throws -> [Double] {
        var samples: [Double] = []
        for index in 0..<commands {
          let text = line(index)
          let start = now()
          _ = try host.run(line: text)
          samples.append(now() - start)
        }
        return samples
      }
      // Both change only view state: a label in the module's window, a selection in the catalog's.
      let outside = try timings { "@t label run \($0 % 10)" }
      let inside = try timings { "@c select \($0 % 30 + 1)" }
      let added = percentile(outside, 50) - percentile(inside, 50)
      // The same commands on a 10 MB document of the module: the host sends a document only
      // when the module does not hold it as it is, so the size should not show.
      let notes = FrameValue.list((0..<100_000).map { .string("note \($0) " + String(repeating: "x", count: 90)) })
      let big = FrameValue.object(FrameObject(["pokes": .integer(0), "notes": notes])).jsonText
      try host.importDocument(named: "big", kind: "tally", json: Array(big.utf8))
      _ = try host.run(line: "open tally big b")
      let onBig = try timings { "@b label run \($0 % 10)" }
      let small = percentile(outside, 50)
      return [
        "external module (\(commands) commands each, view-state changes):",
        "  built-in (catalog select)      p50 \(format(percentile(inside, 50) * 1e6, 1)) µs   p99 \(format(percentile(inside, 99) * 1e6, 1)) µs",
        "  in its own process (label)     p50 \(format(percentile(outside, 50) * 1e6, 1)) µs   p99 \(format(percentile(outside, 99) * 1e6, 1)) µs",
        "  added by the process boundary  p50 \(format(added * 1e6, 1)) µs  (target: under 100 µs)",
        "  on a \(big.utf8.count / 1_000_000) MB document (label)  p50 \(format(percentile(onBig, 50) * 1e6, 1)) µs   "
          + "p99 \(format(percentile(onBig, 99) * 1e6, 1)) µs  (\(format(percentile(onBig, 50) / small))x the small one; "
          + "target: under 2x)",
      ]
    } catch {
      return ["external module: \(error) (build the fixture module: swift build -c release)"]
    }
  }
}
