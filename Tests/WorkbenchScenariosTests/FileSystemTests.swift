import Testing
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSystem
import WorkbenchTestSupport

/// `FileSystem.write` replaces a file's content whole, whether the new content is shorter,
/// longer or empty (it writes over and cuts the file to length instead of emptying it first).
struct FileSystemTests {
  @Test func writingAgainLeavesOnlyTheNewContent() throws {
    let path = makeTemporaryFolder() + "/file.json"
    for content in ["a much longer first content, 48 bytes of it....", "short", "", "longer again: 27 bytes here"] {
      #expect(FileSystem.write(bytes: Array(content.utf8), to: path))
      #expect(readTextFile(path) == content)
    }
  }

  @Test func foldersAreMadeWhenAsked() throws {
    let path = makeTemporaryFolder() + "/a/b/c.txt"
    #expect(!FileSystem.write(bytes: Array("x".utf8), to: path))
    #expect(FileSystem.write(bytes: Array("x".utf8), to: path, makingFolders: true))
    #expect(readTextFile(path) == "x")
  }
}
