import Catalog
import Testing
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchTestSupport

/// Every file in Broken/ must fail to load with the message in its `.expected` file
/// (`line:column: message`; a trailing `...` matches any rest), quickly and without a crash.
@MainActor
@Suite struct BrokenFilesTests {
  nonisolated static let folder = repositoryRoot() + "/Tests/WorkbenchScenariosTests/Broken"
  nonisolated static let files = folderEntries(folder).filter { $0.hasSuffix(".yaml") }

  @Test func everyBrokenFileHasAnExpectedMessage() {
    #expect(Self.files.count >= 15)
    for file in Self.files {
      let expected = Self.folder + "/" + file.replacing(".yaml", with: ".expected")
      #expect(readTextFile(expected) != nil, "\(file) has no .expected file")
    }
  }

  @Test(arguments: files)
  func brokenFileIsReportedWithItsPlace(_ file: String) throws {
    let path = Self.folder + "/" + file
    let expectedText = try #require(readTextFile(path.replacing(".yaml", with: ".expected")))
    let expected = path + ":" + expectedText.trimmingTrailingNewlines
    let loader = try ScenarioLoader(modules: [CatalogModule()])
    do {
      _ = try loader.load(path)
      Issue.record("\(file) loaded without an error")
    } catch {
      let actual = error.description
      if expected.hasSuffix("...") {
        #expect(actual.hasPrefix(String(expected.dropLast(3))), "got: \(actual)")
      } else {
        #expect(actual == expected)
      }
    }
  }

  /// Every mistake of a file is reported at once, each at its place, as a compiler lists them:
  /// a misspelt command, a misspelt field and a window that is not open, in three steps; a
  /// mistake inside a repeat is reported once, not once per iteration; and a file with more
  /// mistakes than anyone reads stops at fifty.
  @Test func everyMistakeOfAFileIsReportedAtOnce() throws {
    let path = scenarioFile(
      """
      scenario: three mistakes
      windows:
        left: {screen: catalog, document: library}
      steps:
        - left: selcet 4
        - repeat: 3
          steps:
            - expect:
                left: {selcted: 4}
        - left: select 3
        - do: frame ghost
      """)
    let loader = try ScenarioLoader(modules: [CatalogModule()])
    do {
      _ = try loader.load(path)
      Issue.record("the file loaded")
    } catch {
      #expect(
        error.all.map(\.description) == [
          "\(path):5:11: unknown command 'selcet'. Did you mean 'select'?",
          "\(path):9:18: left shows catalog, whose frame has no field 'selcted'. Did you mean 'selected'? "
            + "(its fields: query, onlySelected, selected, matches, total, rows, viewport, detail, detailPolicy)",
          "\(path):11:15: no window 'ghost' is open here (open: left)",
        ])
    }
    let many = scenarioFile(
      "scenario: many\nsteps:\n" + (1...80).map { "  - do: unknown\($0)" }.joined(separator: "\n") + "\n")
    do {
      _ = try loader.load(many)
      Issue.record("the file loaded")
    } catch {
      #expect(error.all.count == ScenarioLoader.maximumProblems)
      #expect(error.all.last?.description.hasPrefix("\(many):52:9: unknown command 'unknown50'") == true)
    }
    // The loader is used again for the next file: nothing of the last one's problems stays.
    let good = scenarioFile("scenario: fine\nsteps:\n  - do: documents\n")
    #expect(throws: Never.self) { try loader.load(good) }
  }

  /// A 50 MB file is refused by its size before anything reads it whole.
  @Test func aFiftyMegabyteFileIsRefused() throws {
    let path = makeTemporaryFolder() + "/huge.yaml"
    let line = Array("  - do: help   # padding padding padding padding padding padding padding\n".utf8)
    var bytes = Array("scenario: Huge\nsteps:\n".utf8)
    bytes.reserveCapacity(50 * 1024 * 1024 + line.count)
    while bytes.count < 50 * 1024 * 1024 { bytes += line }
    writeBytes(bytes, to: path)
    let loader = try ScenarioLoader(modules: [CatalogModule()])
    #expect(throws: ScenarioFileError.self) { try loader.load(path) }
    do {
      _ = try loader.load(path)
    } catch {
      #expect(error.message.hasPrefix("\(path) is 50 MB; scenario files are limited to 8 MB"))
    }
  }
}

extension String {
  var trimmingTrailingNewlines: String {
    var text = self
    while text.hasSuffix("\n") { text.removeLast() }
    return text
  }
}

/// The node limit is for aliases: a plain file as long as the step limit allows still parses.
@Suite struct YAMLLimitTests {
  @Test func aPlainFileOfAHundredThousandStepsParses() throws {
    var text = "scenario: many steps\nwindows:\n  main: catalog library\nsteps:\n"
    text += String(repeating: "  - main: select 2\n", count: 100_000)
    let documents = try YAMLParser().parse(Array(text.utf8), file: "many.yaml")
    #expect(documents.first?["steps"]?.items?.count == 100_000)
  }

  @Test func aliasesAreCountedApartAndNamedAsTheCause() {
    var parser = YAMLParser()
    parser.maximumAliasNodes = 50
    let text = "a: &x [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nb: [*x, *x, *x, *x, *x, *x]\n"
    #expect(throws: ScenarioFileError.self) { try parser.parse(Array(text.utf8), file: "bomb.yaml") }
    do {
      _ = try parser.parse(Array(text.utf8), file: "bomb.yaml")
    } catch {
      #expect(error.message.hasPrefix("aliases in this file expand to more than 50 YAML nodes"), "\(error.message)")
    }
  }
}
