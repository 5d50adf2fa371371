import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Where the shell keeps its history: `$XDG_STATE_HOME/workbench/history`, falling back to
/// `~/.local/state/workbench/history`.
enum HistoryFile {
  static func path() -> String? {
    let base: String
    if let state = environment("XDG_STATE_HOME"), state.hasPrefix("/") {
      base = state
    } else if let home = environment("HOME"), !home.isEmpty {
      base = home + "/.local/state"
    } else {
      return nil
    }
    let folder = base + "/workbench"
    guard FileSystem.makeFolders(folder, mode: 0o700) else { return nil }
    return folder + "/history"
  }

  static func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let text = String(cString: value)
    return text.isEmpty ? nil : text
  }
}
