import Catalog
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchStore

#if canImport(Glibc)
  import Glibc
#endif

/// A million-book catalog in a workspace file, as a user meets it: the whole process for an
/// import, a start with nothing to restore, an open and a query, and a rename (wall time and
/// peak memory from the OS); and in process, a rename from command to commit.
@MainActor
enum BigDocumentBenchmark {
  static func run(books: Int, renames: Int) -> [String] {
    let folder = "/tmp/workbench-bench-big"
    mkdir(folder, 0o755)
    let file = folder + "/big.json"
    let workspace = folder + "/w.sqlite"
    for suffix in ["", "-wal", "-shm"] { unlink(workspace + suffix) }
    // Written by a child process: a child's peak memory starts from its parent's high-water
    // mark, so the benchmark itself never holds the catalog.
    guard let size = writeCatalog(books: books, to: file) else { return ["big document: could not build the catalog"] }
    let workbench = buildFolder() + "/workbench"
    var lines = [
      "big document: \(books) books (\(format(Double(size) / 1_048_576, 1)) MB of JSON), whole process:"
    ]
    func process(_ label: String, _ arguments: [String], target: String) {
      guard let (seconds, peak) = measureProcess(workbench, arguments, output: folder + "/out") else {
        lines.append("  \(label): failed")
        return
      }
      lines.append(
        "  " + label + String(repeating: " ", count: max(1, 34 - label.count))
          + "\(format(seconds * 1000, 0)) ms   \(childPeak(peak, decimals: 0))   (target: \(target))")
    }
    process("import", ["-w", workspace, "import", file], target: "under 3 s and 400 MB")
    process("a start listing documents", ["-w", workspace, "-c", "documents"], target: "within 2x --version")
    process("--version", ["--version"], target: "-")
    process(
      "open and one query", ["-w", workspace, "-c", "open catalog big; query love"], target: "under 1 s and 300 MB")
    process(
      "open and one rename", ["-w", workspace, "-c", "open catalog big; rename 5 Renamed"], target: "under 1.2 s")

    // In process: command to commit, the edit stored in the log.
    do {
      let store = try WorkspaceStore(path: workspace)
      let registry = try ModuleRegistry(modules: [CatalogModule()])
      store.materializeEdits(with: registry)
      let record = try store.loadSession(includingWindows: false, includingBodies: false)
      let host = Host(
        registry: registry, clock: .virtual, restoring: record,
        bodies: { name throws(CommandError) -> StoredDocument in
          do throws(StoreError) { return try store.documentBody(named: name) } catch {
            throw CommandError(error.message)
          }
        })
      host.persistence = store
      _ = try host.run(line: "open catalog big")
      var samples: [Double] = []
      for index in 0..<renames {
        let line = "rename \(index % 1000 + 1) Title \(index)"
        samples.append(try measure { _ = try host.run(line: line) })
      }
      lines.append(
        "  rename, command to commit (in process, \(renames) renames): p50 \(format(percentile(samples, 50) * 1000, 2)) ms"
          + "   p99 \(format(percentile(samples, 99) * 1000, 2)) ms   (target: p99 under 20 ms)")
    } catch {
      lines.append("  rename in process: \(error)")
    }
    return lines
  }

  /// Writes an import file of `books` generated books; returns its size.
  /// Writes the import file in a child process (this benchmark, `--write-big-catalog`): the
  /// benchmark's own memory never holds the catalog, so the processes it starts after can be
  /// measured (a child's peak starts from its parent's high-water mark); returns its size.
  static func writeCatalog(books: Int, to file: String) -> Int? {
    let benchmark = buildFolder() + "/workbench-bench"
    guard timeProcess(benchmark, ["--write-big-catalog", String(books), file], strict: true) != nil else { return nil }
    var status = stat()
    guard stat(file, &status) == 0 else { return nil }
    return Int(status.st_size)
  }

  /// Writes the import file of `books` generated books here; returns its size.
  static func writeCatalogHere(books: Int, to file: String) -> Int? {
    guard let document = try? CatalogDocument(validating: LargeCatalogBenchmark.generateBooks(count: books)),
      let json = document.encodeQuickly()
    else { return nil }
    let envelope = Array(#"{"name":"big","kind":"catalog","revision":1,"body":"#.utf8) + json + Array("}\n".utf8)
    let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    _ = envelope.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    return envelope.count
  }
}
