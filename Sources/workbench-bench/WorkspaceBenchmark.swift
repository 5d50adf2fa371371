import Catalog
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchStore

#if canImport(Glibc)
  import Glibc
#endif

/// The workspace on a real file: how long a document save takes to commit, and how long a
/// session of 100 windows takes to save and to restore.
@MainActor
enum WorkspaceBenchmark {
  static func run(saves: Int) -> [String] {
    let path = "/tmp/workbench-bench-workspace.sqlite"
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    defer { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
    do {
      let store = try WorkspaceStore(path: path)
      let host = try Host(modules: [CatalogModule()])
      try store.addMissing(try host.sessionRecord().documents)
      host.persistence = store
      _ = try host.run(line: "open catalog library main")

      // A rename of one book in the 30-book library: encode, compare-and-swap, commit (WAL).
      var samples: [Double] = []
      for index in 0..<saves {
        let line = "rename 1 Title \(index)"
        let start = now()
        _ = try host.run(line: line)
        samples.append(now() - start)
      }
      var lines = [
        "workspace (\(path), WAL, synchronous=NORMAL):",
        "  document save, command to commit (\(saves) renames): p50 \(format(percentile(samples, 50) * 1e6, 0)) µs"
          + "   p99 \(format(percentile(samples, 99) * 1e6, 0)) µs",
      ]

      // The interactive shell saves the session after every line that changed a window: the
      // windows-only record, compared with the last one saved, written when it differs. What
      // that adds to a command that changes view state (a selection), with 1 and 10 windows.
      for windows in [1, 10] {
        while host.windows.count < windows { _ = try host.run(line: "open catalog library") }
        var plain: [Double] = []
        var saving: [Double] = []
        var saved: SessionRecord?
        for index in 0..<saves {
          let line = "select \(index % 30 + 1)"
          if index % 2 == 0 {
            plain.append(try measure { _ = try host.run(line: line) })
          } else {
            saving.append(
              try measure {
                _ = try host.run(line: line)
                let record = try host.sessionRecord(includingDocuments: false)
                if record != saved {
                  try store.saveSession(record)
                  saved = record
                }
              })
          }
        }
        lines.append(
          "  session saved after each line, \(windows) window\(windows == 1 ? "" : "s"): select p50 "
            + "\(format(percentile(plain, 50) * 1e6, 0)) µs without, \(format(percentile(saving, 50) * 1e6, 0)) µs "
            + "with the save (p99 \(format(percentile(plain, 99) * 1e6, 0)) / "
            + "\(format(percentile(saving, 99) * 1e6, 0)) µs)")
      }
      while host.windows.count > 1 { _ = try host.run(line: "close") }

      // A session of 100 windows on the library, each with its own query and selection.
      for number in 1..<100 {
        _ = try host.run(line: "open catalog library; query \(number % 7 == 0 ? "the" : ""); select \(number % 30 + 1)")
      }
      let record = try host.sessionRecord()
      let saveTime = bestOf(5) { measure { try? store.saveSession(record) } }
      var restored: Host?
      var failure: String?
      let restoreTime = bestOf(5) {
        measure {
          do {
            // As the shell opens a workspace: the modules turn a document's snapshot and the
            // edits stored since (the renames above) into the document.
            let registry = try ModuleRegistry(modules: [CatalogModule()])
            let reopened = try WorkspaceStore(path: path)
            reopened.materializeEdits(with: registry)
            restored = Host(registry: registry, restoring: try reopened.loadSession())
            for window in restored?.windows ?? [] { _ = window.frame }
            failure = restored?.restorationWarnings.first?.message
          } catch {
            failure = "\(error)"
          }
        }
      }
      let count = restored?.windows.count ?? 0
      // A restore that failed is said, never timed as one.
      guard count == host.windows.count else {
        lines.append(
          "  session of \(host.windows.count) windows: restored \(count) (\(failure ?? "windows missing")): not measured"
        )
        return lines
      }
      lines.append(
        "  session of \(count) windows: save \(format(saveTime * 1000, 2)) ms, "
          + "restore (open, load, rebuild, first frames) \(format(restoreTime * 1000, 2)) ms")
      return lines
    } catch {
      return ["workspace: \(error)"]
    }
  }
}
