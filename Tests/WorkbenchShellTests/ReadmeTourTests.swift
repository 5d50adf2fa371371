import Testing
import WorkbenchTestSupport

/// The README's two-minute tour, typed as a newcomer types it: every command in its transcripts
/// runs, in order, in one session with `--rows 5`, and what the README shows after a command is
/// what the binary prints (`...` stands for any lines; a command shown without output is not
/// checked). The prompts are the binary's too.
struct ReadmeTourTests {
  struct Entry {
    let prompt: String
    var expected: [String]
  }

  /// The transcripts between the tour's heading and the scripts that follow it.
  static func tour(in readme: String) -> [Entry] {
    guard let start = readme.firstRange(of: "## A two-minute tour"),
      let end = readme[start.upperBound...].firstRange(of: "The same commands work without a terminal")
    else { return [] }
    var entries: [Entry] = []
    var inBlock = false
    for line in readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        inBlock.toggle()
        continue
      }
      guard inBlock else { continue }
      if command(in: line) != nil {
        entries.append(Entry(prompt: String(line), expected: []))
      } else if !entries.isEmpty {
        entries[entries.count - 1].expected.append(String(line))
      }
    }
    return entries
  }

  /// The command typed on a prompt line (`left catalog:library> select 4`), or nil.
  static func command(in line: Substring) -> String? {
    guard let mark = line.firstRange(of: "> ") else { return nil }
    let prompt = line[..<mark.lowerBound]
    let words = prompt.split(separator: " ")
    let isPrompt = prompt == "workbench" || (words.count == 2 && words[1].contains(":") && !prompt.hasPrefix("["))
    return isPrompt ? String(line[mark.upperBound...]) : nil
  }

  /// Whether `actual` is `expected`, where a `...` line stands for any number of lines.
  static func matches(_ expected: ArraySlice<String>, _ actual: ArraySlice<String>) -> Bool {
    guard let first = expected.first else { return actual.isEmpty }
    if first == "..." {
      return (0...actual.count).contains { matches(expected.dropFirst(), actual.dropFirst($0)) }
    }
    guard actual.first == first else { return false }
    return matches(expected.dropFirst(), actual.dropFirst())
  }

  static func trimmed(_ line: Substring) -> String {
    String(line.reversed().drop { $0 == " " }.reversed())
  }

  @Test func theTourPrintsWhatTheReadmeShows() throws {
    let readme = try #require(readTextFile(repositoryRoot() + "/README.md"))
    let entries = Self.tour(in: readme)
    #expect(entries.count >= 10, "the tour's transcripts were not found in README.md")
    let input = entries.compactMap { Self.command(in: Substring($0.prompt)) }.joined(separator: "\n") + "\n"
    let result = ChildProcess.runWorkbench(
      ["-w", ":memory:", "--rows", "5", "--echo", "--keep-going"], input: Array(input.utf8))
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(Self.trimmed)
    var index = 0
    for (number, entry) in entries.enumerated() {
      guard let echoed = lines[index...].firstIndex(of: Self.trimmed(Substring(entry.prompt))) else {
        Issue.record("README.md's `\(entry.prompt)` was not echoed as that prompt:\n\(result.stdout)")
        return
      }
      let next =
        number + 1 < entries.count
        ? lines[(echoed + 1)...].firstIndex(of: Self.trimmed(Substring(entries[number + 1].prompt))) ?? lines.count
        : lines.count
      index = next
      // An error is shown where it happens in a terminal; through a pipe it goes to stderr,
      // with the place in front (`<stdin>:10:1: error: ...` for `error: column 1: ...`).
      let errors = entry.expected.filter { $0.hasPrefix("error: ") }
      for error in errors {
        let message = error.split(separator: ": ", maxSplits: 2).last.map(String.init) ?? error
        #expect(result.stderr.contains(message), "`\(entry.prompt)`: README.md shows \(error)\n\(result.stderr)")
      }
      let expected = entry.expected.filter { !$0.hasPrefix("error: ") }.map { Self.trimmed(Substring($0)) }
      guard !expected.isEmpty else { continue }
      var actual = Array(lines[(echoed + 1)..<next])
      if number + 1 == entries.count { while actual.last == "" { actual.removeLast() } }
      let shown = expected.joined(separator: "\n")
      let printed = actual.joined(separator: "\n")
      #expect(
        Self.matches(expected[...], actual[...]),
        "`\(entry.prompt)`: README.md shows\n\(shown)\nthe binary printed\n\(printed)")
    }
  }
}
