import WorkbenchModuleAPI

/// The windows a script will have open at a point, worked out before anything runs: the
/// scenario loader follows each step's window changes (as the commands' specs declare them)
/// through one of these, so a later step naming a window that will not exist is caught with
/// its place. It is the checking twin of a session's live windows: both are read by
/// `CommandResolver` as a `WindowDirectory`.
public struct PlannedWindows {
  /// The windows open at this point, in the order opened.
  public private(set) var openWindows: [DirectoryWindow] = []
  /// The highest number given so far; the next window gets the one after it.
  public private(set) var highestNumber = 0
  /// The window a step runs in (`WINDOW:` of a step); `nil` for a host step.
  public var current: DirectoryWindow?
  /// The modules the workspace has seen, for saying whose an unknown screen is: asked only when
  /// a screen is unknown (reading them costs a workspace read).
  public var knownModules: () -> [KnownModule] = { [] }

  /// No windows yet.
  public init() {}

  /// Opens a window showing `screen`, named `name` (or known by its number), numbered
  /// `number` or the next number.
  public mutating func open(_ name: String?, screen: String, number: Int? = nil) {
    let assigned = number ?? OutsideNumbers.saturatingSuccessor(of: highestNumber)
    highestNumber = max(highestNumber, assigned)
    openWindows.append(DirectoryWindow(id: WindowID(assigned), name: name, screen: screen))
  }

  /// Makes `number` the number the next window gets (it must be above every number given).
  public mutating func numberNext(_ number: Int) {
    highestNumber = max(highestNumber, number - 1)
  }

  /// Closes the window numbered `id`.
  public mutating func close(_ id: WindowID) {
    openWindows.removeAll { $0.id == id }
  }

  /// Carries out a window change a command will make.
  public mutating func apply(_ change: WindowChange) {
    switch change {
    case .opens(let screen, let name): open(name, screen: screen)
    case .closes(let id): close(id)
    }
  }

  /// The labels of the open windows, in order: what a message lists.
  public var labels: [String] { openWindows.map(\.label) }
}

extension PlannedWindows: WindowDirectory {
  public var focusedWindow: DirectoryWindow? { current }
  public func hasDocument(named name: String) -> Bool? { nil }
  public var knownDocumentNames: [String] { [] }
  public func kindOfDocument(named name: String) -> String? { nil }
  public func model(of window: WindowID) -> AnyObject? { nil }

  public func missingWindowMessage(_ reference: String) -> String {
    let open = openWindows.isEmpty ? "none" : labels.joined(separator: ", ")
    return "no window '\(reference)' is open here" + Suggestions.didYouMean(reference, in: labels)
      + " (open: \(open))"
  }

  public func place(of window: DirectoryWindow?) -> String {
    window.map { "window \($0.label) shows \($0.screen)" } ?? "this is a host step (`do:`)"
  }

  public var unknownCommandHint: String { "" }
  public func hint(forScreen screen: String) -> String { knownModules().hint(forScreen: screen) }
}
