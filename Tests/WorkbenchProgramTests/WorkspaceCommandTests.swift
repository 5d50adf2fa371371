import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The workspace through the binary: documents persist across runs, export and import.
@Suite struct WorkspaceCommandTests {
  @Test func editsPersistAcrossRunsAndScriptsStartWithoutWindows() {
    let workspace = makeTemporaryFolder() + "/w.sqlite"
    let first = ChildProcess.runWorkbench(["-w", workspace, "-c", "open catalog library left; rename 27 Dune Messiah"])
    #expect(first.status == 0)
    let second = ChildProcess.runWorkbench(["-w", workspace, "-c", "windows; open catalog library left; query dune"])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(second.stdout.contains("no windows are open"))
    #expect(second.stdout.contains("27  Dune Messiah"))
    #expect(second.stdout.contains("revision 2"))
  }

  @Test func exportAndImportRoundTripWithFieldErrors() throws {
    let folder = makeTemporaryFolder()
    let workspace = folder + "/w.sqlite"
    let exported = ChildProcess.runWorkbench(["export", "library", folder + "/library.json", "-w", workspace])
    #expect(exported.status == 0)
    #expect(exported.stdout == "exported library (catalog, revision 1) to \(folder)/library.json\n")
    var info = stat()
    #expect(stat(folder + "/library.json", &info) == 0 && info.st_mode & 0o777 == 0o600, "a copy of the workspace's")
    let json = try #require(readTextFile(folder + "/library.json"))
    #expect(json.hasPrefix(#"{"name":"library","kind":"catalog","revision":1,"body":{"books":[{"id":1,"#))

    writeTextFile(json.replacing(#""title":"Dune""#, with: #""titel":"Dune""#), to: folder + "/bad.json")
    let bad = ChildProcess.runWorkbench(["import", folder + "/bad.json", "-w", workspace])
    #expect(bad.status == 1)
    #expect(bad.stderr == "error: \(folder)/bad.json: field 'body': books[26].title is missing\n")

    writeTextFile(json.replacing(#""kind":"catalog","#, with: ""), to: folder + "/nokind.json")
    #expect(
      ChildProcess.runWorkbench(["import", folder + "/nokind.json", "-w", workspace]).stderr
        == "error: \(folder)/nokind.json: field 'kind' is missing\n")

    writeTextFile(json.replacing(#"{"id":2,"#, with: #"{"id":1,"#), to: folder + "/duplicate.json")
    let duplicate = ChildProcess.runWorkbench(["import", folder + "/duplicate.json", "-w", workspace])
    #expect(duplicate.stderr.contains("duplicate book id 1 at books[1] (also at books[0])"))

    writeTextFile(json.replacing(#""name":"library""#, with: #""name":"shelf""#), to: folder + "/shelf.json")
    let added = ChildProcess.runWorkbench(["import", folder + "/shelf.json", "-w", workspace])
    #expect(added.stdout == "imported shelf (catalog) as a new document\n")
    let listed = ChildProcess.runWorkbench(["-w", workspace, "-c", "documents"])
    #expect(listed.stdout.contains("shelf  catalog  revision 1"))
    #expect(listed.stdout.contains("library  catalog  revision 1"))  // the failed imports changed nothing
  }

  /// The import reads the envelope without parsing the body into a tree: titles holding
  /// brackets, quotes and commas, the body first, spacing, and what is not an envelope at all.
  @Test func anImportFindsTheBodyWhateverItHolds() throws {
    let folder = makeTemporaryFolder()
    let workspace = folder + "/w.sqlite"
    writeTextFile(
      #"""
      { "body" : {"books": [{"id": 1, "title": "}, {\"id\": 2, \"title\": \"x\"}"}, {"id": 3, "title": "[a, b]"}]} ,
        "kind": "catalog", "name" : "tricky" }
      """#, to: folder + "/tricky.json")
    let imported = ChildProcess.runWorkbench(["import", folder + "/tricky.json", "-w", workspace])
    #expect(imported.status == 0, "\(imported.stderr)")
    let shown = ChildProcess.runWorkbench(["-w", workspace, "-q", "-c", "open catalog tricky; frame"])
    #expect(shown.stdout.contains(#"}, {"id": 2, "title": "x"}"#), "\(shown.stdout)")
    #expect(shown.stdout.contains("[a, b]"))
    #expect(shown.stdout.contains("total: 2"))
    for broken in [#"{"name": "x", "kind": "catalog", "body": {"books": []} "#, #"{"name": "x" "kind": 1}"#, "[]"] {
      writeTextFile(broken, to: folder + "/broken.json")
      let refused = ChildProcess.runWorkbench(["import", folder + "/broken.json", "-w", workspace])
      #expect(refused.status == 1, "\(broken)")
      #expect(refused.stderr.hasPrefix("error: \(folder)/broken.json"), "\(refused.stderr)")
    }
  }

  @Test func aFileThatIsNotAWorkspaceIsRefused() {
    let path = makeTemporaryFolder() + "/notes.txt"
    writeTextFile("just notes\n", to: path)
    let result = ChildProcess.runWorkbench(["-w", path, "-c", "documents"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("is not a workbench workspace"))
    #expect(readTextFile(path) == "just notes\n")
  }
}
