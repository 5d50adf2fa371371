import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Trace folders: one JSON file per scenario (`FILE.LINE.trace.json`, the scenario's path with
/// `/` as `_`) and one `frames.jsonl` holding every distinct frame once, by hash, for all of
/// them. Shards of a CI matrix write their own folders; `workbench report` reads any number of
/// them as one run. The format is in docs/traces.md.
public enum TraceStore {
  /// The file a scenario's trace goes in, inside the folder.
  static func fileName(for trace: ScenarioTrace) -> String {
    let stem = trace.file.map { $0 == "/" || $0 == "\\" || $0 == ":" ? "_" : $0 }
    return String(stem.drop { $0 == "." || $0 == "_" }) + ".\(trace.line)" + (trace.run.map { ".run\($0)" } ?? "")
      + ".trace.json"
  }

  static let framesFile = "frames.jsonl"

  /// Writes the traces of `results` into `folder` (made if missing), replacing the traces an
  /// earlier run left there.
  ///
  /// - Returns: the problem, or `nil` when every trace was written.
  public static func write(_ results: [ScenarioResult], to folder: String) -> String? {
    var writer: Folder
    switch Folder.open(folder) {
    case .success(let opened): writer = opened
    case .failure(let problem): return problem.message
    }
    for trace in results.compactMap(\.trace) {
      if let problem = writer.add(trace, steps: stepsJSON(of: trace)) { return problem }
    }
    return writer.finish()
  }

  /// A trace folder being written, one scenario at a time (a run adds each as it finishes).
  struct Folder: Sendable {
    let path: String
    /// The trace files written so far.
    private var files: Set<String> = []
    /// The frames written to `frames.jsonl` so far, by hash, and the file's text.
    private var hashes: Set<String> = []
    private var frames: [UInt8] = []
    private var buffer: [UInt8] = []

    private init(path: String) { self.path = path }

    /// The folder, made if missing.
    static func open(_ path: String) -> Result<Folder, TraceReadError> {
      FileSystem.makeFolders(path)
        ? .success(Folder(path: path)) : .failure(TraceReadError("could not make the folder \(path)"))
    }

    /// Writes a scenario's trace file (overwriting the one an earlier run left: deleting a
    /// thousand files and making them again costs the file system more than the writing).
    mutating func add(_ trace: ScenarioTrace, steps: [UInt8]) -> String? {
      let file = path + "/" + fileName(for: trace)
      buffer.removeAll(keepingCapacity: true)
      appendJSON(of: trace, steps: steps, to: &buffer)
      guard FileSystem.write(bytes: buffer, to: file) else { return "could not write \(file)" }
      files.insert(file)
      for hash in trace.frames.keys.sorted() where hashes.insert(hash).inserted {
        let frame = trace.frames[hash]!
        let line: FrameValue = [
          "hash": .string(hash), "screen": .string(frame.screen), "text": .string(frame.text), "value": frame.value,
        ]
        line.appendJSON(to: &frames)
        frames.append(0x0A)
      }
      return nil
    }

    /// Writes `frames.jsonl` and removes the traces an earlier run left that this one did not
    /// write again.
    func finish() -> String? {
      let framesPath = path + "/" + framesFile
      for file in FileSystem.files(under: path) where file.hasSuffix(".trace.json") && !files.contains(file) {
        unlink(file)
      }
      return FileSystem.write(bytes: frames, to: framesPath) ? nil : "could not write \(framesPath)"
    }
  }

  /// Appends a trace as JSON, without its frames (they go in `frames.jsonl`), given its
  /// steps' JSON (`stepsJSON(of:)`). Empty fields are left out, a step's location is
  /// `LINE:COLUMN` when it is in the scenario's own file, and `<` is written `\u003c`, so the
  /// report can embed the same text.
  static func appendJSON(of trace: ScenarioTrace, steps: [UInt8], to bytes: inout [UInt8]) {
    func strings(_ list: [String]) -> FrameValue { .list(list.map(FrameValue.string)) }
    var members: [(key: String, value: FrameValue)] = [
      ("schema", .integer(trace.schema)), ("scenario", .string(trace.scenario)), ("file", .string(trace.file)),
      ("line", .integer(trace.line)), ("tags", strings(trace.tags)), ("status", .string(trace.status)),
      ("duration", .number(trace.duration)), ("windows", strings(trace.windows)),
    ]
    if let run = trace.run { members.insert(("run", .integer(run)), at: 4) }
    if let reason = trace.skipped { members.append(("skipped", .string(reason))) }
    if let failure = trace.failure {
      members.append(
        (
          "failure",
          [
            "location": .string(failure.location.description), "step": .string(failure.step),
            "message": .string(failure.message), "details": strings(failure.details), "origin": strings(failure.origin),
          ]
        ))
    }
    FrameValue.object(FrameObject(members: members)).appendJSON(to: &bytes, escapingLessThan: true)
    bytes.removeLast()  // the object goes on with its steps
    bytes += #","steps":"#.utf8
    bytes += steps
    bytes += "}\n".utf8
  }

  /// The steps of a trace as a JSON list, written once for the trace file and the report:
  /// empty fields left out, the location as `LINE:COLUMN` when it is in the scenario's own
  /// file, `<` written `\u003c`.
  static func stepsJSON(of trace: ScenarioTrace) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(trace.steps.count * 160)
    let prefix = trace.file + ":"
    func key(_ name: String) {
      bytes += name.utf8
    }
    func string(_ text: String) { FrameValue.appendJSONString(text, to: &bytes, escapingLessThan: true) }
    func list(_ name: String, _ items: [String]) {
      guard !items.isEmpty else { return }
      key(name)
      bytes.append(UInt8(ascii: "["))
      for (index, item) in items.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        string(item)
      }
      bytes.append(UInt8(ascii: "]"))
    }
    bytes.append(UInt8(ascii: "["))
    for (index, step) in trace.steps.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      key(#"{"kind":"#)
      string(step.kind)
      key(#","text":"#)
      string(step.text)
      key(#","at":"#)
      string(step.location.hasPrefix(prefix) ? String(step.location.dropFirst(prefix.count)) : step.location)
      key(#","ms":"#)
      FrameValue.number(step.durationMs).appendJSON(to: &bytes)
      key(#","clock":"#)
      bytes += String(step.clockMs).utf8
      key(#","outcome":"#)
      string(step.outcome)
      if !step.frames.isEmpty {
        key(#","frames":{"#)
        for (position, window) in step.frames.keys.sorted().enumerated() {
          if position > 0 { bytes.append(UInt8(ascii: ",")) }
          string(window)
          bytes.append(UInt8(ascii: ":"))
          if let hash = step.frames[window]! { string(hash) } else { key("null") }
        }
        bytes.append(UInt8(ascii: "}"))
      }
      if let message = step.message {
        key(#","message":"#)
        string(message)
      }
      list(#","origin":"#, step.origin)
      list(#","details":"#, step.details)
      list(#","output":"#, step.output)
      list(#","facts":"#, step.facts)
      bytes.append(UInt8(ascii: "}"))
    }
    bytes.append(UInt8(ascii: "]"))
    return bytes
  }

  /// Every trace in the folders (and the trace files named directly), in file order, with
  /// the frames of its folder.
  ///
  /// - Throws: a message naming the file that could not be read, and why.
  public static func read(_ paths: [String]) throws(TraceReadError) -> [ScenarioTrace] {
    var traces: [ScenarioTrace] = []
    for path in paths {
      guard FileSystem.exists(path) else { throw TraceReadError("\(path): no such file or folder") }
      let isFolder = FileSystem.isDirectory(path)
      let files = isFolder ? FileSystem.files(under: path) : [path]
      var frames: [String: TraceFrame] = [:]
      for file in files where file.hasSuffix("/" + framesFile) || file == framesFile {
        try readFrames(file, into: &frames)
      }
      if !isFolder {
        let sibling = FileSystem.folder(of: path) + "/" + framesFile
        if FileSystem.exists(sibling) { try readFrames(sibling, into: &frames) }
      }
      for file in files where file.hasSuffix(".trace.json") {
        var trace = try readTrace(file)
        for step in trace.steps {
          for case let hash? in step.frames.values {
            guard let frame = frames[hash] else {
              throw TraceReadError("\(file): frame \(hash) is not in \(framesFile) beside it")
            }
            trace.frames[hash] = frame
          }
        }
        traces.append(trace)
      }
    }
    return traces.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
  }

  private static func bytes(of file: String) throws(TraceReadError) -> [UInt8] {
    do {
      return try FileSystem.read(file)
    } catch {
      throw TraceReadError("\(file): \(error)")
    }
  }

  private static func readFrames(_ file: String, into frames: inout [String: TraceFrame]) throws(TraceReadError) {
    let content = try bytes(of: file)
    for (index, line) in content.split(separator: 0x0A).enumerated() {
      guard let value = try? FrameValue.parse(json: Array(line)), let hash = value["hash"]?.stringValue,
        let screen = value["screen"]?.stringValue, let text = value["text"]?.stringValue, let frame = value["value"]
      else { throw TraceReadError("\(file):\(index + 1): not a frame line ({hash, screen, text, value})") }
      frames[hash] = TraceFrame(screen: screen, value: frame, text: text)
    }
  }

  private static func readTrace(_ file: String) throws(TraceReadError) -> ScenarioTrace {
    let content = try bytes(of: file)
    let value: FrameValue
    do {
      value = try FrameValue.parse(json: content)
    } catch {
      throw TraceReadError("\(file): not JSON (\(error.message) at byte \(error.offset))")
    }
    func bad(_ what: String) -> TraceReadError { TraceReadError("\(file): not a workbench trace (\(what))") }
    guard let schema = value["schema"]?.integerValue else { throw bad("no schema") }
    guard schema <= ScenarioTrace.currentSchema else {
      throw TraceReadError(
        "\(file): written by a newer workbench (trace schema \(schema)); this one reads up to "
          + "\(ScenarioTrace.currentSchema)")
    }
    guard let name = value["scenario"]?.stringValue, let path = value["file"]?.stringValue,
      let line = value["line"]?.integerValue, let status = value["status"]?.stringValue,
      let stepValues = value["steps"]?.elements
    else { throw bad("scenario, file, line, status and steps are required") }
    func strings(_ value: FrameValue?) -> [String] { value?.elements?.compactMap(\.stringValue) ?? [] }
    var steps: [TraceStep] = []
    for (index, step) in stepValues.enumerated() {
      guard let kind = step["kind"]?.stringValue, let text = step["text"]?.stringValue,
        let at = step["at"]?.stringValue, let outcome = step["outcome"]?.stringValue
      else { throw bad("steps[\(index)] needs kind, text, at and outcome") }
      var frames: [String: String?] = [:]
      if case .object(let object)? = step["frames"] {
        for member in object.members { frames[member.key] = .some(member.value.stringValue) }
      }
      let relative = at.first?.isNumber == true && at.split(separator: ":").count == 2
      steps.append(
        TraceStep(
          kind: kind, text: text, location: relative ? path + ":" + at : at, origin: strings(step["origin"]),
          durationMs: step["ms"]?.numberValue ?? 0, clockMs: step["clock"]?.integerValue ?? 0, frames: frames,
          outcome: outcome, message: step["message"]?.stringValue, details: strings(step["details"]),
          output: strings(step["output"]), facts: strings(step["facts"])))
    }
    var failure: ScenarioFailure?
    if let recorded = value["failure"], let place = recorded["location"]?.stringValue {
      failure = ScenarioFailure(
        location: SourceLocation(parsing: place), step: recorded["step"]?.stringValue ?? "",
        message: recorded["message"]?.stringValue ?? "", details: strings(recorded["details"]),
        origin: strings(recorded["origin"]))
    }
    var trace = ScenarioTrace(
      schema: schema, scenario: name, file: path, line: line, tags: strings(value["tags"]), status: status,
      duration: value["duration"]?.numberValue ?? 0, failure: failure, windows: strings(value["windows"]),
      steps: steps, frames: [:])
    if status == "skipped" { trace.skipped = value["skipped"]?.stringValue ?? "no reason given" }
    return trace
  }
}

/// A trace file or folder that could not be read.
public struct TraceReadError: Error, CustomStringConvertible {
  public let message: String
  init(_ message: String) { self.message = message }
  public var description: String { message }
}

extension SourceLocation {
  /// A location from its `file:line:column` text (the file may hold colons).
  init(parsing text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    if parts.count >= 3, let line = Int(parts[parts.count - 2]), let column = Int(parts[parts.count - 1]) {
      self.init(file: parts.dropLast(2).joined(separator: ":"), line: line, column: column)
    } else {
      self.init(file: text, line: 0, column: 0)
    }
  }
}
