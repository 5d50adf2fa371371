import WorkbenchModuleAPI

/// What a home window needs: the rooms, and a scope per room.
@MainActor
public struct HomeScope {
  package let status: Connection<String>
  package let roomIDs: Connection<[String]>
  package let roomScope: ConfiguredConnection<RoomScope, String>
}

/// What a room window needs: its name and lights, a scope per light, and an action that looks
/// for new lights.
@MainActor
public struct RoomScope {
  package let exists: Connection<Bool>
  package let name: Connection<String>
  package let lightIDs: Connection<[Int]>
  package let isDetecting: Connection<Bool>
  package let detectLights: Connection<ScopeAction>
  package let lightScope: ConfiguredConnection<LightScope, Int>
}

/// One light: a name, a switch and a brightness, both writable.
@MainActor
public struct LightScope {
  package let exists: Connection<Bool>
  package let name: Connection<String>
  package let isOn: WritableConnection<Bool>
  package let brightness: WritableConnection<Int>
}

/// An action a scope offers (detect lights): a closure that captures what it needs, so the
/// window calling it supplies nothing.
public struct ScopeAction: CustomStringConvertible {
  let perform: @MainActor () throws -> Void
  public nonisolated var description: String { "action" }

  /// Runs the action.
  @MainActor public func callAsFunction() throws(CommandError) {
    do {
      try perform()
    } catch let error as CommandError {
      throw error
    } catch {
      throw CommandError(String(describing: error))
    }
  }
}
