import WorkbenchCore
import WorkbenchModuleAPI

/// One option of the program's own command line (`--rows N`, `--json`), declared once as data:
/// the parser, `--help` and the man page are made from the same declarations.
public struct ProgramOption<Target>: Sendable {
  /// The spellings, short first (`-w`, `--workspace`).
  public let names: [String]
  /// The value's placeholder (`FILE`), or `nil` for a flag.
  public let value: String?
  /// One line of help; `nil` for an option of the program's own (a worker's), left out of help.
  public let help: String?
  /// Records the option (and its value) in the options being parsed; throws a message for a
  /// value it cannot take.
  let apply: @Sendable (inout Target, String?) throws(ProgramUsageError) -> Void

  /// A flag: `--json`.
  public static func flag(
    _ names: [String], help: String?, _ apply: @escaping @Sendable (inout Target) -> Void
  ) -> Self {
    Self(names: names, value: nil, help: help) { target, _ throws(ProgramUsageError) in apply(&target) }
  }

  /// `-m, --module PATH`, the one declaration of the option every front end and subcommand
  /// that loads external modules takes: each use appends a path at `paths`.
  public static func modules(_ paths: WritableKeyPath<Target, [String]> & Sendable) -> Self {
    value(moduleNames, "PATH", help: "also load the module built as the executable PATH (repeatable)") {
      $0[keyPath: paths].append($1)
    }
  }

  /// `-w, --workspace FILE`, declared once for the shell and every subcommand that opens a
  /// workspace; `help` says what it is to that subcommand.
  public static func workspace(
    _ path: WritableKeyPath<Target, String?> & Sendable,
    help: String = "the workspace file (default: under $XDG_DATA_HOME/workbench)"
  ) -> Self {
    value(workspaceNames, "FILE", help: help) { $0[keyPath: path] = $1 }
  }

  /// The spellings of the workspace option.
  public static var workspaceNames: [String] { ["-w", "--workspace"] }

  /// The spellings of the module option.
  public static var moduleNames: [String] { ["-m", "--module"] }

  /// An option with a value: `--rows N`.
  public static func value(
    _ names: [String], _ placeholder: String, help: String?,
    _ apply: @escaping @Sendable (inout Target, String) throws(ProgramUsageError) -> Void
  ) -> Self {
    Self(names: names, value: placeholder, help: help) { target, value throws(ProgramUsageError) in
      try apply(&target, value ?? "")
    }
  }

  /// How the option reads in help: `-w, --workspace FILE`.
  public var synopsis: String {
    names.joined(separator: ", ") + (value.map { " " + $0 } ?? "")
  }
}

/// A mistake in how the program was invoked; exits with code 2.
public struct ProgramUsageError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong.
  public let message: String
  /// A usage error with a message.
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// Parses a command line against declared options. Words that are not options are operands,
/// in order; options may stand before, between or after them.
public enum ProgramOptionParser {
  /// The options applied to `target`, and the operands.
  ///
  /// - Throws: `ProgramUsageError` for an unknown option (with the closest known one), a missing
  ///   value, or a value an option refuses.
  public static func parse<Target>(
    _ arguments: [String], options: [ProgramOption<Target>], into target: inout Target
  ) throws(ProgramUsageError) -> [String] {
    var operands: [String] = []
    var index = 0
    while index < arguments.count {
      let word = arguments[index]
      index += 1
      guard word.hasPrefix("-"), word != "-" else {
        operands.append(word)
        continue
      }
      // A loop, not `first(where:)`: that is the standard library's generic code run
      // unspecialised for this generic option type, which cost 0.17 M instructions at start.
      var matched: ProgramOption<Target>?
      for candidate in options where candidate.names.contains(word) {
        matched = candidate
        break
      }
      guard let option = matched else {
        let names = options.filter { $0.help != nil }.flatMap(\.names) + ["--help"]
        let hint = Suggestions.didYouMean(word, in: names, quoted: false)
        throw ProgramUsageError("unknown option '\(word)'\(hint)")
      }
      var value: String?
      if let placeholder = option.value {
        guard index < arguments.count, !arguments[index].isEmpty else {
          throw ProgramUsageError("\(word) needs \(placeholder)")
        }
        value = arguments[index]
        index += 1
      }
      try option.apply(&target, value)
    }
    return operands
  }

  /// The options section of a help text: one aligned line an option.
  public static func help<Target>(_ options: [ProgramOption<Target>], width: Int = 21) -> String {
    options.compactMap { option in
      guard let help = option.help else { return nil }
      let synopsis = option.synopsis
      let padded =
        synopsis.count >= width ? synopsis + " " : synopsis + String(repeating: " ", count: width - synopsis.count)
      return "  " + padded + help
    }.joined(separator: "\n")
  }
}
