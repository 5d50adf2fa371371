import Catalog
import WorkbenchCore
import WorkbenchModuleAPI

/// Command round trip on the sample library: tokenize, resolve, act, project the frame and
/// render its text, as the shell does for every line.
@MainActor
enum RoundTripBenchmark {
  static func run(iterations: Int) -> [String] {
    guard let host = try? Host(modules: [CatalogModule()]),
      (try? host.run(line: "open catalog library left; open catalog library right")) != nil
    else { return ["round trip: could not set up the host"] }
    let lines = [
      "select 7", "query the", "query th", "query", "@right select 3", "only-selected on", "only-selected off",
      "scroll 12 2", "page next", "page previous", "detail close", "detail keep", "deselect", "query война",
    ]
    var samples: [Double] = []
    samples.reserveCapacity(iterations)
    var rendered = 0
    for index in 0..<iterations {
      let line = lines[index % lines.count]
      let start = now()
      if let outputs = try? host.run(line: line) {
        for case .frame(let id) in outputs {
          if let window = host.window(id) { rendered += host.renderText(of: window).utf8.count }
        }
      }
      samples.append(now() - start)
    }
    return [
      "command round trip on the sample library (\(iterations) commands, \(rendered / iterations) bytes rendered each):",
      "  p50 \(format(percentile(samples, 50) * 1e6, 1)) µs   p99 \(format(percentile(samples, 99) * 1e6, 1)) µs"
        + "   max \(format(percentile(samples, 100) * 1e6, 1)) µs  (target: p99 under 1000 µs)",
    ]
  }
}
