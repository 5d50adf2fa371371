import WorkbenchCore
import WorkbenchModuleAPI

extension Host {
  /// The frame of the window with this name or number (`.null` when there is none).
  @MainActor public func frame(of window: String) -> FrameValue {
    self.window(named: window)?.frame ?? .null
  }

  /// The message a line fails with, or `nil` when it runs.
  @MainActor public func failure(_ line: String) -> String? {
    do {
      _ = try run(line: line)
      return nil
    } catch {
      return error.message
    }
  }
}
