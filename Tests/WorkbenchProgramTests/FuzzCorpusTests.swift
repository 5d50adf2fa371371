import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Every fuzzing harness replays its seed corpus (and any reproducer saved beside it) in the
/// plain build, so an input that once crashed a parser stays a test after the fuzzer found it.
@Suite struct FuzzCorpusTests {
  static let root = repositoryRoot()

  static let corpora: [(String, [String])] = [
    ("command-line", [root + "/Fuzz/corpus/command-line"]),
    ("protocol-host", [root + "/Fuzz/corpus/protocol-host"]),
    ("protocol-kit", [root + "/Fuzz/corpus/protocol-kit"]),
    ("document-decoder", [root + "/Fuzz/corpus/document-decoder"]),
    ("expectation-matcher", [root + "/Fuzz/corpus/expectation-matcher"]),
    (
      "scenario-loader",
      [root + "/Tests/WorkbenchScenariosTests/Broken"]
        + ["catalog", "goal", "editor", "ledger"].map {
          root + "/Scenarios/" + $0
        }
    ),
  ]

  @Test(arguments: corpora.map(\.0))
  func theSeedCorpusReplaysWithoutACrash(_ target: String) throws {
    let folders = try #require(Self.corpora.first { $0.0 == target }?.1)
    let files = folders.flatMap { folder in
      folderEntries(folder).map { folder + "/" + $0 }.filter { path in
        var info = stat()
        return !path.hasSuffix(".expected") && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
      }
    }
    #expect(files.count >= 3, "\(target) has too few seeds")
    let harness = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fuzz"
    let result = ChildProcess.run(harness, [target] + files, input: [], environment: ChildProcess.environment([:]))
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout == "\(target): \(files.count) inputs replayed, none crashed\n")
  }
}
