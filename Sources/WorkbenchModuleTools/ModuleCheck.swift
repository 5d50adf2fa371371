import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench module-check EXE`: starts a module executable and drives it through the protocol
/// (docs/protocol.md), printing each check with what it expected. Checks follow what the module
/// declares in its handshake: a module with no screens is not failed for opening none.
@MainActor
public enum ModuleCheck {
  struct Check {
    let id: String
    let section: String
    var passed: Bool
    var detail: String
  }

  /// `module-check`'s options, declared once (the parser, `--help`, the man page and the
  /// completion scripts are made from them).
  public static let options: [ProgramOption<String?>] = [
    .value(["--baseline"], "FILE", help: "check ids known to fail, one a line") { $0 = $1 }
  ]

  /// What `module-check` does, for its `--help`.
  public static let details = """
    Starts the module and drives it through the protocol (docs/protocol.md): handshake, open, each
    command, refresh, errors, close, a malformed message and shutdown. Exit 0 when every check passes.
    A baseline file lists the ids of checks known to fail, one a line; the run fails when one of them
    passes (remove it) or another fails.
    """

  /// Runs `module-check EXE [--baseline FILE]`; returns the exit status.
  /// The names the modules a module meets beside it take (the built-ins', unless left out): a
  /// module's document kind or sample of one of these names cannot be loaded with them.
  public struct TakenNames: Sendable {
    public var kinds: [(kind: String, module: String)] = []
    public var samples: [(name: String, kind: String)] = []
    public init(kinds: [(kind: String, module: String)] = [], samples: [(name: String, kind: String)] = []) {
      self.kinds = kinds
      self.samples = samples
    }
  }

  public static func run(_ arguments: [String], taken: TakenNames = TakenNames()) -> ExitCode {
    let usage = "usage: workbench module-check EXECUTABLE [--baseline FILE]\n"
    var baselinePath: String?
    let operands: [String]
    do {
      operands = try ProgramOptionParser.parse(arguments, options: options, into: &baselinePath)
    } catch {
      StandardStreams.write("workbench module-check: \(error.message)\n" + usage, to: STDERR_FILENO)
      return .usage
    }
    if operands.count > 1 {
      StandardStreams.write("workbench module-check: unexpected '\(operands[1])'\n" + usage, to: STDERR_FILENO)
      return .usage
    }
    let executable = operands.first
    guard let executable else {
      StandardStreams.write("workbench module-check: name the module's executable\n" + usage, to: STDERR_FILENO)
      return .usage
    }
    guard access(executable, X_OK) == 0 else {
      StandardStreams.write("workbench module-check: \(executable) is not an executable file\n", to: STDERR_FILENO)
      return .usage
    }
    var baseline: Set<String> = []
    if let baselinePath {
      guard let bytes = try? FileSystem.read(baselinePath) else {
        StandardStreams.write("workbench module-check: cannot read the baseline \(baselinePath)\n", to: STDERR_FILENO)
        return .usage
      }
      baseline = Set(
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { String($0).trimmingSpaces }
          .filter { !$0.isEmpty && !$0.hasPrefix("#") })
    }
    let checks = runChecks(executable, taken: taken)
    var failed = 0
    var lines = ["module-check \(executable)"]
    let width = (checks.map(\.id.count).max() ?? 0) + 2
    for check in checks {
      let known = baseline.contains(check.id)
      var mark = check.passed ? "✔" : (known ? "✘ (baseline)" : "✘")
      if check.passed && known {
        mark = "✘ (in the baseline, but passes now: remove it from the baseline)"
        failed += 1
      } else if !check.passed && !known {
        failed += 1
      }
      lines.append(
        "\(check.passed && !known ? "✔" : "✘") \(check.id)\(String(repeating: " ", count: width - check.id.count))"
          + "\(check.section)  \(check.detail)" + (mark.count > 2 ? "  " + mark.dropFirst(2) : ""))
    }
    for id in baseline.subtracting(checks.map(\.id)).sorted() {
      lines.append("✘ \(id)  in the baseline, but no such check ran: remove it from the baseline")
      failed += 1
    }
    lines.append(
      "\(checks.count - checks.filter { !$0.passed }.count) passed, \(checks.filter { !$0.passed }.count) failed"
        + (baseline.isEmpty ? "" : " (\(baseline.count) in the baseline)"))
    // What the module said (a refusal, its version, a screen's kind) is shown, never obeyed: its
    // escape sequences and bells are written visibly.
    StandardStreams.write(TerminalText.visible(lines.joined(separator: "\n")) + "\n", to: STDOUT_FILENO)
    return failed == 0 ? .success : .failure
  }

  static func runChecks(_ executable: String, taken: TakenNames = TakenNames()) -> [Check] {
    guard let peer = Peer(executable: executable) else {
      return [Check(id: "start", section: "§2", passed: false, detail: "the executable could not be started")]
    }
    defer { peer.stop() }
    let run = CheckRun(peer: peer, executable: executable)
    run.taken = taken
    for stage in stages where !stage.protocolTwoOnly || run.speaksTwo {
      guard stage.run(run) else { break }
    }
    return run.checks
  }
}

extension String {
  fileprivate var trimmingSpaces: String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}
