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
    UserFolders.state().map { $0 + "/history" }
  }
}
