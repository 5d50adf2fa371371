import WorkbenchCore

/// What a home window needs: the rooms, and a scope per room.
@MainActor
public struct HomeScope {
  public let status: Connection<String>
  public let roomIDs: Connection<[String]>
  public let roomScope: ConfiguredConnection<RoomScope, String>
}

/// What a room window needs: its name and lights, a scope per light, and an action that looks
/// for new lights.
@MainActor
public struct RoomScope {
  public let exists: Connection<Bool>
  public let name: Connection<String>
  public let lightIDs: Connection<[Int]>
  public let isDetecting: Connection<Bool>
  public let detectLights: Connection<ScopeAction>
  public let lightScope: ConfiguredConnection<LightScope, Int>
}

/// One light: a name, a switch and a brightness, both writable.
@MainActor
public struct LightScope {
  public let exists: Connection<Bool>
  public let name: Connection<String>
  public let isOn: WritableConnection<Bool>
  public let brightness: WritableConnection<Int>
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
