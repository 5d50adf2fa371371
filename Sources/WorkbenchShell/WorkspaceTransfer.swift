import FoundationEssentials
import WorkbenchCore
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
  /// Runs `export` or `import` with the arguments after it; returns the exit code.
  public static func run(_ command: String, _ arguments: [String], modules: [any FeatureModule]) -> Int32 {
    var workspacePath: String?
    let words: [String]
    do {
      words = try ProgramOptionParser.parse(arguments, options: ModuleSettings.options, into: &workspacePath)
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
      return ExitCode.success
    } catch {
      StandardStreams.error("error: \(error.message)\n")
      return ExitCode.failure
    }
  }

  private static func usage(_ command: String, _ problem: String) -> Int32 {
    let line = command == "export" ? "workbench export DOCUMENT FILE" : "workbench import FILE"
    StandardStreams.error("workbench \(command): \(problem)\nusage: \(line) [--workspace PATH]\n")
    return ExitCode.usage
  }

  static func export(_ name: String, to path: String, from workspace: WorkbenchSession) throws(CommandError) -> String {
    let stored: [SessionRecord.Document]
    do {
      stored = try workspace.store?.documents() ?? []
    } catch {
      throw CommandError(error.message)
    }
    guard let document = stored.first(where: { $0.name == name }) else {
      let hint = Suggestions.closest(to: name, in: stored.map(\.name)).map { ". Did you mean '\($0)'?" } ?? ""
      throw CommandError("no document named '\(name)' in the workspace\(hint)")
    }
    let text =
      "{\"name\":\(FrameValue.string(document.name).jsonText),\"kind\":\(FrameValue.string(document.kind).jsonText),"
      + "\"revision\":\(document.revision),\"body\":\(document.body)}\n"
    guard FileSystem.write(text, to: path) else {
      throw CommandError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
    return "exported \(name) (\(document.kind), revision \(document.revision)) to \(path)"
  }

  static func importDocument(from path: String, into workspace: WorkbenchSession) throws(CommandError) -> String {
    let bytes = try read(path)
    let value: FrameValue
    do {
      value = try FrameValue.parse(json: bytes)
    } catch {
      throw CommandError("\(path) is not valid JSON: \(error)")
    }
    guard case .object(let envelope) = value else {
      throw CommandError("\(path): expected an object with name, kind and body")
    }
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
      try host.importDocument(named: name, kind: kind, json: Array(body.jsonText.utf8))
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
