import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// A worker: this program started again with `run --worker`, its results read from a pipe.
final class WorkerProcess {
  let pid: pid_t
  let output: Int32
  var buffer = InputBuffer()
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

  /// The process, whose standard output is the pipe its results come on.
  private let process: SpawnedProcess

  init?(executable: String, arguments: [String], queue: FileQueue? = nil) {
    let handed = queue.map { [($0.listDescriptor, FileQueue.workerList), ($0.readEnd, FileQueue.workerQueue)] } ?? []
    guard
      let process = try? SpawnedProcess(
        executable, arguments: arguments, input: .null, output: .pipe, error: .inherited, descriptors: handed,
        worker: true),
      let output = process.output
    else { return nil }
    self.process = process
    self.pid = process.pid
    self.output = output
  }

  /// Waits until some worker has output, and returns the complete lines read, each with the
  /// worker that wrote it.
  static func readLines(from workers: [WorkerProcess]) -> [(WorkerProcess, String)] {
    let active = workers.filter { !$0.finished }
    let wanted = active.map { (descriptor: $0.output, wanted: Readiness.readable) }
    guard case .ready(let happened) = Descriptors.wait(forAny: wanted, milliseconds: 1000) else { return [] }
    var lines: [(WorkerProcess, String)] = []
    for (index, worker) in active.enumerated() where happened[index].happened {
      let count = worker.buffer.read(from: worker.output)
      if count <= 0 {
        if count < 0 && errno == EINTR { continue }
        worker.finished = true
        worker.process.closeOutput()
        continue
      }
      while let line = worker.buffer.nextLine() { lines.append((worker, String(decoding: line, as: UTF8.self))) }
    }
    return lines
  }

  /// Waits `milliseconds`, or less when a worker's output ends first (it exited, or closed it):
  /// a wait for no event still hears a hang-up.
  static func pause(_ milliseconds: Int, orUntilAnEndOf workers: [WorkerProcess]) {
    let outputs = workers.filter { !$0.finished }.map { (descriptor: $0.output, wanted: Readiness()) }
    _ = Descriptors.wait(forAny: outputs, milliseconds: milliseconds)
  }

  func terminate() {
    process.signal(SIGTERM)
  }

  /// Ends it at once: for a worker that has taken nothing yet.
  func kill() {
    process.signal(SIGKILL)
  }

  /// Waits for the worker to end; returns its exit status (128 + signal when killed).
  func wait() -> Int32 {
    waitForEnd().status
  }

  /// Waits for the worker to end; returns how it ended.
  func waitForEnd() -> SpawnedProcess.Termination {
    if !finished {
      finished = true
      process.closeOutput()
    }
    reaped = true
    return process.wait()
  }
}
