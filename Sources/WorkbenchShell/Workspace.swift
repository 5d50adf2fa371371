import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchSession
import WorkbenchStore

/// Opening the workspace the shell's commands work on.
@MainActor
enum Workspace {
  /// Opens the workspace store at `path` (the default one when `nil`).
  static func openStore(path: String?) throws(StoreError) -> WorkspaceStore {
    try WorkspaceStore(path: path ?? WorkspaceStore.defaultPath() ?? ":memory:")
  }

  /// A session on the workspace at `path` (the default one when `nil`), with `modules`.
  ///
  /// Sample documents a module ships are added when the workspace lacks them (on first launch,
  /// or when a new module arrives).
  static func session(
    path: String?, modules: [any FeatureModule], environment: ScreenEnvironment, restoringWindows: Bool
  ) throws(CommandError) -> WorkbenchSession {
    let store: WorkspaceStore
    do {
      store = try openStore(path: path)
    } catch {
      throw CommandError(error.message)
    }
    return try session(store: store, modules: modules, environment: environment, restoringWindows: restoringWindows)
  }

  /// A session on an open workspace store, or with none yet (`nil`: an in-memory workspace the
  /// session makes when it needs one) on the real clock.
  static func session(
    store: WorkspaceStore?, modules: [any FeatureModule], environment: ScreenEnvironment, restoringWindows: Bool
  ) throws(CommandError) -> WorkbenchSession {
    let registry: ModuleRegistry
    do {
      registry = try ShellCommands.registry(modules: modules)
    } catch {
      throw CommandError("a module failed to register: \(error.message)")
    }
    guard let store else { return WorkbenchSession(registry: registry, environment: environment, clock: .real) }
    do {
      return try WorkbenchSession(
        registry: registry, environment: environment, store: store, restoringWindows: restoringWindows)
    } catch let error as StoreError {
      throw CommandError(error.message)
    } catch let error as CommandError {
      throw error
    } catch {
      throw CommandError(String(describing: error))
    }
  }
}
