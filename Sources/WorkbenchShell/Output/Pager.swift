import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Shows text taller than the terminal through the user's pager, as psql and git do: the
/// interactive shell's `help`, `history` and long lists. `$WORKBENCH_PAGER`, else `$PAGER`, else
/// `less` (with `LESS=FRX` unless `LESS` is set); an empty value turns paging off.
struct Pager {
  /// The command, run by `/bin/sh -c`.
  let command: String

  /// The pager the environment asks for, `nil` when paging is off.
  static func fromEnvironment() -> Pager? {
    let chosen = [getenv("WORKBENCH_PAGER"), getenv("PAGER")].lazy.compactMap { $0 }.first.map { String(cString: $0) }
    let command = chosen ?? "less"
    return command.allSatisfy(\.isWhitespace) ? nil : Pager(command: command)
  }

  /// The terminal's height when standard output is one.
  static func terminalRows() -> Int? {
    guard isatty(STDOUT_FILENO) == 1, isatty(STDIN_FILENO) == 1, let size = OutputWriter.terminalSize(),
      size.ws_row > 0
    else { return nil }
    return Int(size.ws_row)
  }

  /// Whether `text` is taller than the terminal (leaving a line for the prompt).
  static func isTaller(_ text: String, than rows: Int) -> Bool {
    var lines = 1
    for byte in text.utf8 where byte == UInt8(ascii: "\n") {
      lines += 1
      if lines >= rows { return true }
    }
    return false
  }

  /// Shows `text` in the pager and waits for it to end (Ctrl-C is the pager's meanwhile).
  ///
  /// - Returns: what went wrong, when the text could not be shown (it is then the caller's to
  ///   print): the pager did not start, or the shell found no such command.
  func show(_ text: String) -> String? {
    let process: SpawnedProcess
    do {
      // less leaves the text on the screen, quits on text that fits, and shows colour.
      process = try SpawnedProcess(
        "/bin/sh", arguments: ["-c", "LESS=\"${LESS-FRX}\"; export LESS; " + command], input: .pipe, output: .inherited,
        error: .inherited, defaultSignals: [SIGPIPE, SIGINT, SIGQUIT])
    } catch {
      return "the pager did not start (\(error)); set PAGER to another, or to nothing to print without one"
    }
    // Ctrl-C reaches the whole foreground group: it is the pager's to take while it runs.
    var ignore = sigaction()
    ignore.__sigaction_handler.sa_handler = SIG_IGN
    var previous = sigaction()
    sigaction(SIGINT, &ignore, &previous)
    defer { sigaction(SIGINT, &previous, nil) }
    // A pager quit before the end stops reading: the rest is not wanted.
    process.write(Array((text + "\n").utf8))
    process.closeInput()
    if case .exited(127) = process.wait() {
      return "the pager '\(command)' was not found; set PAGER to another, or to nothing to print without one"
    }
    return nil
  }
}
