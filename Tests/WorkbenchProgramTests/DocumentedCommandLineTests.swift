import Testing
import WorkbenchTestSupport

/// Every subcommand the manual page lists, with each option it lists for it, is accepted as
/// written: an option the page documents never meets "unknown option" or a usage line (as
/// `report TRACEDIR --html FILE` once did, its words going through another parser first).
@Suite struct DocumentedCommandLineTests {
  struct Documented {
    var name: String
    var synopsis: String
    /// `--name` with its value's placeholder, if it takes one.
    var options: [(name: String, value: String?)]
  }

  /// The subcommands of `workbench man`, each with the options under it and those its synopsis
  /// shows in brackets.
  static func documented() -> [Documented] {
    let man = ChildProcess.runWorkbench(["man"]).stdout.split(separator: "\\-", omittingEmptySubsequences: false)
      .joined(separator: "-")
    var result: [Documented] = []
    var inOptions = false
    var expectOption = false
    for line in man.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if line.hasPrefix("\\fBworkbench "), line.hasSuffix("\\fR"), !line.contains("\\fR:") {
        let synopsis = String(line.dropFirst("\\fBworkbench ".count).dropLast(3))
        let name = String(synopsis.prefix { $0 != " " })
        var entry = Documented(name: name, synopsis: synopsis, options: [])
        // `[--path DIR]` and `--html FILE` in the synopsis.
        let words = synopsis.split(separator: " ").map { $0.trimmingCharacters(in: "[]") }
        for (index, word) in words.enumerated() where word.hasPrefix("--") {
          let value = index + 1 < words.count && words[index + 1].allSatisfy { $0.isUppercase } ? words[index + 1] : nil
          entry.options.append((word, value))
        }
        result.append(entry)
        inOptions = false
        continue
      }
      if line == ".RS" { inOptions = true }
      if line == ".RE" { inOptions = false }
      if inOptions && line == ".TP" {
        expectOption = true
        continue
      }
      if expectOption, !result.isEmpty {
        expectOption = false
        // \fB--name\fR \fIVALUE\fR, or \fB-q\fR, \fB--quiet\fR
        let names = line.split(separator: "\\fB", omittingEmptySubsequences: false).dropFirst().compactMap {
          $0.split(separator: "\\fR", omittingEmptySubsequences: false).first.map(String.init)
        }
        let value = line.split(separator: "\\fI", omittingEmptySubsequences: false).dropFirst().first?
          .split(separator: "\\fR", omittingEmptySubsequences: false).first.map(String.init)
        if let long = names.last(where: { $0.hasPrefix("--") }) ?? names.first,
          !result[result.count - 1].options.contains(where: { $0.name == long })
        {
          result[result.count - 1].options.append((long, value))
        }
      }
    }
    return result
  }

  /// docs/shell.md's table of subcommands says what `--help` says: every option a row shows
  /// for a subcommand is one it has, and a value written as choices (`swift|python|javascript`)
  /// is the same list. (The row for `new-module` said `swift|python` a release after the
  /// JavaScript kit came.)
  @Test func theShellPagesSubcommandTableSaysWhatHelpSays() throws {
    let page = try #require(readTextFile(repositoryRoot() + "/docs/shell.md"))
    let documented = Self.documented()
    var checked = 0
    for line in page.split(separator: "\n") where line.hasPrefix("| `") {
      let cell = String(line.dropFirst(3).prefix { $0 != "`" }).replacing("\\|", with: "|")
      guard let name = cell.split(separator: " ").first.map(String.init),
        let subcommand = documented.first(where: { $0.name == name })
      else { continue }
      let words = cell.split(separator: " ").map { String($0).trimmingCharacters(in: "[]") }
      for (index, word) in words.enumerated() where word.hasPrefix("--") {
        checked += 1
        let option = subcommand.options.first { $0.name == word }
        #expect(option != nil, "docs/shell.md shows \(word) for \(name), which it does not have")
        let value = index + 1 < words.count ? words[index + 1] : ""
        if value.contains("|") {
          let help = ChildProcess.runWorkbench([name, "--help"]).stdout
          #expect(help.contains("  \(word) \(value) "), "docs/shell.md: \(name) \(word) \(value); --help:\n\(help)")
        }
      }
    }
    #expect(checked >= 10, "the table was not read: \(checked) options")
  }

  @Test func everyDocumentedOptionOfEverySubcommandIsAccepted() throws {
    let folder = makeTemporaryFolder()
    writeTextFile(
      "scenario: One\nwindows:\n  main: catalog library\nsteps:\n  - main: select 2\n", to: folder + "/one.yaml")
    let workspace = folder + "/workspace.sqlite"
    #expect(
      ChildProcess.runWorkbench(["run", "-j", "1", folder + "/one.yaml", "--trace", folder + "/traces"]).status == 0)
    #expect(
      ChildProcess.runWorkbench(["run", "-j", "1", folder + "/one.yaml", "--json", folder + "/report.json"]).status == 0
    )
    #expect(ChildProcess.runWorkbench(["export", "library", folder + "/library.json", "-w", workspace]).status == 0)
    let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
    // What each subcommand is given besides the option tried.
    let operands: [String: [String]] = [
      "run": ["-j", "1", folder + "/one.yaml"], "report": [folder + "/traces", "--html", folder + "/report.html"],
      "check": [folder + "/one.yaml"], "reference": [], "modules": ["list", "-w", workspace],
      "module-check": [fixture], "new-module": ["documented", "--path", folder + "/new"],
      "export": ["library", folder + "/out.json", "-w", workspace],
      "import": [folder + "/library.json", "-w", folder + "/other.sqlite"], "diagram": ["feed"],
      "completions": ["bash"], "man": [], "lsp": [], "diff": [folder + "/traces", folder + "/one.yaml"],
      "explore": ["--runs", "1", "--steps", "2", "--out", folder + "/explore.yaml"],
    ]
    let values: [String: String] = [
      "FILE": folder + "/value-file", "DIR": folder + "/value-dir", "PATH": fixture, "N": "1", "I/N": "1/1",
      "REGEX": "One", "T": "tag", "MS": "10", "NAME": "lights",
    ]
    let documented = Self.documented()
    #expect(Set(documented.map(\.name)).isSuperset(of: Set(operands.keys)), "\(documented.map(\.name))")
    #expect(documented.first { $0.name == "report" }?.options.contains { $0.name == "--html" } == true)
    for subcommand in documented {
      let base = try #require(operands[subcommand.name], "no operands for \(subcommand.name) in this test")
      var lines = [base]
      for option in subcommand.options where option.name != "--watch" && !base.contains(option.name) {
        var line = base + [option.name]
        if let value = option.value {
          line.append(option.name == "--durations" ? folder + "/report.json" : values[value] ?? "x")
        }
        lines.append(line)
      }
      for line in lines {
        let result = ChildProcess.runWorkbench([subcommand.name] + line)
        let said = result.stderr + result.stdout
        #expect(
          !said.contains("unknown option"), "workbench \(subcommand.name) \(line.joined(separator: " ")): \(said)")
        #expect(
          !result.stderr.contains("usage:"), "workbench \(subcommand.name) \(line.joined(separator: " ")): \(said)")
        #expect(result.status < 128, "workbench \(subcommand.name) \(line.joined(separator: " ")): \(result.status)")
      }
    }
  }
}

extension String {
  fileprivate func trimmingCharacters(in characters: String) -> String {
    String(drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
  }
}

extension Substring {
  fileprivate func trimmingCharacters(in characters: String) -> String {
    String(self).trimmingCharacters(in: characters)
  }
}
