/// How modules running in their own processes are started again after they stop: each
/// registers a restart action under its name, and the host's `restart-module` command runs it.
@MainActor
public enum ModuleRestarts {
  /// Restart actions by module name.
  public static var actions: [String: @MainActor () throws -> Void] = [:]
}
