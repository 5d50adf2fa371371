import FoundationEssentials
import WorkbenchCore
import WorkbenchSystem

/// Trace folders: one JSON file per scenario (`FILE-STEM.LINE.trace.json`, the scenario's file
/// with `/` as `__`), so shards of a CI matrix write their own folders and `workbench report`
/// reads any number of them as one run.
public enum TraceStore {
  /// The file a scenario's trace goes in, inside the folder.
  static func fileName(for trace: ScenarioTrace) -> String {
    let stem = trace.file.map { $0 == "/" || $0 == "\\" || $0 == ":" ? "_" : $0 }
    return String(stem.drop { $0 == "." || $0 == "_" }) + ".\(trace.line).trace.json"
  }

  /// Writes the traces of `results` into `folder` (made if missing).
  ///
  /// - Returns: the problem, or `nil` when every trace was written.
  public static func write(_ results: [ScenarioResult], to folder: String) -> String? {
    guard FileSystem.makeFolders(folder) else { return "could not make the folder \(folder)" }
    // Not sorted: a frame's fields keep their order.
    let encoder = JSONEncoder()
    for trace in results.compactMap(\.trace) {
      let path = folder + "/" + fileName(for: trace)
      guard let text = json(of: trace, encoder: encoder), FileSystem.write(text, to: path) else {
        return "could not write \(path)"
      }
    }
    return nil
  }

  /// A trace as JSON. A coder does not keep the order of an object's keys, and a frame's
  /// fields have one, so the frames are written by `FrameValue` itself.
  static func json(of trace: ScenarioTrace, encoder: JSONEncoder) -> String? {
    var rest = trace
    rest.frames = [:]
    guard let data = try? encoder.encode(rest), case .object(let object)? = try? FrameValue.parse(json: Array(data))
    else { return nil }
    let frames = FrameValue.object(
      FrameObject(
        members: trace.frames.keys.sorted().map { hash in
          let frame = trace.frames[hash]!
          return (hash, ["screen": .string(frame.screen), "value": frame.value, "text": .string(frame.text)])
        }))
    let members = object.members.filter { $0.key != "frames" } + [("frames", frames)]
    return FrameValue.object(FrameObject(members: members)).jsonText
  }

  /// Every trace in the folders (and the trace files named directly), in file order.
  ///
  /// - Throws: a message naming the file that could not be read, and why.
  public static func read(_ paths: [String]) throws(TraceReadError) -> [ScenarioTrace] {
    var traces: [ScenarioTrace] = []
    for path in paths {
      guard FileSystem.exists(path) else { throw TraceReadError("\(path): no such file or folder") }
      let files = FileSystem.isDirectory(path) ? FileSystem.files(under: path) : [path]
      for file in files where file.hasSuffix(".trace.json") {
        let bytes: [UInt8]
        do {
          bytes = try FileSystem.read(file)
        } catch {
          throw TraceReadError("\(file): \(error)")
        }
        do {
          var trace = try JSONDecoder().decode(ScenarioTrace.self, from: Data(bytes))
          // A decoder forgets the order of an object's keys; a frame's fields keep theirs.
          if let ordered = try? FrameValue.parse(json: bytes), case .object(let frames)? = ordered["frames"] {
            for member in frames.members {
              if let value = member.value["value"] { trace.frames[member.key]?.value = value }
            }
          }
          guard trace.schema <= ScenarioTrace.currentSchema else {
            throw TraceReadError(
              "\(file): written by a newer workbench (trace schema \(trace.schema)); this one reads up to "
                + "\(ScenarioTrace.currentSchema)")
          }
          traces.append(trace)
        } catch let error as TraceReadError {
          throw error
        } catch {
          let why = (error as? DecodingError).map(DecodingErrorText.describe) ?? "not JSON"
          throw TraceReadError("\(file): not a workbench trace (\(why))")
        }
      }
    }
    return traces.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
  }
}

/// A trace file or folder that could not be read.
public struct TraceReadError: Error, CustomStringConvertible {
  public let message: String
  init(_ message: String) { self.message = message }
  public var description: String { message }
}
