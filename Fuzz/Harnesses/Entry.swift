// Two ways in. Built with `-sanitize=fuzzer` and `-D FUZZING` (see docs/fuzzing.md), `main`
// hands over to libFuzzer's driver, which calls `LLVMFuzzerTestOneInput` with inputs it
// generates; the harness is chosen by the WORKBENCH_FUZZ_TARGET environment variable. Built
// plainly, as `swift build` does, the program replays files through a harness:
// `workbench-fuzz TARGET FILE...`, which is how a crash found by a fuzzer becomes a regression
// check. (SwiftPM names an executable's entry point after its module, so libFuzzer's own `main`
// is not used; its driver is called from ours.)

import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  MainActor.assumeIsolated {
    let name = getenv("WORKBENCH_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let harness = Harness(rawValue: name) else {
      let names = Harness.allCases.map(\.rawValue).joined(separator: ", ")
      let message = "set WORKBENCH_FUZZ_TARGET to one of: \(names)\n"
      _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
      exit(2)
    }
    harness.run(bytes)
  }
  return 0
}

#if FUZZING
  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
  ) -> Int32

  @main
  struct Fuzz {
    static func main() {
      var argc = CommandLine.argc
      var argv = CommandLine.unsafeArgv
      exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
    }
  }
#else
  @main
  struct Replay {
    static func main() {
      let arguments = Array(CommandLine.arguments.dropFirst())
      MainActor.assumeIsolated {
        guard let name = arguments.first, let harness = Harness(rawValue: name), arguments.count > 1 else {
          let names = Harness.allCases.map(\.rawValue).joined(separator: "|")
          print("usage: workbench-fuzz \(names) FILE...   (replays each file through the harness)")
          exit(2)
        }
        var count = 0
        for path in arguments.dropFirst() {
          guard let bytes = readFile(path) else {
            print("cannot read \(path)")
            exit(2)
          }
          harness.run(bytes)
          count += 1
        }
        print("\(name): \(count) inputs replayed, none crashed")
      }
    }

    static func readFile(_ path: String) -> [UInt8]? {
      try? FileSystem.read(path, limit: 64 * 1024 * 1024)
    }
  }
#endif
