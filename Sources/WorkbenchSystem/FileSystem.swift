#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The little file access the workbench needs, on POSIX calls (no Foundation): whole-file reads
/// and writes, folders, and listing. One place for the shell, the store and the scenario runner.
public enum FileSystem {
  /// The largest scenario, flow or data file read.
  public static let maximumFileSize = 8 * 1024 * 1024

  /// Why a file could not be read.
  public enum ReadError: Error, Equatable, CustomStringConvertible {
    case missing
    case tooLarge(Int)
    case unreadable(String)

    /// Why, in words: `no such file`, `it is 14 MB, over the limit`.
    public var description: String {
      switch self {
      case .missing: return "no such file"
      case .tooLarge(let size):
        let megabytes = Double(size) / 1_048_576
        let shown = megabytes < 10 ? String(Double(Int(megabytes * 10)) / 10) : String(Int(megabytes))
        return "it is \(shown) MB, over the limit"
      case .unreadable(let reason): return reason
      }
    }
  }

  /// The bytes of a regular file.
  ///
  /// Anything else (a FIFO, a device, a socket, a folder) is refused without reading it: the
  /// file is opened non-blocking, so even opening a FIFO with no writer cannot wait, and its
  /// type is checked on the open descriptor, so it cannot be swapped after the check.
  public static func read(_ path: String, limit: Int = maximumFileSize) throws(ReadError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      let failure = errno
      switch failure {
      case ELOOP: throw .unreadable("its symbolic links lead round in a loop")
      case ENOENT where isSymbolicLink(path):
        throw .unreadable("it is a link to \(linkTarget(path) ?? "?"), which is not there")
      case ENOENT: throw .missing
      default: throw .unreadable(String(cString: strerror(failure)))
      }
    }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
    switch info.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw .unreadable("it is a folder")
    case S_IFIFO: throw .unreadable("it is a FIFO (a named pipe), not a regular file")
    case S_IFCHR, S_IFBLK: throw .unreadable("it is a device, not a regular file")
    case S_IFSOCK: throw .unreadable("it is a socket, not a regular file")
    default: throw .unreadable("it is not a regular file")
    }
    guard Int(info.st_size) <= limit else { throw .tooLarge(Int(info.st_size)) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(info.st_size))
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = Glibc.read(descriptor, &buffer, buffer.count)
      if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
      if count <= 0 { break }
      bytes += buffer[..<count]
      if bytes.count > limit { throw .tooLarge(bytes.count) }
    }
    return bytes
  }

  /// Writes a file whole, creating folders on the way; false when it cannot.
  @discardableResult
  public static func write(_ text: String, to path: String, mode: mode_t = 0o644) -> Bool {
    write(bytes: Array(text.utf8), to: path, mode: mode, makingFolders: true)
  }

  /// Writes `bytes` to `path` (replacing what it held), in a folder that exists unless
  /// `makingFolders`; false when it cannot be written in full.
  ///
  /// A file that exists is written over and then cut to its new length, not emptied first: ext4
  /// takes emptying a file, writing it and closing it for a replacement made in place and writes
  /// it out to disk as it closes (its `auto_da_alloc`), which cost a traced run rewriting a
  /// thousand trace files about a tenth of its time.
  public static func write(bytes: [UInt8], to path: String, mode: mode_t = 0o644, makingFolders: Bool = false) -> Bool {
    if makingFolders, let slash = path.lastIndex(of: "/"), slash != path.startIndex {
      makeFolders(String(path[..<slash]))
    }
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, mode)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    guard writeAll(bytes, to: descriptor) else { return false }
    var status = stat()
    if fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && status.st_size != off_t(bytes.count) {
      return ftruncate(descriptor, off_t(bytes.count)) == 0
    }
    return true
  }

  /// Writes `bytes` to a file a user named for output (`explore --out`): a new file, or with
  /// `replacing` a regular file that is there. Never through a symbolic link, never into a FIFO
  /// or device (the open does not wait on one), never over a file unless asked.
  ///
  /// - Returns: `nil` when written, else why not, in words for the user.
  public static func writeOutput(_ bytes: [UInt8], to path: String, replacing: Bool) -> String? {
    // O_EXCL with O_CREAT never follows a link and never opens what is there; O_NONBLOCK keeps
    // a FIFO from holding the open.
    var descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
    if descriptor < 0, errno == EEXIST {
      var status = stat()
      guard lstat(path, &status) == 0 else { return "\(path) cannot be read: \(String(cString: strerror(errno)))" }
      switch status.st_mode & S_IFMT {
      case S_IFLNK: return "\(path) is a symbolic link: nothing is written through one (name the file it points to)"
      case S_IFDIR: return "\(path) is a folder: name a file"
      case S_IFREG:
        guard replacing else { return "\(path) is there already: say --force to replace it, or name another file" }
      default: return "\(path) is not a regular file (a FIFO, a socket or a device): name a file"
      }
      descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    }
    guard descriptor >= 0 else { return "\(path) cannot be written: \(String(cString: strerror(errno)))" }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      return "\(path) is not a regular file: name a file"
    }
    guard ftruncate(descriptor, 0) == 0, writeAll(bytes, to: descriptor) else {
      return "\(path) cannot be written: \(String(cString: strerror(errno)))"
    }
    return nil
  }

  /// Writes all of `bytes` to an open file, through short writes and interruptions; false when
  /// the file takes no more.
  public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }

  /// Where temporary files go: `$TMPDIR`, else `/tmp`.
  public static func temporaryFolder() -> String {
    if let folder = getenv("TMPDIR"), folder.pointee != 0 { return String(cString: folder) }
    return "/tmp"
  }

  /// Makes a new private folder (`mkdtemp`) in the temporary folder, named from `prefix`.
  public static func makeTemporaryFolder(prefix: String) -> String? {
    var template = Array((temporaryFolder() + "/" + prefix + "-XXXXXX").utf8CString)
    return template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) }
  }

  /// Creates a folder and its parents, like `mkdir -p`; false when one cannot be made.
  @discardableResult
  public static func makeFolders(_ path: String, mode: mode_t = 0o755) -> Bool {
    var current = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
      current += "/" + component
      if mkdir(current, mode) != 0 && errno != EEXIST { return false }
    }
    return true
  }

  /// The current directory.
  public static func currentDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getcwd(&buffer, buffer.count) != nil else { return "." }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// `path` made absolute against the current directory, without `.` components (`./x`).
  public static func absolute(_ path: String) -> String {
    let whole = path.hasPrefix("/") ? path : currentDirectory() + "/" + path
    return "/" + whole.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
  }

  public static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  public static func exists(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0
  }

  /// The name and type (`DT_DIR`...) of an entry `readdir` returned, read in place. The
  /// kernel's record is only as long as its name: copying the whole `dirent` (`entry.pointee`,
  /// 256 bytes of name) reads past the end of the last record in the buffer (AddressSanitizer
  /// caught it in a folder of 1,500 files).
  public static func entry(_ entry: UnsafeMutablePointer<dirent>) -> (name: String, type: UInt8) {
    let record = UnsafeRawPointer(entry)
    let type = record.load(fromByteOffset: MemoryLayout<dirent>.offset(of: \.d_type)!, as: UInt8.self)
    let name = (record + MemoryLayout<dirent>.offset(of: \.d_name)!).assumingMemoryBound(to: CChar.self)
    return (String(cString: name), type)
  }

  /// What a walk of a folder found.
  public struct FolderWalk: Equatable, Sendable {
    /// The files, sorted.
    public var files: [String] = []
    /// Links to folders outside the folder walked, which were not followed (sorted).
    public var linksLeavingFolder: [String] = []
    /// Whether the walk stopped at its limit of files.
    public var stoppedAtLimit = false
  }

  /// The files under a folder, recursively, sorted; hidden entries are skipped. Each real folder
  /// is visited once (a link back up the tree, `loop -> .`, is not a way down forever), and links
  /// to folders outside the folder named are not followed (a link to `/` would walk the whole
  /// file system): `linksLeavingFolder` lists them. The folder named is walked wherever it is, a
  /// link itself included.
  ///
  /// - Parameters:
  ///   - maximumDepth: how many folders down to go (1: the folder's own files only).
  ///   - limit: the most files to find.
  /// - Complexity: O(entries under the folder), each folder read once.
  public static func walk(_ folder: String, maximumDepth: Int = Int.max, limit: Int = Int.max) -> FolderWalk {
    var walk = FolderWalk()
    guard let root = realPath(folder) else { return walk }
    var visited: Set<FolderIdentity> = []
    if let identity = FolderIdentity(path: folder) { visited.insert(identity) }
    // Real folders first, links to folders after them, so a folder reached both ways is found
    // under its real path and which way is taken does not depend on the order entries come in.
    var pending: [(path: String, depth: Int)] = [(folder, 1)]
    var links: [(path: String, depth: Int)] = []
    while walk.files.count < limit {
      let current: String
      let depth: Int
      if let real = pending.popLast() {
        (current, depth) = real
      } else if let link = links.popLast() {
        // A link is followed only when its folder was not reached another way.
        guard let identity = FolderIdentity(path: link.path), visited.insert(identity).inserted else { continue }
        (current, depth) = link
      } else {
        break
      }
      guard let directory = opendir(current) else { continue }
      var entries: [(name: String, type: UInt8)] = []
      while let entry = readdir(directory) { entries.append(Self.entry(entry)) }
      closedir(directory)
      for (name, type) in entries.sorted(by: { $0.name > $1.name }) where !name.hasPrefix(".") {
        let path = current.hasSuffix("/") ? current + name : current + "/" + name
        // The entry's type comes with it on most file systems; others say DT_UNKNOWN: looked up.
        let isLink = type == UInt8(DT_LNK) || (type == UInt8(DT_UNKNOWN) && isSymbolicLink(path))
        let isFolder = type == UInt8(DT_DIR) || ((type == UInt8(DT_UNKNOWN) || isLink) && isDirectory(path))
        guard isFolder else {
          if walk.files.count < limit { walk.files.append(path) } else { walk.stoppedAtLimit = true }
          continue
        }
        guard depth < maximumDepth else { continue }
        if isLink {
          guard let target = realPath(path), target == root || target.hasPrefix(root == "/" ? "/" : root + "/")
          else {
            walk.linksLeavingFolder.append(path)
            continue
          }
          links.insert((path, depth + 1), at: 0)
        } else if let identity = FolderIdentity(path: path), visited.insert(identity).inserted {
          pending.append((path, depth + 1))
        }
      }
    }
    if walk.files.count >= limit, !pending.isEmpty || !links.isEmpty { walk.stoppedAtLimit = true }
    walk.files.sort()
    walk.linksLeavingFolder.sort()
    return walk
  }

  /// The files under a folder, as `walk` finds them (each real folder once, links out of the
  /// folder not followed), sorted.
  public static func files(under folder: String) -> [String] { walk(folder).files }

  /// A folder's (or a file's) device and inode: the same one, whichever path leads to it.
  struct FolderIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
      var info = stat()
      guard stat(path, &info) == 0 else { return nil }
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
    }
  }

  /// Whether two paths lead to one file that exists (the same device and inode, whichever links
  /// or `..` lead there).
  public static func sameFile(_ one: String, _ other: String) -> Bool {
    guard let first = FolderIdentity(path: one), let second = FolderIdentity(path: other) else { return false }
    return first == second
  }

  /// Where a symbolic link points, as it is written.
  public static func linkTarget(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink(path, &buffer, buffer.count - 1)
    guard length >= 0 else { return nil }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Whether `path` is a symbolic link (not followed).
  public static func isSymbolicLink(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
  }

  /// The path with every link resolved, `.` and `..` taken away; `nil` when it does not exist.
  public static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// The folder part of a path (`.` when there is none).
  public static func folder(of path: String) -> String {
    // Looked for in the bytes: `/` is one byte and never part of another character, and a
    // search by character compares graphemes (the parent of a thousand-file run asks this of
    // every file).
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// `relative` resolved against `folder`, unless it is absolute (`/` as the folder gives
  /// `/relative`, not `//relative`).
  public static func resolve(_ relative: String, from folder: String) -> String {
    if relative.hasPrefix("/") { return relative }
    if folder == "." { return relative }
    return folder.hasSuffix("/") ? folder + relative : folder + "/" + relative
  }
}

/// The user's folders for the workbench, as the XDG base directory specification places them.
public enum UserFolders {
  /// `$XDG_STATE_HOME/workbench/SUB` (default `~/.local/state/workbench/SUB`), made (0700) if
  /// missing; `nil` when there is no home to put it in.
  public static func state(_ sub: String = "") -> String? {
    folder(variable: "XDG_STATE_HOME", fallback: "/.local/state", sub: sub, mode: 0o700)
  }

  /// `$XDG_DATA_HOME/workbench` (default `~/.local/share/workbench`), not made.
  public static func dataPath() -> String? {
    base(variable: "XDG_DATA_HOME", fallback: "/.local/share").map { $0 + "/workbench" }
  }

  private static func folder(variable: String, fallback: String, sub: String, mode: mode_t) -> String? {
    guard let base = base(variable: variable, fallback: fallback) else { return nil }
    let folder = base + "/workbench" + (sub.isEmpty ? "" : "/" + sub)
    return FileSystem.makeFolders(folder, mode: mode) ? folder : nil
  }

  private static func base(variable: String, fallback: String) -> String? {
    func value(_ name: String) -> String? {
      guard let value = getenv(name) else { return nil }
      let text = String(cString: value)
      return text.isEmpty ? nil : text
    }
    if let set = value(variable), set.hasPrefix("/") { return set }
    return value("HOME").map { $0 + fallback }
  }
}
