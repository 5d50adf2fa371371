#if canImport(Glibc)
  import Glibc
#endif

/// Start-up as a script pays it on every call, whole process, against a hello-world Swift
/// binary built the same way: `workbench --version`, and a one-shot catalog query on an
/// in-memory workspace. The release binary measured is the one in the build folder: build it
/// with `--static-swift-stdlib` (as scripts/install.sh does) to measure what is installed.
enum StartupBenchmark {
  static func run(iterations: Int) -> [String] {
    let folder = buildFolder()
    let workbench = folder + "/workbench"
    let hello = folder + "/hello-baseline"
    let oneShot = ["-w", ":memory:", "-c", "open catalog library; query the"]
    // Warm the page cache, then interleave the runs so machine noise hits all alike.
    _ = timeProcess(workbench, ["--version"])
    _ = timeProcess(workbench, oneShot)
    _ = timeProcess(hello, [])
    var versionTimes: [Double] = []
    var oneShotTimes: [Double] = []
    var helloTimes: [Double] = []
    for _ in 0..<iterations {
      guard let a = timeProcess(workbench, ["--version"]), let b = timeProcess(hello, []),
        let c = timeProcess(workbench, oneShot)
      else {
        return ["startup: could not run \(workbench) or \(hello); build both with -c release first"]
      }
      versionTimes.append(a)
      helloTimes.append(b)
      oneShotTimes.append(c)
    }
    let helloMedian = percentile(helloTimes, 50) * 1000
    let versionMedian = percentile(versionTimes, 50) * 1000
    let oneShotMedian = percentile(oneShotTimes, 50) * 1000
    let linkage =
      linksSwiftRuntimeDynamically(workbench) ? "the Swift runtime linked dynamically" : "static Swift runtime"
    return [
      "startup (median of \(iterations) runs each; \(linkage)):",
      "  hello-baseline                         \(format(helloMedian)) ms",
      "  workbench --version                    \(format(versionMedian)) ms  "
        + "\(format(versionMedian / helloMedian))x  (target with a static runtime: at most 1.10x)",
      "  workbench -c 'open catalog library; query the'  \(format(oneShotMedian)) ms  "
        + "\(format(oneShotMedian / helloMedian))x  (target with a static runtime: at most 1.50x)",
    ]
  }

  /// Whether the binary needs the Swift runtime's shared library (a dynamic build) rather
  /// than carrying it (`--static-swift-stdlib`): its dynamic section names libswiftCore.
  static func linksSwiftRuntimeDynamically(_ path: String) -> Bool {
    guard let file = fopen(path, "rb") else { return true }
    defer { fclose(file) }
    let needle = Array("libswiftCore.so".utf8)
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
