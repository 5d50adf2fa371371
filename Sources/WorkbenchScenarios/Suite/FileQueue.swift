import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The files of a run with several workers, handed out one at a time as workers ask for them,
/// so a worker whose files were quick takes more and all of them finish together (as make's
/// job server hands out tokens).
///
/// The parent writes the files' numbers as 4-byte records into one pipe that every worker
/// reads from. A read of 4 bytes from a pipe is atomic with respect to other readers and every
/// write is whole records, so each number reaches exactly one worker. The list of names is in
/// an unlinked temporary file that every worker inherits, and goes away with the last of them.
///
/// A queue can be made before its files are known, so workers start while the parent still
/// looks for the files: the list is written whole before the first number (`deal`), so a
/// worker reads the list when its first number comes.
final class FileQueue {
  private(set) var files: [String] = []
  /// Whether the files were dealt: until then nothing is written and the queue stays open.
  private var dealt = false
  /// The numbers a worker has the list and the queue as.
  static let workerList: Int32 = 3
  static let workerQueue: Int32 = 4
  /// Linux's F_SETPIPE_SZ, which Glibc's module does not export.
  private static let setPipeSize: Int32 = 1031
  /// What a worker inherits: the list and the pipe's read end.
  let listDescriptor: Int32
  let readEnd: Int32
  /// The pipe's write end, -1 once every record is written (which tells workers the end).
  private var writeEnd: Int32
  private var written = 0

  /// A queue whose files come later (`deal`).
  init?() {
    var template = Array((FileSystem.temporaryFolder() + "/workbench-files-XXXXXX").utf8CString)
    let list = mkstemp(&template)
    guard list >= 0 else { return nil }
    unlink(template)
    var descriptors: [Int32] = [0, 0]
    guard pipe(&descriptors) == 0 else {
      close(list)
      return nil
    }
    // Kept above the numbers workers see them as (3 and 4), so giving them those numbers never
    // overwrites one with the other; close-on-exec, so no other child inherits them.
    let moved = [list, descriptors[0], descriptors[1]].map { descriptor in
      let high = fcntl(descriptor, F_DUPFD_CLOEXEC, 10)
      close(descriptor)
      return high
    }
    guard !moved.contains(-1) else {
      for descriptor in moved where descriptor >= 0 { close(descriptor) }
      return nil
    }
    descriptors = [moved[1], moved[2]]
    // For the runner's own tests: a pipe of one page (1,024 records) makes a suite of a few
    // thousand files take the path where records are written as workers take them.
    if let size = getenv("WORKBENCH_TEST_QUEUE_PIPE_SIZE").flatMap({ Int32(String(cString: $0)) }) {
      _ = fcntl(descriptors[1], FileQueue.setPipeSize, size)
    }
    // Only the parent's end waits for nothing: workers' reads block until a record or the end.
    _ = fcntl(descriptors[1], F_SETFL, fcntl(descriptors[1], F_GETFL) | O_NONBLOCK)
    listDescriptor = moved[0]
    readEnd = descriptors[0]
    writeEnd = descriptors[1]
  }

  /// Writes the list of `files`, then as many of their numbers as the pipe takes; `false` when
  /// the list could not be written (the queue is then closed: its workers take nothing).
  func deal(_ files: [String]) -> Bool {
    guard !dealt else { return false }
    dealt = true
    var bytes: [UInt8] = []
    for file in files { bytes += file.utf8 + [0] }
    guard FileSystem.writeAll(bytes, to: listDescriptor) else {
      end()
      return false
    }
    self.files = files
    topUp()
    return true
  }

  /// Ends the queue and takes back the numbers no worker has taken yet (a run stopped at its
  /// first failure): each worker finishes the file it is on, then finds the end. Returns how
  /// many were taken back. Reads never wait: with the write end closed, an empty pipe reads as
  /// its end.
  func takeBack() -> Int {
    end()
    var taken = 0
    var record = [UInt8](repeating: 0, count: 4)
    while true {
      let count = read(readEnd, &record, 4)
      if count < 0 && errno == EINTR { continue }
      guard count == 4 else { break }
      taken += 1
    }
    return taken
  }

  /// Ends the queue without more files: each worker's next take finds the end.
  func end() {
    dealt = true
    if writeEnd >= 0 {
      close(writeEnd)
      writeEnd = -1
    }
  }

  deinit {
    close(listDescriptor)
    close(readEnd)
    if writeEnd >= 0 { close(writeEnd) }
  }

  /// Writes as many records as the pipe takes now; closes the write end after the last one.
  func topUp() {
    guard dealt else { return }
    while writeEnd >= 0 && written < files.count {
      // At most PIPE_BUF bytes a write, so each write goes in whole or not at all.
      let count = min(files.count - written, 1024)
      var records = [UInt8]()
      records.reserveCapacity(count * 4)
      for index in written..<(written + count) {
        withUnsafeBytes(of: UInt32(index).littleEndian) { records += $0 }
      }
      let result = records.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
      if result < 0 {
        if errno == EINTR { continue }
        return  // full (EAGAIN): the rest waits for the next top-up
      }
      written += count
    }
    if written == files.count { end() }
  }

  /// The worker's side: the files named by the list its parent made.
  static func readList(from descriptor: Int32) -> [String]? {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = pread(descriptor, &chunk, chunk.count, off_t(bytes.count))
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { return nil }
      if count == 0 { break }
      bytes += chunk[..<count]
    }
    return bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
      String(decoding: $0, as: UTF8.self)
    }
  }

  /// The worker's side: the number of the next file to run, or nil when there are no more.
  static func next(from descriptor: Int32) -> Int? {
    var record: UInt32 = 0
    while true {
      let count = withUnsafeMutableBytes(of: &record) { read(descriptor, $0.baseAddress, 4) }
      if count < 0 && errno == EINTR { continue }
      guard count == 4 else { return nil }
      return Int(UInt32(littleEndian: record))
    }
  }
}
