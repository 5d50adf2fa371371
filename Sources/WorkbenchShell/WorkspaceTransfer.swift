import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchSession
import WorkbenchStore
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench export DOCUMENT FILE` and `workbench import FILE`: a document of the workspace
/// as a JSON file, `{"name": ..., "kind": ..., "revision": ..., "body": {...}}`.
@MainActor
public enum WorkspaceTransfer {
  /// `-w FILE`, the only option of `export` and `import`.
  public static let options: [ProgramOption<String?>] = [.workspace(\.self)]

  /// Runs `export` or `import` with the arguments after it; returns the exit status.
  public static func run(_ command: String, _ arguments: [String], modules: [any FeatureModule]) -> ExitCode {
    var workspacePath: String?
    let words: [String]
    do {
      words = try ProgramOptionParser.parse(arguments, options: options, into: &workspacePath)
    } catch {
      return usage(command, error.message)
    }
    let expected = command == "export" ? 2 : 1
    guard words.count == expected else {
      return usage(command, command == "export" ? "name a document and a file" : "name the file to import")
    }
    do {
      let workspace = try Workspace.session(
        path: workspacePath, modules: modules, environment: ScreenEnvironment(), restoringWindows: false)
      let message =
        command == "export"
        ? try export(words[0], to: words[1], from: workspace)
        : try importDocument(from: words[0], into: workspace)
      StandardStreams.out(message + "\n")
      return .success
    } catch {
      StandardStreams.error("error: \(error.message)\n")
      return .failure
    }
  }

  private static func usage(_ command: String, _ problem: String) -> ExitCode {
    let line = command == "export" ? "workbench export DOCUMENT FILE" : "workbench import FILE"
    StandardStreams.error("workbench \(command): \(problem)\nusage: \(line) [--workspace PATH]\n")
    return .usage
  }

  static func export(_ name: String, to path: String, from workspace: WorkbenchSession) throws(CommandError) -> String {
    let found: SessionRecord.Document?
    do {
      found = try workspace.store?.document(named: name)
    } catch {
      throw CommandError(error.message)
    }
    guard let document = found, !document.kind.isEmpty else {
      let names = (try? workspace.store?.documentSummaries().map(\.name)) ?? []
      let hint = Suggestions.didYouMean(name, in: names)
      throw CommandError("no document named '\(name)' in the workspace\(hint)")
    }
    let text =
      "{\"name\":\(FrameValue.string(document.name).jsonText),\"kind\":\(FrameValue.string(document.kind).jsonText),"
      + "\"revision\":\(document.revision),\"body\":\(document.body)}\n"
    // A copy of a workspace document is as private as the workspace (owner only).
    guard FileSystem.write(text, to: path, mode: 0o600) else {
      throw CommandError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
    return "exported \(name) (\(document.kind), revision \(document.revision)) to \(path)"
  }

  static func importDocument(from path: String, into workspace: WorkbenchSession) throws(CommandError) -> String {
    var bytes = try read(path)
    // The envelope's fields are found without building the body's tree (a million books would
    // be hundreds of megabytes of it): the body goes to its kind's decoder as the bytes it is.
    // Anything the scan does not take is parsed in full, which also says what is wrong.
    if let fields = JSONEnvelope.fields(of: bytes) {
      var envelope: [(key: String, value: FrameValue)] = []
      var bodyBytes: ArraySlice<UInt8>?
      for field in fields {
        if field.key == "body" {
          bodyBytes = bytes[field.value]
          envelope.append((field.key, bytes[field.value].first == UInt8(ascii: "{") ? [:] : .null))
        } else if let value = try? FrameValue.parse(json: Array(bytes[field.value])) {
          envelope.append((field.key, value))
        } else {
          envelope = []
          break
        }
      }
      if !envelope.isEmpty {
        // The body is copied out and the file's bytes let go before the body is decoded.
        let body = bodyBytes.map(Array.init)
        bodyBytes = nil
        bytes = []
        return try importDocument(FrameObject(members: envelope), body: body, path: path, into: workspace)
      }
    }
    let value: FrameValue
    do {
      value = try FrameValue.parse(json: bytes)
    } catch {
      throw CommandError("\(path) is not valid JSON: \(error)")
    }
    guard case .object(let envelope) = value else {
      throw CommandError("\(path): expected an object with name, kind and body")
    }
    return try importDocument(
      envelope, body: envelope["body"].map { Array($0.jsonText.utf8) }, path: path, into: workspace)
  }

  private static func importDocument(
    _ envelope: FrameObject, body bodyJSON: [UInt8]?, path: String, into workspace: WorkbenchSession
  ) throws(CommandError) -> String {
    for key in envelope.keys where !["name", "kind", "revision", "body"].contains(key) {
      throw CommandError("\(path): unknown field '\(key)' (the fields are name, kind, revision and body)")
    }
    guard let nameValue = envelope["name"] else { throw CommandError("\(path): field 'name' is missing") }
    guard case .string(let name) = nameValue, !name.isEmpty, !name.contains(where: \.isWhitespace) else {
      throw CommandError("\(path): field 'name' must be a document name without spaces")
    }
    guard let kindValue = envelope["kind"] else { throw CommandError("\(path): field 'kind' is missing") }
    guard case .string(let kind) = kindValue else { throw CommandError("\(path): field 'kind' must be text") }
    guard let body = envelope["body"] else { throw CommandError("\(path): field 'body' is missing") }
    guard case .object = body else { throw CommandError("\(path): field 'body' must be an object") }
    let host = workspace.host
    let before = host.document(named: name)?.revision
    do {
      try host.importDocument(named: name, kind: kind, json: bodyJSON ?? [])
    } catch {
      throw CommandError(
        "\(path): \(error.message.hasPrefix("unknown document kind") ? "field 'kind': " : "field 'body': ")\(error.message)"
      )
    }
    let revision = host.document(named: name)?.revision ?? 1
    return before == nil
      ? "imported \(name) (\(kind)) as a new document"
      : "imported \(name) (\(kind)) as revision \(revision), replacing revision \(before ?? 0)"
  }

  /// Finds the top-level fields of a JSON object and the bytes of each value, without parsing
  /// the values: strings are skipped with their escapes, objects and lists by their brackets.
  /// `nil` for anything else (the full parser then reports what is wrong).
  enum JSONEnvelope {
    static func fields(of bytes: [UInt8]) -> [(key: String, value: Range<Int>)]? {
      var index = 0
      func skipSpace() { while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 } }
      func skipString() -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return false }
        index += 1
        while index < bytes.count {
          switch bytes[index] {
          case UInt8(ascii: "\\"): index += 2
          case UInt8(ascii: "\""):
            index += 1
            return true
          default: index += 1
          }
        }
        return false
      }
      func skipValue() -> Bool {
        var depth = 0
        repeat {
          guard index < bytes.count else { return false }
          switch bytes[index] {
          case UInt8(ascii: "\""): if !skipString() { return false }
          case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
            index += 1
          case UInt8(ascii: "}"), UInt8(ascii: "]"):
            if depth == 0 { return true }
            depth -= 1
            index += 1
          case UInt8(ascii: ","): if depth == 0 { return true } else { index += 1 }
          default: index += 1
          }
        } while depth > 0 || (index < bytes.count && ![UInt8(ascii: ","), UInt8(ascii: "}")].contains(bytes[index]))
        return true
      }
      skipSpace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
      index += 1
      var fields: [(key: String, value: Range<Int>)] = []
      while true {
        skipSpace()
        let keyStart = index
        guard skipString(), let key = (try? FrameValue.parse(json: Array(bytes[keyStart..<index])))?.stringValue else {
          return nil
        }
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        skipSpace()
        let valueStart = index
        guard skipValue() else { return nil }
        var valueEnd = index
        while valueEnd > valueStart, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[valueEnd - 1]) { valueEnd -= 1 }
        guard valueEnd > valueStart else { return nil }
        fields.append((key, valueStart..<valueEnd))
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: ",") {
          index += 1
          continue
        }
        guard bytes[index] == UInt8(ascii: "}") else { return nil }
        index += 1
        skipSpace()
        return index == bytes.count ? fields : nil
      }
    }
  }

  private static func read(_ path: String) throws(CommandError) -> [UInt8] {
    do {
      return try FileSystem.read(path, limit: 64 * 1024 * 1024)
    } catch {
      switch error {
      case .missing: throw CommandError("no such file: \(path)")
      case .tooLarge: throw CommandError("\(path) is larger than 64 MB")
      case .unreadable(let reason): throw CommandError("cannot read \(path): \(reason)")
      }
    }
  }

}
