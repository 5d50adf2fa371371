import Testing
import WorkbenchTestSupport

/// The README's examples past the tour, run as a reader would run them: the scenario it shows
/// is the file it names, the runs print what it shows, and the recording it shows is the file
/// the shell writes (it showed facts in an older format and left out what commands print).
/// In the README's transcripts `...` stands for any lines, `(...)` for anything in brackets on
/// a line, and a duration in brackets (`(1.4 ms)`) for any duration.
struct ReadmeExamplesTests {
  static let root = repositoryRoot()
  static var readme: String { readTextFile(root + "/README.md") ?? "" }

  /// The lines of the first fenced block after `marker`.
  static func block(after marker: String) -> [String] {
    guard let start = readme.firstRange(of: marker) else { return [] }
    var lines: [String] = []
    var inside = false
    for line in readme[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        if inside { return lines }
        inside = true
        continue
      }
      if inside { lines.append(String(line)) }
    }
    return lines
  }

  /// A duration in brackets, any number and unit, made one word.
  static func normalized(_ line: String) -> String {
    var result = ""
    var rest = Substring(line)
    while let open = rest.firstIndex(of: "(") {
      result += rest[...open]
      rest = rest[rest.index(after: open)...]
      guard let close = rest.firstIndex(of: ")") else { break }
      let inside = rest[..<close]
      let parts = inside.split(separator: " ")
      if parts.count == 2, Double(parts[0]) != nil, ["µs", "ms", "s"].contains(String(parts[1])) {
        result += "DURATION"
        rest = rest[close...]
      }
    }
    result += rest
    return String(result.reversed().drop { $0 == " " }.reversed())
  }

  /// Whether an actual line is the one the README shows (`(...)` standing for anything in
  /// brackets).
  static func same(_ expected: String, _ actual: String) -> Bool {
    let expected = normalized(expected)
    let actual = normalized(actual)
    let parts = expected.split(separator: "(...)", omittingEmptySubsequences: false).map(String.init)
    guard parts.count > 1 else { return expected == actual }
    guard actual.hasPrefix(parts[0]), actual.hasSuffix(parts[parts.count - 1]) else { return false }
    var rest = Substring(actual.dropFirst(parts[0].count))
    for part in parts.dropFirst().dropLast() {
      guard let found = rest.firstRange(of: part) else { return false }
      rest = rest[found.upperBound...]
    }
    return rest.count >= parts[parts.count - 1].count
  }

  /// Whether the lines are the README's, `...` standing for any number of lines.
  static func matches(_ expected: ArraySlice<String>, _ actual: ArraySlice<String>) -> Bool {
    guard let first = expected.first else { return actual.isEmpty }
    if first == "..." { return (0...actual.count).contains { matches(expected.dropFirst(), actual.dropFirst($0)) } }
    guard let line = actual.first, same(first, line) else { return false }
    return matches(expected.dropFirst(), actual.dropFirst())
  }

  static func lines(_ text: String) -> [String] {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    while lines.last == "" { lines.removeLast() }
    return lines
  }

  @Test func theScenarioShownIsTheFileItNames() throws {
    let shown = Self.block(after: "(this one is `Scenarios/catalog/two-windows-relaunch.yaml`)")
    let file = try #require(readTextFile(Self.root + "/Scenarios/catalog/two-windows-relaunch.yaml"))
    #expect(!shown.isEmpty)
    #expect(shown == Self.lines(file), "README.md shows\n\(shown.joined(separator: "\n"))")
  }

  /// `workbench run Scenarios/` prints what the README shows, the count of scenarios included.
  @Test func theRunShownIsTheRunItDoes() {
    let expected = Self.lines(Self.readme).drop { $0 != "$ swift run workbench run Scenarios/" }.dropFirst()
      .prefix { !$0.hasPrefix("```") }
    #expect(!expected.isEmpty, "the run of Scenarios/ was not found in README.md")
    let run = ChildProcess.runWorkbench(["run", Self.root + "/Scenarios"])
    #expect(run.status == 0)
    let output = Self.lines(run.stdout.replacing(Self.root + "/", with: ""))
    #expect(
      Self.matches(expected, output[...]),
      "README.md shows\n\(expected.joined(separator: "\n"))\nthe run printed\n\(run.stdout.suffix(300))")
  }

  /// The recording: the commands print what the README shows, the file written is the one it
  /// shows, and its run is what it shows.
  @Test func theRecordingShownIsTheOneMade() throws {
    let folder = makeTemporaryFolder()
    let transcript = Self.block(after: "(`settle` waits for the feed's load")
    #expect(transcript.count > 10)
    let typed = transcript.filter { ReadmeTourTests.command(in: Substring($0)) != nil }
    let input =
      typed.compactMap { ReadmeTourTests.command(in: Substring($0)) }
      .map { $0.replacing("feed.yaml", with: folder + "/feed.yaml") }.joined(separator: "\n") + "\n"
    let shell = ChildProcess.runWorkbench(["-w", ":memory:", "--echo"], input: Array(input.utf8))
    #expect(shell.status == 0, "\(shell.stderr)")
    let printed = Self.lines(shell.stdout.replacing(folder + "/", with: ""))
    let shownShell = Array(transcript.prefix { !$0.hasPrefix("$ ") })
    #expect(
      Self.matches(shownShell[...], printed[...]),
      "README.md shows\n\(shownShell.joined(separator: "\n"))\nthe shell printed\n\(printed.joined(separator: "\n"))")
    // The file.
    let written = try #require(readTextFile(folder + "/feed.yaml"))
    let shownFile = Self.block(after: "so its replay waits as long:")
    // The date the session's clock started at is the wall time the shell started: the README's
    // is one such, and the recording's must be one too.
    let dateLine = /^date: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/
    let writtenLines = Self.lines(written)
    #expect(writtenLines.count > 1 && writtenLines[1].wholeMatch(of: dateLine) != nil, "\(written)")
    #expect(shownFile.count > 1 && shownFile[1].wholeMatch(of: dateLine) != nil, "\(shownFile)")
    #expect(
      shownFile.enumerated().filter { $0.offset != 1 }.map(\.element)
        == writtenLines.enumerated().filter { $0.offset != 1 }.map(\.element),
      "README.md shows\n\(shownFile.joined(separator: "\n"))\nthe shell wrote\n\(written)")
    // Its run.
    let run = ChildProcess.runWorkbench(["run", folder + "/feed.yaml", "--repeat", "3"])
    #expect(run.status == 0)
    let shownRun = transcript.drop { !$0.hasPrefix("$ ") }.dropFirst()
    let ran = Self.lines(run.stdout.replacing(folder + "/", with: ""))
    #expect(
      Self.matches(shownRun, ran[...]),
      "README.md shows\n\(shownRun.joined(separator: "\n"))\nthe run printed\n\(run.stdout)")
  }

  /// Opening a failing scenario at a step, going back and recording: what the README shows.
  @Test func theTimeTravelShownIsWhatTheShellSays() {
    let folder = makeTemporaryFolder()
    let transcript = Self.block(after: "step back and record")
    #expect(transcript.first == "$ workbench run Scenarios/ledger/money.yaml:13 --shell", "\(transcript)")
    let typed = transcript.compactMap { ReadmeTourTests.command(in: Substring($0)) }
      .map { $0.replacing("fixed.yaml", with: folder + "/fixed.yaml") }
    let shell = ChildProcess.runWorkbench(
      ["run", Self.root + "/Scenarios/ledger/money.yaml:13", "--shell", "--echo"],
      input: Array((typed.joined(separator: "\n") + "\n").utf8))
    #expect(shell.status == 0, "\(shell.stderr)")
    let printed = Self.lines(shell.stdout.replacing(folder + "/", with: "").replacing(Self.root + "/", with: ""))
    let shown = transcript.dropFirst()
    #expect(
      Self.matches(shown, printed[...]),
      "README.md shows\n\(shown.joined(separator: "\n"))\nthe shell printed\n\(printed.joined(separator: "\n"))")
  }
}
