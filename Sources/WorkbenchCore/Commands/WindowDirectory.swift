import WorkbenchModuleAPI

/// One open window as a directory lists it: what resolving a command needs to know of it.
public struct DirectoryWindow: Equatable, Sendable {
  /// Its number (`@2`).
  public let id: WindowID
  /// Its name, if it has one (`@left`).
  public let name: String?
  /// The screen it shows.
  public let screen: String
  /// The session's window itself, when the directory is a live session's (so a command found
  /// in it runs there without a second lookup); `nil` for a planned window.
  public let live: Window?

  /// A window numbered `id`, named `name`, showing `screen`; `live` when it is open in a session.
  public init(id: WindowID, name: String?, screen: String, live: Window? = nil) {
    self.id = id
    self.name = name
    self.screen = screen
    self.live = live
  }

  public static func == (lhs: DirectoryWindow, rhs: DirectoryWindow) -> Bool {
    lhs.id == rhs.id && lhs.name == rhs.name && lhs.screen == rhs.screen && lhs.live === rhs.live
  }

  /// The name if it has one, otherwise the number.
  public var label: String { name ?? String(id.number) }
}

/// The windows (and what else a command's arguments name) a line is resolved against.
///
/// There are two: a live session's windows (`Host`), and the windows a scenario will have open
/// at a step, as the loader follows the steps before anything runs. `CommandResolver` reads
/// either the same way, so a step the loader accepts resolves the same way when it runs.
@MainActor
public protocol WindowDirectory {
  /// The open windows, in the order they were opened.
  var openWindows: [DirectoryWindow] { get }
  /// The window a command runs in unless it names one (`nil`: none, or a host step).
  var focusedWindow: DirectoryWindow? { get }
  /// The window `reference` names: by name, else by number (with or without `@`).
  func findWindow(named reference: String) -> DirectoryWindow?
  /// Whether a document by this name exists; `nil` when this directory cannot know (a scenario
  /// adds documents as it runs).
  func hasDocument(named name: String) -> Bool?
  /// The documents it knows, for suggestions and completion.
  var knownDocumentNames: [String] { get }
  /// The kind of a document it knows.
  func kindOfDocument(named name: String) -> String?
  /// The screen model of a window, when it is live: ids a command names are checked against it.
  func model(of window: WindowID) -> AnyObject?
  /// How this directory says that no open window answers to `reference`.
  func missingWindowMessage(_ reference: String) -> String
  /// Where a command was typed, for a refusal (`window left shows editor`).
  func place(of window: DirectoryWindow?) -> String
  /// What a refusal of an unknown command adds (`(type help for the list)` in a shell).
  var unknownCommandHint: String { get }
  /// What a refusal of an unknown screen adds: the module it belongs to, when the workspace
  /// has seen it, and how to load it.
  func hint(forScreen screen: String) -> String
}

extension WindowDirectory {
  /// The window `reference` names: by name, else by number (with or without `@`).
  public func findWindow(named reference: String) -> DirectoryWindow? {
    let reference = CommandToken.bareWindowReference(reference)
    let windows = openWindows
    if let byName = windows.first(where: { $0.name == reference }) { return byName }
    if let number = Int(reference) { return windows.first { $0.id.number == number } }
    return nil
  }

  /// Every way an open window can be named: names, then numbers.
  public var windowLabels: [String] {
    let windows = openWindows
    return windows.compactMap(\.name) + windows.map { String($0.id.number) }
  }
}
