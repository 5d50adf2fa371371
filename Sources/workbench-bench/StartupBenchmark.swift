import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Start-up as a script pays it on every call, whole process, against a hello-world Swift
/// binary built the same way: `workbench --version`, and a one-shot catalog query on an
/// in-memory workspace and on a workspace file that already holds the samples (what a script
/// calling `workbench -c` on its workspace meets). The release binary measured is the one in
/// the build folder: build it as scripts/install.sh does to measure what is installed.
enum StartupBenchmark {
  static func run(iterations: Int) -> [String] {
    let binaries = buildFolder()
    let workbench = binaries + "/workbench"
    let hello = binaries + "/hello-baseline"
    let query = "open catalog library; query the"
    let oneShot = ["-w", ":memory:", "-c", query]
    guard let folder = FileSystem.makeTemporaryFolder(prefix: "workbench-bench-startup") else {
      return ["startup: could not make a temporary folder"]
    }
    let workspace = folder + "/workspace.db"
    let onWorkspace = ["-w", workspace, "-c", query]
    // Warm the page cache (and make the workspace), then interleave the runs so machine noise
    // hits all alike.
    _ = timeProcess(workbench, ["--version"])
    _ = timeProcess(workbench, oneShot)
    _ = timeProcess(workbench, onWorkspace)
    _ = timeProcess(hello, [])
    // The order turns every iteration, so each command follows each of the others as often (in
    // a fixed order `--version` always came right after the run that writes a workspace file).
    let commands: [(binary: String, arguments: [String])] = [
      (workbench, ["--version"]), (hello, []), (workbench, oneShot), (workbench, onWorkspace),
    ]
    var times = [[Double]](repeating: [], count: commands.count)
    for iteration in 0..<iterations {
      for step in 0..<commands.count {
        let which = (iteration + step) % commands.count
        guard let time = timeProcess(commands[which].binary, commands[which].arguments) else {
          return ["startup: could not run \(workbench) or \(hello); build both with -c release first"]
        }
        times[which].append(time)
      }
    }
    let (versionTimes, helloTimes, oneShotTimes, workspaceTimes) = (times[0], times[1], times[2], times[3])
    let helloMedian = percentile(helloTimes, 50) * 1000
    let versionMedian = percentile(versionTimes, 50) * 1000
    let oneShotMedian = percentile(oneShotTimes, 50) * 1000
    let workspaceMedian = percentile(workspaceTimes, 50) * 1000
    let linkage =
      (linksDynamically(workbench, "libswiftCore.so") ? "the Swift runtime linked dynamically" : "static Swift runtime")
      + (linksDynamically(workbench, "libsqlite3.so") ? ", C libraries shared" : ", C libraries linked in")
    return [
      "startup (median of \(iterations) runs each; \(linkage)):",
      "  hello-baseline                         \(format(helloMedian)) ms",
      "  workbench --version                    \(format(versionMedian)) ms  "
        + "\(format(versionMedian / helloMedian))x  (target with a static runtime: at most 1.10x)",
      "  workbench -c 'open catalog library; query the'  \(format(oneShotMedian)) ms  "
        + "\(format(oneShotMedian / helloMedian))x  (target with a static runtime: at most 1.50x)",
      "  the same on a workspace file            \(format(workspaceMedian)) ms  "
        + "\(format(workspaceMedian / helloMedian))x",
    ]
  }

  /// Whether the binary needs the shared library `library` rather than carrying the code (a
  /// build with `--static-swift-stdlib` carries libswiftCore): its dynamic section names it.
  static func linksDynamically(_ path: String, _ library: String) -> Bool {
    guard let file = fopen(path, "rb") else { return true }
    defer { fclose(file) }
    let needle = Array(library.utf8)
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var carry: [UInt8] = []
    while true {
      let count = fread(&buffer, 1, buffer.count, file)
      if count == 0 { return false }
      let chunk = carry + buffer[..<count]
      if chunk.count >= needle.count {
        for index in 0...(chunk.count - needle.count) where chunk[index] == needle[0] {
          if Array(chunk[index..<(index + needle.count)]) == needle { return true }
        }
      }
      carry = Array(chunk.suffix(needle.count - 1))
    }
  }
}
