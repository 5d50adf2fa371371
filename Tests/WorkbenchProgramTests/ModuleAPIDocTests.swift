import Testing
import WorkbenchTestSupport

/// The plugin API as a contract: `WorkbenchModuleAPI` holds what a module may use and nothing
/// of the host; the built-in modules depend on it alone and build no host; the Swift kit adds
/// only its entry point; and docs/writing-a-module.md's API section is that target's reference,
/// with examples that compile against it.
struct ModuleAPIDocTests {
  static let root = repositoryRoot()

  /// The Swift files under `folder`, with their text.
  static func swiftFiles(under folder: String) -> [(path: String, text: String)] {
    folderEntries(folder).sorted().flatMap { name -> [(path: String, text: String)] in
      let path = folder + "/" + name
      if name.hasSuffix(".swift") { return [(path, readTextFile(path) ?? "")] }
      return name.contains(".") ? [] : swiftFiles(under: path)
    }
  }

  /// The public declarations of Swift text: each line that declares something `public` or
  /// `open` (a type, function, initializer, property, subscript or case), with its kind and name.
  static func publicDeclarations(_ text: String) -> [(kind: String, name: String)] {
    let declaration =
      /^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:nonisolated\s+)?(?:public|open)\s+(?:(?:static|final|class|mutating|override|convenience|required|nonisolated|package\(set\)|private\(set\))\s+)*(func|var|let|init|subscript|struct|class|enum|protocol|typealias|actor|case)\b\s*([A-Za-z_]\w*)?/
    return text.split(separator: "\n").compactMap { line in
      line.firstMatch(of: declaration).map { (String($0.1), String($0.2 ?? "")) }
    }
  }

  @Test func thePluginAPIHoldsAtMost300PublicDeclarationsAndNoHost() throws {
    let files = Self.swiftFiles(under: Self.root + "/Sources/WorkbenchModuleAPI")
    #expect(files.count > 20, "read only \(files.count) files")
    let declarations = files.flatMap { Self.publicDeclarations($0.text) }
    #expect(declarations.count <= 300, "the plugin API has \(declarations.count) public declarations")
    #expect(declarations.count > 150, "the reader found only \(declarations.count): is it still reading?")
    // Nothing of the host: no type of the host runtime is declared or named there.
    let host = [
      "Host", "SessionClock", "SessionFacts", "ModuleRegistry", "CommandResolver", "CommandRouter", "SessionRecorder",
      "SessionJournal", "HostCommands", "SessionDocuments", "SessionWindows", "RanCommand",
    ]
    for (path, text) in files {
      #expect(!text.contains("import WorkbenchCore"), "\(path) imports the host")
      for name in host {
        #expect(text.firstMatch(of: try Regex("\\b\(name)\\b")) == nil, "\(path) names \(name)")
      }
    }
    // The built-in modules depend on it alone, and build no host.
    let manifest = try #require(readTextFile(Self.root + "/Package.swift"))
    for module in ["Catalog", "Goal", "Editor", "Lights", "Ledger"] {
      #expect(
        manifest.contains(
          #".target(name: "\#(module)", dependencies: ["WorkbenchModuleAPI"], path: "Plugins/\#(module)")"#),
        "\(module) depends on more than the plugin API")
      for (path, text) in Self.swiftFiles(under: Self.root + "/Plugins/" + module) {
        #expect(!text.contains("WorkbenchCore"), "\(path) reaches the host's target")
        #expect(!text.contains("Host("), "\(path) builds a host")
      }
    }
  }

  /// The kit's public face is the plugin API (re-exported) and `ModuleMain.run`, nothing more:
  /// a module in its own process sees what a built-in one does.
  @Test func theKitAddsOnlyItsEntryPoint() throws {
    let files = Self.swiftFiles(under: Self.root + "/Sources/WorkbenchModuleKit")
    let declarations = files.flatMap { Self.publicDeclarations($0.text) }
    #expect(
      declarations.map { "\($0.kind) \($0.name)" }.sorted() == ["enum ModuleMain", "func run"], "\(declarations)")
    let exported = files.flatMap { $0.text.split(separator: "\n").filter { $0.hasPrefix("@_exported import") } }
    #expect(exported == ["@_exported import WorkbenchModuleAPI"], "\(exported)")
  }

  /// The page's API section between its heading and the next one.
  static func apiSection() throws -> String {
    let page = try #require(readTextFile(root + "/docs/writing-a-module.md"))
    let start = try #require(page.firstRange(of: "\n## The module API\n"))
    let rest = page[start.upperBound...]
    let end = rest.firstRange(of: "\n## ")?.lowerBound ?? rest.endIndex
    return String(rest[..<end])
  }

  /// Every public type of the target is in the reference table; every name the table gives in
  /// backticks as a type is one.
  @Test func theReferenceNamesEveryPublicTypeOfTheTarget() throws {
    let section = try Self.apiSection()
    let reference = try #require(section.firstRange(of: "### Reference: `WorkbenchModuleAPI`")).upperBound
    let table = String(section[reference...])
    let types = Self.swiftFiles(under: Self.root + "/Sources/WorkbenchModuleAPI").flatMap {
      Self.publicDeclarations($0.text).filter {
        ["struct", "class", "enum", "protocol", "typealias"].contains($0.kind)
      }
      .map(\.name)
    }
    #expect(types.count > 30)
    for type in Set(types) where type != "Edge" {
      #expect(table.contains("`\(type)`"), "the reference does not name \(type)")
    }
  }

  /// The section's examples, put together in one file after `import WorkbenchModuleKit`,
  /// type-check in Swift 6 against the built target, with no warning. (Built with the swiftc
  /// that built the tests, against the modules beside the test bundle.)
  @Test func theSectionsExamplesCompile() throws {
    let section = try Self.apiSection()
    let blocks = section.split(separator: "```swift\n").dropFirst().compactMap { $0.split(separator: "```").first }
    #expect(blocks.count >= 8, "found \(blocks.count) examples")
    let folder = makeTemporaryFolder()
    let source = "import WorkbenchModuleKit\n\n" + blocks.joined(separator: "\n")
    writeTextFile(source, to: folder + "/Examples.swift")
    let build = String(ChildProcess.workbenchPath.dropLast("/workbench".count))
    let result = ChildProcess.run(
      "/usr/bin/env",
      [
        "swiftc", "-typecheck", "-swift-version", "6", "-parse-as-library", "-I", build + "/Modules", "-Xcc",
        "-fmodule-map-file=\(build)/CSystemCalls.build/module.modulemap", folder + "/Examples.swift",
      ], input: [], environment: ChildProcess.environment([:]))
    #expect(result.status == 0, "\(result.stderr)\n\(source)")
    #expect(!result.stderr.contains("warning:"), "\(result.stderr)")
  }

  /// The unit-test example of the page is the habits example's test, line for line (its
  /// package's tests are built and run by CI, so the example runs as shown).
  @Test func theUnitTestExampleIsTheHabitsTest() throws {
    let page = try #require(readTextFile(Self.root + "/docs/writing-a-module.md"))
    let start = try #require(page.firstRange(of: "\n## Unit tests\n"))
    let section = page[start.upperBound...]
    let block = try #require(section.split(separator: "```swift\n").dropFirst().first?.split(separator: "```").first)
    let test = try #require(readTextFile(Self.root + "/Examples/habits/Tests/HabitsTests/HabitsTests.swift"))
    let testLines = test.split(separator: "\n").map { $0.trimmingPrefix(while: \.isWhitespace) }
    let lines = block.split(separator: "\n")
    #expect(lines.count >= 5, "\(block)")
    // In the same order, one after the other.
    let first = try #require(testLines.firstIndex { $0 == lines[0] }, "\(lines[0]) is not in the test")
    for (offset, line) in lines.enumerated() {
      #expect(first + offset < testLines.count && testLines[first + offset] == line, "\(line)")
    }
  }
}
