import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// A generated corpus of scenario files run by `workbench run` with one and two jobs,
/// against reading and parsing the same files with libyaml alone.
enum ScenarioBenchmark {
  static func run(files: Int, stepsPerScenario: Int) -> [String] {
    let folder = "/tmp/workbench-bench-scenarios"
    generate(files: files, steps: stepsPerScenario, in: folder)
    let paths = (0..<files).map { "\(folder)/scenario-\($0).yaml" }

    // Baseline: read every file and run libyaml's parser over it, in this process.
    var events = 0
    let parseTime = bestOf(3) {
      measure {
        events = 0
        for path in paths { events += YAMLParser.countEvents(readBytes(path)) ?? 0 }
      }
    }
    let workbench = buildFolder() + "/workbench"
    let check = bestOf(5) { timeProcess(workbench, ["check", folder], output: folder + ".out") ?? .infinity }
    // Interleaved, best of five each: this machine's neighbours make single runs noisy.
    var serialRuns: [Double] = []
    var parallelRuns: [Double] = []
    for _ in 0..<5 {
      serialRuns.append(timeProcess(workbench, ["run", "--jobs", "1", folder], output: folder + ".out") ?? .infinity)
      parallelRuns.append(timeProcess(workbench, ["run", "--jobs", "2", folder], output: folder + ".out") ?? .infinity)
    }
    let serial = serialRuns.min() ?? .infinity
    let parallel = parallelRuns.min() ?? .infinity
    // The machine's own two-core speed-up, beside it: two CPU-bound processes at once against
    // one alone, a C loop of one thread (the workbench's own processes are not: `check` and
    // `run --jobs 1` each use more than one core at moments). Interleaved, best of five.
    let spinner = spinningChild(in: folder)
    var alone: [Double] = []
    var together: [Double] = []
    for _ in 0..<5 {
      alone.append(spinner.flatMap { timeProcess($0, []) } ?? .infinity)
      together.append(spinner.flatMap { twoAtOnce($0, [], outputs: folder) } ?? .infinity)
    }
    let both = together.min() ?? .infinity
    let machine = 2 * (alone.min() ?? .infinity) / both
    // The same number of steps in scenarios that mix a catalog window and two goal windows.
    let mixedFolder = folder + "-mixed"
    generate(files: files, steps: stepsPerScenario, in: mixedFolder, mixed: true)
    var mixedEvents = 0
    let mixedPaths = (0..<files).map { "\(mixedFolder)/scenario-\($0).yaml" }
    let mixedParse = bestOf(3) {
      measure {
        mixedEvents = 0
        for path in mixedPaths { mixedEvents += YAMLParser.countEvents(readBytes(path)) ?? 0 }
      }
    }
    var mixedSerialRuns: [Double] = []
    var mixedParallelRuns: [Double] = []
    for _ in 0..<3 {
      mixedSerialRuns.append(
        timeProcess(workbench, ["run", "--jobs", "1", mixedFolder], output: folder + ".mixed.out") ?? .infinity)
      mixedParallelRuns.append(
        timeProcess(workbench, ["run", "--jobs", "2", mixedFolder], output: folder + ".mixed.out") ?? .infinity)
    }
    let mixedSerial = mixedSerialRuns.min() ?? .infinity
    let mixedParallel = mixedParallelRuns.min() ?? .infinity
    let mixedLast =
      String(decoding: readBytes(folder + ".mixed.out"), as: UTF8.self).split(separator: "\n").last.map(String.init)
      ?? "?"
    // The same run writing a trace of every step and the HTML report, and the report opened
    // in headless Chromium (to its DOM after the scripts ran) where one is installed.
    let traces = folder + "-traces"
    let page = folder + "-report.html"
    var tracedRuns: [Double] = []
    for _ in 0..<3 {
      tracedRuns.append(
        timeProcess(
          workbench, ["run", "--jobs", "1", folder, "--trace", traces, "--html", page], output: folder + ".out")
          ?? .infinity)
    }
    let traced = tracedRuns.min() ?? .infinity
    let pageSize = Double(readBytes(page).count) / 1_048_576
    let traceSize = Double(duTotal(traces)) / 1_048_576
    var browserLine = "  report in headless Chromium: no chromium installed"
    let browsers: [String] = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
    if let chromium = browsers.first(where: { access($0, X_OK) == 0 }) {
      let open = bestOf(3) {
        timeProcess(
          chromium,
          [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=/tmp/workbench-bench-chromium",
            "--dump-dom", "file://" + page,
          ], output: folder + ".dom") ?? .infinity
      }
      let blank = bestOf(3) {
        timeProcess(
          chromium,
          [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=/tmp/workbench-bench-chromium",
            "--dump-dom", "about:blank",
          ], output: folder + ".dom") ?? .infinity
      }
      browserLine =
        "  report in headless Chromium (start, load, scripts, DOM out): \(format(open * 1000, 0)) ms "
        + "(an empty page: \(format(blank * 1000, 0)) ms)"
    }
    let summary = readBytes(folder + ".out")
    let lastLine = String(decoding: summary, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "?"
    let steps = Double(files * stepsPerScenario)
    return [
      "scenarios: \(files) files of one scenario with \(stepsPerScenario) steps each (\(events) YAML events):",
      "  libyaml alone (read + parse, 1 core)    \(format(parseTime * 1000, 1)) ms",
      "  workbench check (load + check, no run)  \(format(check * 1000, 1)) ms  (\(format(check / parseTime, 2))x libyaml)",
      "  workbench run --jobs 1                  \(format(serial * 1000, 1)) ms  "
        + "(\(format(Double(files) / serial, 0)) scenarios/s, \(format(serial / steps * 1e6, 1)) µs per step, "
        + "\(format(serial / parseTime, 2))x libyaml)",
      "  workbench run --jobs 2                  \(format(parallel * 1000, 1)) ms  "
        + "(\(format(Double(files) / parallel, 0)) scenarios/s, speed-up \(format(serial / parallel, 2))x)",
      "  the machine's own speed-up               \(format(machine, 2))x (a one-thread C loop: two at once in "
        + "\(format(both * 1000, 1)) ms); --jobs 2 reaches \(format(serial / parallel / machine, 2)) of it (goal: 0.95)",
      "  workbench run --jobs 1 --trace --html   \(format(traced * 1000, 1)) ms  "
        + "(+\(format((traced / serial - 1) * 100, 1))% over the plain run; traces \(format(traceSize, 1)) MB, "
        + "report \(format(pageSize, 1)) MB)",
      browserLine,
      "  last line of the run: \(lastLine)",
      "mixed corpus: \(files) files, a catalog and two goal windows each (\(mixedEvents) YAML events):",
      "  libyaml alone (read + parse, 1 core)    \(format(mixedParse * 1000, 1)) ms",
      "  workbench run --jobs 1                  \(format(mixedSerial * 1000, 1)) ms  "
        + "(\(format(mixedSerial / mixedParse, 2))x libyaml)",
      "  workbench run --jobs 2                  \(format(mixedParallel * 1000, 1)) ms  "
        + "(speed-up \(format(mixedSerial / mixedParallel, 2))x)",
      "  last line of the run: \(mixedLast)",
    ]
  }

  /// A C program that spins one core for about a third of a second and exits, built in `folder`;
  /// `nil` without a C compiler.
  static func spinningChild(in folder: String) -> String? {
    compileC(
      "int main(void) { volatile unsigned long x = 0; for (unsigned long i = 0; i < 1200000000UL; i++) x += i; "
        + "return (int)(x & 0); }\n", to: folder + "-spin")
  }

  /// The wall time of two processes of `path` with `arguments` started together, until both
  /// have ended; `nil` when either did not start or failed.
  static func twoAtOnce(_ path: String, _ arguments: [String], outputs folder: String) -> Double? {
    let start = now()
    let children = (0..<2).compactMap { index in
      try? SpawnedProcess(path, arguments: arguments, output: .file(folder + ".both\(index).out"), error: .null)
    }
    let ended = children.map { $0.wait() }
    let elapsed = now() - start
    guard children.count == 2, ended.allSatisfy({ $0 == .exited(0) || $0 == .exited(1) }) else { return nil }
    return elapsed
  }

  /// The bytes of the files in a folder.
  static func duTotal(_ folder: String) -> Int {
    guard let directory = opendir(folder) else { return 0 }
    defer { closedir(directory) }
    var total = 0
    while let entry = readdir(directory) {
      let name = FileSystem.entry(entry).name
      var info = stat()
      if stat(folder + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { total += Int(info.st_size) }
    }
    return total
  }

  static func generate(files: Int, steps: Int, in folder: String, mixed: Bool = false) {
    mkdir(folder, 0o755)
    let queries = ["the", "war", "design", "code", "dune", "art", "of", "and"]
    for index in 0..<files {
      var lines = [
        "scenario: Generated \(index)", "tags: [generated]", "windows:", "  left: catalog library",
        "  right: catalog library", "steps:",
      ]
      if mixed {
        lines = [
          "scenario: Mixed \(index)", "tags: [generated, mixed]", "documents:", "  reading:", "    kind: goal",
          "    target: 1000", "windows:", "  left: catalog library", "  plan: goal reading", "  other: goal reading",
          "steps:",
        ]
      }
      var written = 0
      var step = 0
      var completed = 0
      while written < steps {
        if mixed && step % 2 == 1 {
          completed += 1
          lines.append("  - plan: complete")
          lines.append("  - expect:")
          lines.append("      plan: {completed: \(completed)}")
          lines.append("      other: {progress: \(completed) of 1000}")
          written += 2
          step += 1
          continue
        }
        let book = (index + step) % 30 + 1
        let window = mixed || step % 2 == 0 ? "left" : "right"
        switch step % 3 {
        case 0:
          lines.append("  - \(window): select \(book)")
          lines.append("  - expect:")
          lines.append("      \(window): {selected: \(book)}")
        case 1:
          let query = queries[(index + step) % queries.count]
          lines.append("  - \(window): query \(query)")
          lines.append("  - expect:")
          lines.append("      \(window): {query: \(query)}")
        default:
          lines.append("  - \(window): query")
          lines.append("  - expect:")
          lines.append("      \(window): {query: \"\", total: 30}")
        }
        written += 2
        step += 1
      }
      let path = "\(folder)/scenario-\(index).yaml"
      let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      guard descriptor >= 0 else { continue }
      var bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
      _ = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress, $0.count) }
      close(descriptor)
    }
  }

  static func readBytes(_ path: String) -> [UInt8] {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return [] }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = read(descriptor, &buffer, buffer.count)
      if count <= 0 { break }
      bytes += buffer[..<count]
    }
    return bytes
  }
}
