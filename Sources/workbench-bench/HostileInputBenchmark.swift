import BuiltInModules
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios

/// Input an adversary would write, timed: a command line holding one 4 MB word through the
/// tokenizer, and a scenario file with that line through the whole check.
@MainActor
enum HostileInputBenchmark {
  static func run(megabytes: Int) -> [String] {
    let word = String(repeating: "x", count: megabytes * 1024 * 1024)
    let line = "query " + word
    let tokenize = bestOf(5) { measure { _ = try? CommandTokenizer.commands(in: line) } }
    let file = Array("scenario: One big word\nwindows:\n  main: catalog library\nsteps:\n  - main: \(line)\n".utf8)
    guard let loader = try? ScenarioLoader(modules: builtInModules) else { return ["hostile: no loader"] }
    var loaded = false
    let check = bestOf(3) {
      measure { loaded = (try? loader.load(bytes: file, path: "/tmp/big-word.yaml")) != nil }
    }
    let bytes = Double(line.utf8.count)
    // A pattern that backtracks exponentially in a backtracking engine (36 s at 20 characters
    // with Swift's Regex), against subjects of growing length: the time stays linear.
    var patternLines: [String] = []
    if case .success(let bomb) = RegexLimits.compile("(a+)+$") {
      for length in [20, 1_000, 100_000] {
        let subject = String(repeating: "a", count: length) + "b"
        var matched = true
        let time = bestOf(3) { measure { matched = bomb.matches(in: subject) } }
        patternLines.append(
          "  /(a+)+$/ against \(length) a's and a b: \(format(time * 1e6, 1)) µs (\(format(time / Double(length + 1) * 1e9, 1)) ns a character)"
            + (matched ? " — it matched, which it must not" : ""))
      }
    }
    return [
      "hostile input (a \(megabytes) MB word):",
      "  tokenize \(format(tokenize * 1000, 1)) ms (\(format(tokenize / bytes * 1e9, 2)) ns a byte); "
        + "check the scenario file \(format(check * 1000, 1)) ms (\(format(check / bytes * 1e9, 2)) ns a byte)"
        + (loaded ? "" : " — the file did not load"),
    ] + patternLines
  }
}
