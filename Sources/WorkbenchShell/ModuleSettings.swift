import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchExternalModules
import WorkbenchModuleAPI
import WorkbenchStore
import WorkbenchSystem

/// `workbench modules add|remove|list [PATH]`: the modules every start of the shell loads,
/// kept in the workspace.
@MainActor
public enum ModuleSettings {
  /// The modules the workspace at `path` (the default one when `nil`) loads at every start
  /// (`workbench modules add`): what `workbench lsp` loads too, so their commands and fields
  /// are known in the editor.
  ///
  /// - Throws: `StoreError` when a named workspace is not there, or the file is not one.
  public static func paths(ofWorkspaceAt path: String?) throws(StoreError) -> [String] {
    try WorkspaceStore.modulePaths(ofWorkspaceAt: path)
  }

  /// `-w FILE`, the only option.
  public static let options: [ProgramOption<String?>] = [.workspace(\.self, help: "the workspace whose list to change")]

  public static func run(_ arguments: [String]) -> ExitCode {
    var workspace: String?
    let words: [String]
    do {
      words = try ProgramOptionParser.parse(arguments, options: options, into: &workspace)
    } catch {
      StandardStreams.error("workbench modules: \(error.message)\n")
      return .usage
    }
    guard let action = words.first, ["add", "remove", "list"].contains(action),
      (action == "list") == (words.count == 1),
      words.count <= 2
    else {
      StandardStreams.error("usage: workbench modules add PATH | remove PATH | list [--workspace FILE]\n")
      return .usage
    }
    do {
      let store = try Workspace.openStore(path: workspace)
      switch action {
      case "list":
        let paths = try store.modulePaths()
        StandardStreams.out(paths.isEmpty ? "no modules are loaded at start\n" : paths.joined(separator: "\n") + "\n")
      case "add":
        let path = FileSystem.absolute(words[1])
        // Check it really is a module before every start tries to load it.
        let loaded = ExternalModules.load([path])
        if let problem = loaded.errors.first {
          StandardStreams.error("error: \(problem)\n")
          return .failure
        }
        try store.setModule(path, loaded: true)
        StandardStreams.out("\(loaded.modules.first?.manifest.name ?? path) will load at every start (\(path))\n")
      default:
        try store.setModule(FileSystem.absolute(words[1]), loaded: false)
        StandardStreams.out("removed \(words[1])\n")
      }
      return .success
    } catch {
      StandardStreams.error("error: \(error.message)\n")
      return .failure
    }
  }
}
