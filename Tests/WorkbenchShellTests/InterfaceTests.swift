import Testing
import WorkbenchTestSupport

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
  }

  /// The man page is valid roff (checked with groff where it is installed).
  @Test func theManPageRendersWithoutWarnings() throws {
    let groff = ChildProcess.run("/bin/sh", ["-c", "command -v groff"], input: [], environment: ["PATH=/usr/bin:/bin"])
    guard groff.status == 0 else { return }  // not installed here: the other tests check the content
    let folder = makeTemporaryFolder()
    writeTextFile(ChildProcess.runWorkbench(["man"]).stdout, to: folder + "/workbench.1")
    let rendered = ChildProcess.run(
      groff.stdout.trimmingSuffix("\n"), ["-man", "-Tutf8", "-ww", "-z", folder + "/workbench.1"], input: [],
      environment: ["PATH=/usr/bin:/bin"])
    #expect(rendered.status == 0)
    #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
  }
}

extension StringProtocol {
  fileprivate func trimmingSuffix(_ suffix: String) -> String {
    hasSuffix(suffix) ? String(dropLast(suffix.count)) : String(self)
  }
}
