import WorkbenchCore
import WorkbenchExternalModules
import WorkbenchModuleAPI

/// `--watch`: from a module's executable changing to its windows showing again. A reload starts
/// the new process, reads its handshake, and opens every window on it again; the watcher adds
/// its polling (every 100 ms, acting on two looks that agree, so 100-200 ms more).
@MainActor
enum ReloadBenchmark {
  static func run(reloads: Int) -> [String] {
    var lines: [String] = []
    let modules = [
      ("the fixture module (Swift)", buildFolder() + "/workbench-fixture-module", "tally pokes"),
      ("the kanban example (Python)", repositoryRoot() + "/Examples/kanban/kanban.py", "board board"),
    ]
    for (label, path, screen) in modules {
      do {
        let module = try ExternalModule(path: path)
        defer { module.shutdown() }
        let host = try Host(modules: [module])
        for index in 0..<3 { _ = try host.run(line: "open \(screen) w\(index)") }
        var samples: [Double] = []
        for _ in 0..<reloads {
          samples.append(
            try measure {
              _ = try module.reload()
              for window in host.windows { _ = window.frame }
            })
        }
        lines.append(
          "  \(label), 3 windows: reload p50 \(format(percentile(samples, 50) * 1000, 1)) ms   p99 "
            + "\(format(percentile(samples, 99) * 1000, 1)) ms; with the watcher's polling at most "
            + "\(format(percentile(samples, 99) * 1000 + 200, 0)) ms   (target: under 1 s)")
      } catch {
        lines.append("  \(label): \(error)")
      }
    }
    return ["reload (--watch): the executable changes, the windows show the new process:"] + lines
  }

  /// The repository's root, from this file's place in it.
  static func repositoryRoot(file: String = #filePath) -> String {
    var parts = file.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Sources/workbench-bench/ReloadBenchmark.swift
    return parts.joined(separator: "/")
  }
}
