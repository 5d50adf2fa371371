import Testing
import WorkbenchCore
import WorkbenchLanguageServer
import WorkbenchModuleAPI
import WorkbenchScenarios
import WorkbenchSystem
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Walking a folder of scenarios that holds symbolic links: a link back up (`loop -> .`), a link
/// to `/`, a link to a folder elsewhere, and a second way into a folder of the tree. Each real
/// folder is visited once, links out of the folder are not followed (and are said once), and a
/// path the user names is walked wherever it leads. (`loop -> .` ran one scenario 41 times,
/// `diff` invented scenarios, and a link to `/` walked the whole file system.)
struct FolderWalkTests {
  static let scenario = "scenario: NAME\nwindows:\n  c: catalog library\nsteps:\n  - c: select 2\n"

  /// A tree: `tree/a.yaml`, `tree/sub/b.yaml`, `elsewhere/c.yaml`, and in `tree` the links
  /// `loop -> .`, `root -> /`, `out -> ../elsewhere`, `again -> sub`, `sub/up -> ..`.
  static func tree() -> String {
    let folder = makeTemporaryFolder()
    mkdir(folder + "/tree", 0o755)
    mkdir(folder + "/tree/sub", 0o755)
    mkdir(folder + "/elsewhere", 0o755)
    writeTextFile(scenario.replacing("NAME", with: "A"), to: folder + "/tree/a.yaml")
    writeTextFile(scenario.replacing("NAME", with: "B"), to: folder + "/tree/sub/b.yaml")
    writeTextFile(scenario.replacing("NAME", with: "C"), to: folder + "/elsewhere/c.yaml")
    symlink(".", folder + "/tree/loop")
    symlink("/", folder + "/tree/root")
    symlink("../elsewhere", folder + "/tree/out")
    symlink("sub", folder + "/tree/again")
    symlink("..", folder + "/tree/sub/up")
    return folder
  }

  @Test func eachRealFolderIsWalkedOnceAndLinksOutAreNotFollowed() {
    let folder = Self.tree()
    let walk = FileSystem.walk(folder + "/tree")
    #expect(walk.files == [folder + "/tree/a.yaml", folder + "/tree/sub/b.yaml"], "\(walk.files)")
    #expect(walk.linksLeavingFolder == [folder + "/tree/out", folder + "/tree/root"])
    // A path named is walked wherever it leads.
    #expect(FileSystem.walk(folder + "/tree/out").files == [folder + "/tree/out/c.yaml"])
    // Depth and count limits, for walks that must stay small (an editor's include completion).
    #expect(FileSystem.walk(folder + "/tree", maximumDepth: 1).files == [folder + "/tree/a.yaml"])
    let limited = FileSystem.walk(folder + "/tree", limit: 1)
    #expect(limited.files.count == 1 && limited.stoppedAtLimit)
  }

  /// `run`, `check` and `diff` on the tree: each scenario once, the links out said once as a
  /// note; naming the link runs what it leads to.
  @Test func runCheckAndDiffSeeEachScenarioOnce() {
    let folder = Self.tree()
    let run = ChildProcess.runWorkbench(["run", folder + "/tree"])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    #expect(run.stdout.hasSuffix("2 passed, 0 failed\n"), "\(run.stdout)")
    let notes = run.stderr.split(separator: "\n").filter { $0.hasPrefix("note: ") }
    #expect(notes.count == 2, "\(run.stderr)")
    #expect(
      run.stderr.contains("note: \(folder)/tree/root leads out of \(folder)/tree (to /) and is not followed"),
      "\(run.stderr)")
    let named = ChildProcess.runWorkbench(["run", folder + "/tree", folder + "/tree/out"])
    #expect(named.stdout.hasSuffix("3 passed, 0 failed\n"), "\(named.stdout)")
    let check = ChildProcess.runWorkbench(["check", folder + "/tree"])
    #expect(check.stdout == "2 files ok (2 scenarios), 0 with errors\n", "\(check.stdout)")
    let diff = ChildProcess.runWorkbench(["diff", folder + "/tree", folder + "/tree"])
    #expect(diff.status == 0, "\(diff.stdout)\(diff.stderr)")
    #expect(diff.stdout.contains("2 scenarios"), "\(diff.stdout)")
  }

  /// An include that is a link round in a loop says so (it said "no such file"); a link to
  /// nothing says where it points.
  @Test func anIncludeThatIsABrokenLinkSaysWhy() {
    let folder = makeTemporaryFolder()
    symlink("loop.yaml", folder + "/loop.yaml")
    symlink("gone.yaml", folder + "/dangling.yaml")
    writeTextFile(
      "scenario: Loops\nwindows:\n  c: catalog library\nsteps:\n  - include: loop.yaml\n  - include: dangling.yaml\n",
      to: folder + "/main.yaml")
    let check = ChildProcess.runWorkbench(["check", folder + "/main.yaml"])
    #expect(check.status == 2)
    #expect(
      check.stderr.contains("main.yaml:5:14: cannot read \(folder)/loop.yaml: its symbolic links lead round in a loop"),
      "\(check.stderr)")
    #expect(check.stderr.contains("it is a link to gone.yaml, which is not there"), "\(check.stderr)")
  }

  /// `diff` says why a trace cannot be read in words (it printed `tooLarge(14600465)`).
  @Test func diffSaysWhyATraceCannotBeReadInWords() {
    let folder = makeTemporaryFolder()
    let big = [UInt8](repeating: UInt8(ascii: " "), count: 9 * 1_048_576)
    #expect(FileSystem.write(bytes: big, to: folder + "/big.trace.json"))
    let diff = ChildProcess.runWorkbench(["diff", folder + "/big.trace.json", folder + "/big.trace.json"])
    #expect(diff.status == 2, "\(diff.stdout)")
    #expect(diff.stderr.contains("big.trace.json: it is 9.0 MB, over the limit"), "\(diff.stderr)")
    #expect(!diff.stderr.contains("tooLarge"), "\(diff.stderr)")
  }

  /// The language server's include completion sees each file once in a tree with links.
  @MainActor @Test func includeCompletionSeesEachFileOnce() throws {
    let folder = Self.tree()
    var sent: [FrameValue] = []
    let server = try LanguageServer(modules: []) { sent.append($0) }
    let uri = FrameValue.string("file://" + folder + "/tree/main.yaml")
    let text = "scenario: X\nsteps:\n  - include: "
    for message: FrameValue in [
      [
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": ["textDocument": ["uri": uri, "languageId": "yaml", "version": 1, "text": .string(text)]],
      ],
      [
        "jsonrpc": "2.0", "id": 2, "method": "textDocument/completion",
        "params": ["textDocument": ["uri": uri], "position": ["line": 2, "character": 13]],
      ],
    ] {
      _ = server.receive(Array(message.jsonText.utf8))
    }
    let labels = sent.last?["result"]?["items"]?.elements?.compactMap { $0["label"]?.stringValue } ?? []
    #expect(labels == ["a.yaml", "sub/b.yaml"], "\(labels)")
  }
}
