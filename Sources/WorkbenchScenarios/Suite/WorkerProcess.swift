import WorkbenchScenarioFormat
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// A worker: this program started again with `run --worker`, its results read from a pipe.
final class WorkerProcess {
  let pid: pid_t
  let output: Int32
  var buffer: [UInt8] = []
  var finished = false
  /// Whether `wait` has collected its exit status.
  private(set) var reaped = false
  /// The files it was told to run, then those it took from the queue, in the order it ran them.
  var files: [String] = []
  /// How many of `files` it was told to run.
  var namedFiles = 0
  /// The scenario it said it started and has not finished, and the file it is in.
  var current: SourceLocation?
  var currentFile: String?
  /// How many results of `currentFile` are still to come, once it is loaded.
  var resultsDue: Int?
  /// Scenarios (`FILE:LINE`) and files it finished.
  var done: Set<String> = []
  var doneFiles: Set<String> = []

  init?(executable: String, arguments: [String], queue: FileQueue? = nil) {
    var pipeDescriptors: [Int32] = [0, 0]
    guard pipe(&pipeDescriptors) == 0 else { return nil }
    _ = fcntl(pipeDescriptors[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(pipeDescriptors[1], F_SETFD, FD_CLOEXEC)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, pipeDescriptors[1], 1)
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    if let queue {
      posix_spawn_file_actions_adddup2(&actions, queue.listDescriptor, FileQueue.workerList)
      posix_spawn_file_actions_adddup2(&actions, queue.readEnd, FileQueue.workerQueue)
    }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    // Signals the parent ignores (SIGPIPE) start at their defaults, as from a login shell.
    var pid: pid_t = 0
    let result = Spawning.withDefaultSignals { attributes in
      posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    }
    argv.forEach { free($0) }
    posix_spawn_file_actions_destroy(&actions)
    close(pipeDescriptors[1])
    guard result == 0 else {
      close(pipeDescriptors[0])
      return nil
    }
    self.pid = pid
    self.output = pipeDescriptors[0]
  }

  /// Waits until some worker has output, and returns the complete lines read, each with the
  /// worker that wrote it.
  static func readLines(from workers: [WorkerProcess]) -> [(WorkerProcess, String)] {
    let active = workers.filter { !$0.finished }
    var descriptors = active.map { pollfd(fd: $0.output, events: Int16(POLLIN), revents: 0) }
    guard poll(&descriptors, nfds_t(descriptors.count), 1000) > 0 else { return [] }
    var lines: [(WorkerProcess, String)] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    for (index, worker) in active.enumerated() where descriptors[index].revents != 0 {
      let count = read(worker.output, &chunk, chunk.count)
      if count <= 0 {
        if count < 0 && errno == EINTR { continue }
        worker.finished = true
        close(worker.output)
        continue
      }
      worker.buffer += chunk[..<count]
      // Lines are cut from the front in one removal: removing each line as it is read moved
      // the rest of the buffer once a line.
      var start = worker.buffer.startIndex
      while let newline = worker.buffer[start...].firstIndex(of: 0x0A) {
        lines.append((worker, String(decoding: worker.buffer[start..<newline], as: UTF8.self)))
        start = newline + 1
      }
      worker.buffer.removeSubrange(..<start)
    }
    return lines
  }

  func terminate() {
    kill(pid, SIGTERM)
  }

  /// Waits for the worker to end; returns its exit status (128 + signal when killed).
  func wait() -> Int32 {
    if !finished {
      finished = true
      close(output)
    }
    reaped = true
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
  }
}
