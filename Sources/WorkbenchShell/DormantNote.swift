import WorkbenchCore
import WorkbenchModuleAPI

/// The note a shell gives once when its workspace holds documents or windows of modules it did
/// not load: the session keeps them as they are; saying so, and how to load their module, is
/// the shell's.
@MainActor
enum DormantNote {
  /// What a session of a workspace that holds documents or windows of modules not loaded says
  /// about them, once: which they are, whose they are (when the workspace saw the module) and
  /// how to load it; `nil` when there are none.
  static func text(for host: Host) -> String? {
    guard !host.dormantDocuments.isEmpty || !host.dormantWindows.isEmpty else { return nil }
    var parts: [String] = []
    if !host.dormantDocuments.isEmpty {
      let names = host.dormantDocuments.map { "'\($0.name)' (\($0.kind))" }
      parts.append("document\(names.count == 1 ? "" : "s") \(names.joined(separator: ", "))")
    }
    if !host.dormantWindows.isEmpty {
      let names = host.dormantWindows.map { "\($0.name ?? String($0.number)) (\($0.screen))" }
      parts.append("window\(names.count == 1 ? "" : "s") \(names.joined(separator: ", "))")
    }
    let owners = Set(
      host.dormantDocuments.compactMap { host.knownModules.owner(ofKind: $0.kind) }.map(\.name)
        + host.dormantWindows.compactMap { host.knownModules.owner(ofScreen: $0.screen) }.map(\.name))
    let loading = owners.sorted().compactMap { name in host.knownModules.first { $0.name == name } }
      .map { "\($0.name): \($0.howToLoad)" }
    let one = host.dormantDocuments.count + host.dormantWindows.count == 1
    return parts.joined(separator: " and ")
      + (one
        ? " belongs to a module that is not loaded; it is kept as it is"
        : " belong to a module that is not loaded; they are kept as they are")
      + (host.dormantDocuments.isEmpty
        ? ""
        : one
          ? ", `documents` lists it and `documents remove NAME` removes it"
          : ", `documents` lists them and `documents remove NAME` removes one")
      + (loading.isEmpty
        ? " (load the module with -m PATH, or `workbench modules add PATH` for every start)"
        : " (" + loading.joined(separator: "; ") + ")")
  }
}
