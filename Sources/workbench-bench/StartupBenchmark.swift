/// `workbench --version` against a hello-world Swift binary built the same way.
enum StartupBenchmark {
  static func run(iterations: Int) -> [String] {
    let folder = buildFolder()
    let workbench = folder + "/workbench"
    let hello = folder + "/hello-baseline"
    // Warm the page cache, then interleave the two so machine noise hits both alike.
    _ = timeProcess(workbench, ["--version"])
    _ = timeProcess(hello, [])
    var workbenchTimes: [Double] = []
    var helloTimes: [Double] = []
    for _ in 0..<iterations {
      guard let a = timeProcess(workbench, ["--version"]), let b = timeProcess(hello, []) else {
        return ["startup: could not run \(workbench) or \(hello); build both with -c release first"]
      }
      workbenchTimes.append(a)
      helloTimes.append(b)
    }
    let workbenchMedian = percentile(workbenchTimes, 50) * 1000
    let helloMedian = percentile(helloTimes, 50) * 1000
    return [
      "startup (median of \(iterations) runs each):",
      "  hello-baseline          \(format(helloMedian)) ms",
      "  workbench --version     \(format(workbenchMedian)) ms",
      "  ratio                   \(format(workbenchMedian / helloMedian))x  (target: at most 1.60x)",
    ]
  }
}
