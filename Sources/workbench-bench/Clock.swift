import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Monotonic wall-clock time in seconds.
func now() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Runs `body` and returns how long it took in seconds.
func measure(_ body: () throws -> Void) rethrows -> Double {
  let start = now()
  try body()
  return now() - start
}

/// The value at a percentile (0...100) of some samples.
func percentile(_ samples: [Double], _ percent: Double) -> Double {
  let sorted = samples.sorted()
  guard !sorted.isEmpty else { return 0 }
  let index = min(sorted.count - 1, Int((percent / 100 * Double(sorted.count)).rounded(.up)) - 1)
  return sorted[max(0, index)]
}

/// The peak resident memory of this process so far, in megabytes.
func peakMemoryMB() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Double(usage.ru_maxrss) / 1024
}

/// A number with a fixed count of decimals.
func format(_ value: Double, _ decimals: Int = 2) -> String {
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let rounded = (value * scale).rounded() / scale
  var text = String(rounded)
  if let dot = text.firstIndex(of: ".") {
    let have = text.distance(from: dot, to: text.endIndex) - 1
    if have < decimals { text += String(repeating: "0", count: decimals - have) }
  } else if decimals > 0 {
    text += "." + String(repeating: "0", count: decimals)
  }
  return text
}

/// The folder this executable is in: the build folder that also holds `workbench`.
func buildFolder() -> String {
  var buffer = [CChar](repeating: 0, count: 4096)
  let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
  let path = length > 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
  return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
}

/// Starts a program with its output sent to `output`, waits for it, and returns the wall time
/// in seconds, or `nil` if it could not start or failed (exit 1 counts as run unless `strict`).
/// (Send grep's output to a real file: GNU grep stops at the first match when its output is
/// /dev/null.)
func timeProcess(
  _ path: String, _ arguments: [String], output: String = "/dev/null", input: String = "/dev/null", strict: Bool = false
) -> Double? {
  measureProcess(path, arguments, output: output, input: input, strict: strict)?.seconds
}

/// As `timeProcess`, with the peak memory (MB) the OS counted for the process.
func measureProcess(
  _ path: String, _ arguments: [String], output: String = "/dev/null", input: String = "/dev/null", strict: Bool = false
) -> (seconds: Double, peakMB: Double)? {
  let start = now()
  guard
    let process = try? SpawnedProcess(
      path, arguments: arguments, input: .file(input), output: .file(output), error: .null)
  else { return nil }
  let (termination, peak) = process.waitMeasuringMemory()
  let elapsed = now() - start
  guard termination == .exited(0) || (!strict && termination == .exited(1)) else { return nil }
  return (elapsed, Double(peak) / 1024)
}

/// A child's peak memory in words: `23.0 MB`, or why it cannot be told. A spawned child shares
/// the benchmark's address space until it execs, and the kernel starts its peak from that
/// space's high-water mark: after a section that held a million books, every child reads as
/// at least the benchmark's own peak. Such a figure is not the child's.
func childPeak(_ peak: Double, decimals: Int = 1) -> String {
  let parent = peakMemoryMB()
  guard peak > parent else {
    return "peak not measured (the benchmark peaked at \(format(parent, 0)) MB before; run this section alone)"
  }
  return "peak \(format(peak, decimals)) MB"
}

/// The smallest of `count` measurements.
func bestOf(_ count: Int, _ body: () -> Double) -> Double {
  (0..<count).map { _ in body() }.min() ?? 0
}

/// `text` as a C program compiled with the system's compiler (`cc`, `gcc` or `clang`, `-O2`) to
/// `binary`, beside its source; `nil` without a compiler or when it does not compile.
func compileC(_ text: String, to binary: String) -> String? {
  let source = binary + ".c"
  guard FileSystem.write(text, to: source) else { return nil }
  for compiler in ["cc", "gcc", "clang"] {
    if let compiling = try? SpawnedProcess(
      compiler, arguments: ["-O2", "-o", binary, source], output: .null, error: .null, searchingPath: true),
      compiling.wait().status == 0
    {
      return binary
    }
  }
  return nil
}
