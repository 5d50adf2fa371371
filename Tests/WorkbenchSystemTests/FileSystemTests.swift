import Testing
import WorkbenchSystem
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

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

  /// What is not a regular file is refused by what it is, without waiting on it (a FIFO with no
  /// writer would block an open that waits), and a file past the limit by its size.
  @Test func onlyRegularFilesAreReadAndWithinTheLimit() throws {
    let folder = makeTemporaryFolder()
    #expect(mkfifo(folder + "/fifo", 0o600) == 0)
    #expect(throws: FileSystem.ReadError.unreadable("it is a FIFO (a named pipe), not a regular file")) {
      try FileSystem.read(folder + "/fifo")
    }
    #expect(throws: FileSystem.ReadError.unreadable("it is a folder")) { try FileSystem.read(folder) }
    #expect(throws: FileSystem.ReadError.unreadable("it is a device, not a regular file")) {
      try FileSystem.read("/dev/null")
    }
    #expect(throws: FileSystem.ReadError.missing) { try FileSystem.read(folder + "/none") }
    #expect(symlink(folder + "/gone", folder + "/dangling") == 0)
    #expect(throws: FileSystem.ReadError.unreadable("it is a link to \(folder)/gone, which is not there")) {
      try FileSystem.read(folder + "/dangling")
    }
    #expect(FileSystem.write(bytes: Array(repeating: 0x61, count: 100), to: folder + "/big"))
    #expect(throws: FileSystem.ReadError.tooLarge(100)) { try FileSystem.read(folder + "/big", limit: 99) }
    #expect(try FileSystem.read(folder + "/big", limit: 100).count == 100)
  }

  /// A walk lists the files under a folder, says which links lead out of it, and stops at its
  /// limit, saying so.
  @Test func aWalkReportsLinksThatLeaveAndStopsAtItsLimit() throws {
    let folder = makeTemporaryFolder()
    for name in ["a.yaml", "b/c.yaml", "b/d/e.yaml"] {
      #expect(FileSystem.write(bytes: [0x78], to: folder + "/" + name, makingFolders: true))
    }
    #expect(symlink("/", folder + "/root") == 0)
    let walk = FileSystem.walk(folder)
    #expect(walk.files.sorted() == ["a.yaml", "b/c.yaml", "b/d/e.yaml"].map { folder + "/" + $0 })
    #expect(walk.linksLeavingFolder == [folder + "/root"])
    #expect(!walk.stoppedAtLimit)
    let cut = FileSystem.walk(folder, limit: 2)
    #expect(cut.files.count == 2 && cut.stoppedAtLimit)
  }
}
