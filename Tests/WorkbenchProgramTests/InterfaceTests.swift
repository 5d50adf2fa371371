import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `path` with every link and `..` resolved, if it exists.
private func realPath(_ path: String) -> String? {
  guard let resolved = realpath(path, nil) else { return nil }
  defer { free(resolved) }
  return String(cString: resolved)
}

#if canImport(Glibc)
  import Glibc
#endif

/// The completion scripts and the man page are generated from the option tables `--help`
/// prints, so every option `--help` names is in each of them, and the bash script completes.
@Suite struct InterfaceTests {
  /// The options a help text names (`-c`, `--command`, ...).
  static func options(inHelp text: String) -> Set<String> {
    var found = Set<String>()
    for line in text.split(separator: "\n") where line.hasPrefix("  -") {
      for word in line.split(separator: " ") where word.hasPrefix("-") && word.count > 1 {
        let name = word.trimmingSuffix(",")
        if name.dropFirst(name.hasPrefix("--") ? 2 : 1).allSatisfy({ $0.isLetter || $0 == "-" }) {
          found.insert(String(name))
        }
      }
    }
    return found
  }

  @Test func everyOptionOfTheHelpIsInTheCompletionsAndTheManPage() throws {
    let shellHelp = ChildProcess.runWorkbench(["--help"]).stdout
    let runHelp = ChildProcess.runWorkbench(["run", "--help"]).stdout
    let options = Self.options(inHelp: shellHelp).union(Self.options(inHelp: runHelp))
    #expect(options.isSuperset(of: ["-c", "--command", "--rows", "-w", "--filter", "--shard", "--junit"]))
    let man = ChildProcess.runWorkbench(["man"])
    #expect(man.status == 0)
    for shell in ["bash", "zsh", "fish"] {
      let script = ChildProcess.runWorkbench(["completions", shell])
      #expect(script.status == 0)
      for option in options {
        let spelled =
          shell == "fish" ? (option.hasPrefix("--") ? "-l \(option.dropFirst(2))" : "-s \(option.dropFirst())") : option
        #expect(script.stdout.contains(spelled), "\(shell) completion lacks \(option)")
      }
    }
    for option in options {
      #expect(man.stdout.contains("\\fB" + option.replacing("-", with: "\\-") + "\\fR"), "the man page lacks \(option)")
    }
    for subcommand in ["run", "check", "reference", "modules", "new-module", "export", "import", "completions", "man"] {
      #expect(
        man.stdout.contains(".B workbench\n" + subcommand.replacing("-", with: "\\-")),
        "the man page lacks \(subcommand)")
    }
    #expect(ChildProcess.runWorkbench(["completions", "tcsh"]).status == 2)
  }

  @Test func theBashScriptCompletesSubcommandsOptionsAndScenarioFiles() throws {
    let folder = makeTemporaryFolder()
    let script = ChildProcess.runWorkbench(["completions", "bash"]).stdout
    writeTextFile(script, to: folder + "/workbench.bash")
    writeTextFile("scenario: x\n", to: folder + "/flow.yaml")
    writeTextFile("not a scenario\n", to: folder + "/flow.txt")
    func complete(_ words: [String]) -> String {
      let quoted = words.map { "'\($0)'" }.joined(separator: " ")
      let program =
        "cd '\(folder)'; source ./workbench.bash; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); "
        + "_workbench; echo \"${COMPREPLY[*]}\""
      let result = ChildProcess.run(
        "/bin/bash", ["-c", program], input: [], environment: ChildProcess.environment([:]))
      return result.stdout.trimmingSuffix("\n")
    }
    #expect(complete(["workbench", "ru"]) == "run")
    #expect(complete(["workbench", "run", "--fail"]) == "--fail-fast")
    #expect(complete(["workbench", "--ro"]) == "--rows")
    #expect(complete(["workbench", "run", "fl"]) == "flow.yaml")
    #expect(complete(["workbench", "completions", "z"]) == "zsh")
    // A subcommand's own options, and the built-in diagrams' names; never the internal ones.
    #expect(complete(["workbench", "diagram", "fe"]) == "feed")
    #expect(complete(["workbench", "run", "--wor"]) == "")
    #expect(complete(["workbench", "run", "--file-q"]) == "")
    #expect(complete(["workbench", "export", "--work"]) == "--workspace")
  }

  /// The subcommands in `workbench --help`, as names.
  static func subcommands(inHelp text: String) -> [String] {
    guard let start = text.firstRange(of: "subcommands (") else { return [] }
    return text[start.upperBound...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("  ") }
      .compactMap { $0.split(separator: " ").first.map(String.init) }
  }

  /// `workbench --help` names every subcommand the binary takes, and `workbench SUB --help`
  /// gives that subcommand's usage, not the program's.
  /// A Swift module package names the workbench checkout by a path relative to itself: no path
  /// of this machine in it (the two move together), and SwiftPM's name for it is the checkout's.
  @Test func aNewModuleNamesTheCheckoutRelativeToItself() throws {
    let folder = makeTemporaryFolder() + "/deeper"
    let created = ChildProcess.runWorkbench(["new-module", "tally", "--path", folder])
    #expect(created.status == 0, "\(created.stderr)")
    let manifest = try #require(readTextFile(folder + "/tally/Package.swift"))
    let path = try #require(manifest.firstMatch(of: /\.package\(path: "([^"]*)"\)/).map { String($0.1) }, "\(manifest)")
    #expect(!path.hasPrefix("/"), "\(path)")
    #expect(!manifest.contains("\"" + repositoryRoot()), "\(manifest)")
    let resolved = try #require(realPath(folder + "/tally/" + path), "\(path)")
    #expect(resolved == realPath(repositoryRoot()), "\(path) resolves to \(resolved)")
    let name = String(resolved.split(separator: "/").last ?? "")
    #expect(manifest.contains(#"package: "\#(name)""#), "\(manifest)")
  }

  @Test func theHelpNamesEverySubcommandAndEachHasItsOwnHelp() throws {
    let help = ChildProcess.runWorkbench(["--help"])
    #expect(help.status == 0)
    let names = Self.subcommands(inHelp: help.stdout)
    #expect(
      Set(names).isSuperset(of: [
        "run", "report", "check", "reference", "modules", "module-check", "new-module", "export", "import", "diagram",
        "completions", "man",
      ]), "\(names)")
    for name in names {
      let own = ChildProcess.runWorkbench([name, "--help"])
      #expect(own.status == 0, "\(name): \(own.stderr)")
      #expect(own.stdout.hasPrefix("usage: workbench \(name)"), "\(name) --help printed: \(own.stdout.prefix(120))")
      #expect(!own.stdout.contains("subcommands ("), "\(name) --help printed the program's help")
    }
    // Each subcommand's options are the table its parser reads: an option the parser takes is in
    // its help, the man page and the completions (`new-module --workbench` was in none).
    let newModule = ChildProcess.runWorkbench(["new-module", "--help"]).stdout
    #expect(newModule.contains("--workbench DIR"), "\(newModule)")
    #expect(ChildProcess.runWorkbench(["man"]).stdout.contains("\\-\\-workbench"))
    #expect(ChildProcess.runWorkbench(["completions", "bash"]).stdout.contains("--workbench"))
    // And an option in no table is refused by the parser, as every subcommand refuses one.
    for name in ["report", "diff", "check", "module-check", "diagram", "reference", "new-module", "export"] {
      let refused = ChildProcess.runWorkbench([name, "--no-such-option"])
      #expect(refused.status == 2, "\(name): \(refused.stdout)")
      #expect(refused.stderr.contains("unknown option '--no-such-option'"), "\(name): \(refused.stderr)")
    }
    // A word that is no subcommand is refused, with the program's help named.
    let unknown = ChildProcess.runWorkbench(["frobnicate"])
    #expect(unknown.status == 2)
    #expect(unknown.stderr.contains("neither a subcommand of workbench nor an option"), "\(unknown.stderr)")
  }

  /// Every option a subcommand takes is in its `--help`: `--without-builtin`, which the program
  /// reads before the subcommand's own parser, is listed by each subcommand that loads the
  /// built-in modules, and refused by the others. (`module-check --help` did not list it, though a
  /// port passes the check only with it: `workbench --without-builtin ledger module-check ...`.)
  @Test func everyOptionASubcommandTakesIsInItsHelp() throws {
    let names = Self.subcommands(inHelp: ChildProcess.runWorkbench(["--help"]).stdout)
    var listing: [String] = []
    for name in names {
      let help = ChildProcess.runWorkbench([name, "--help"]).stdout
      if Self.options(inHelp: help).contains("--without-builtin") {
        listing.append(name)
        #expect(help.contains("--without-builtin NAME"), "\(name): \(help)")
      } else {
        let refused = ChildProcess.runWorkbench(["--without-builtin", "ledger", name])
        #expect(refused.status == 2, "\(name): \(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("unknown option '--without-builtin'"), "\(name): \(refused.stderr)")
      }
    }
    #expect(
      Set(listing).isSuperset(of: ["run", "explore", "check", "lsp", "module-check", "diagram", "export", "import"]),
      "\(listing)")
  }

  /// No completion script offers an option that `--help` (the program's, or the subcommand's)
  /// does not list: the internal ones a worker is started with are never offered.
  @Test func theCompletionsOfferOnlyWhatTheHelpLists() throws {
    let programHelp = ChildProcess.runWorkbench(["--help"]).stdout
    var listed = Self.options(inHelp: programHelp)
    for name in Self.subcommands(inHelp: programHelp) {
      listed.formUnion(Self.options(inHelp: ChildProcess.runWorkbench([name, "--help"]).stdout))
    }
    #expect(listed.contains("--dot") && listed.contains("--html") && listed.contains("--baseline"))
    let bash = ChildProcess.runWorkbench(["completions", "bash"]).stdout
    var offered = Set<String>()
    for line in bash.split(separator: "\n") where line.contains("compgen -W") {
      // (`--` ends compgen's options; it is not one of ours.)
      for word in line.split(separator: " ")
      where word.hasPrefix("-") && word.count > 1 && word != "--" && !word.hasPrefix("-W") {
        let option = word.trimmingSuffix("\"")
        if option.dropFirst(option.hasPrefix("--") ? 2 : 1).allSatisfy({ $0.isLetter || $0 == "-" }) {
          offered.insert(String(option))
        }
      }
    }
    #expect(!offered.isEmpty)
    #expect(
      offered.subtracting(listed).isEmpty, "offered but not in any --help: \(offered.subtracting(listed).sorted())")
    for hidden in ["--worker", "--file-queue", "--skip-scenario", "--skip-file", "--only-scenario", "--keep-traces"] {
      for shell in ["bash", "zsh", "fish"] {
        let script = ChildProcess.runWorkbench(["completions", shell]).stdout
        let spelled = shell == "fish" ? "-l \(hidden.dropFirst(2)) " : hidden
        #expect(!script.contains(spelled), "\(shell) offers the internal \(hidden)")
      }
    }
  }

  /// Where groff is, if it is installed.
  static let groff: String? = ["/usr/bin/groff", "/usr/local/bin/groff"].first { access($0, X_OK) == 0 }
  /// CI installs groff and sets WORKBENCH_REQUIRE_GROFF: there the test cannot be skipped.
  static let groffRequired = getenv("WORKBENCH_REQUIRE_GROFF") != nil

  /// The man page is valid roff, rendered by groff. Where groff is not installed (and not
  /// required) the test is reported skipped, not passed.
  @Test(.enabled(if: groff != nil || groffRequired, "groff is not installed (CI sets WORKBENCH_REQUIRE_GROFF)"))
  func theManPageRendersWithoutWarnings() throws {
    let groff = try #require(Self.groff, "WORKBENCH_REQUIRE_GROFF is set, and no groff was found")
    let folder = makeTemporaryFolder()
    writeTextFile(ChildProcess.runWorkbench(["man"]).stdout, to: folder + "/workbench.1")
    let rendered = ChildProcess.run(
      groff, ["-man", "-Tutf8", "-ww", "-z", folder + "/workbench.1"], input: [], environment: ["PATH=/usr/bin:/bin"])
    #expect(rendered.status == 0)
    #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
  }
}

extension StringProtocol {
  fileprivate func trimmingSuffix(_ suffix: String) -> String {
    hasSuffix(suffix) ? String(dropLast(suffix.count)) : String(self)
  }
}
