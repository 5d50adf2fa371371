import WorkbenchCore
import WorkbenchStore

/// A host on a workspace store: documents come from the store and every commit goes to it;
/// the session is restored from it and saved to it.
@MainActor
struct Workspace {
  let store: WorkspaceStore
  let host: Host

  /// Opens the workspace at `path` (the default one when `nil`) and builds a host on it.
  ///
  /// Sample documents a module ships are added when the workspace lacks them (on first launch,
  /// or when a new module arrives).
  static func open(
    path: String?, modules: [any FeatureModule], environment: ScreenEnvironment, restoringWindows: Bool
  ) throws(CommandError) -> Workspace {
    let location = path ?? WorkspaceStore.defaultPath() ?? ":memory:"
    do {
      let store = try WorkspaceStore(path: location)
      return try restore(from: store, modules: modules, environment: environment, restoringWindows: restoringWindows)
    } catch let error as StoreError {
      throw CommandError(error.message)
    } catch let error as CommandError {
      throw error
    } catch {
      throw CommandError(String(describing: error))
    }
  }

  /// Opens the workspace store at `path` (the default one when `nil`).
  static func openStore(path: String?) throws(StoreError) -> WorkspaceStore {
    try WorkspaceStore(path: path ?? WorkspaceStore.defaultPath() ?? ":memory:")
  }

  /// A host built from what `store` holds.
  static func restore(
    from store: WorkspaceStore, modules: [any FeatureModule], environment: ScreenEnvironment, restoringWindows: Bool
  ) throws -> Workspace {
    let record = try store.loadSession(includingWindows: restoringWindows)
    let host: Host
    do {
      host = try Host(modules: modules, environment: environment, restoring: record, addingMissingSamples: true)
    } catch {
      throw CommandError("a module failed to register: \(error.message)")
    }
    try store.addMissing(
      try host.sessionRecord().documents.filter { document in
        !record.documents.contains { $0.name == document.name }
      })
    host.persistence = store
    return Workspace(store: store, host: host)
  }
}
