import WorkbenchModuleAPI

/// A session's open windows and documents, as `CommandResolver` reads them.
@MainActor
struct LiveWindows: WindowDirectory {
  /// The host whose windows and documents these are; what is rarely needed (documents of
  /// modules not loaded, the modules a workspace saw) is read only when asked.
  unowned let host: Host
  let windows: SessionWindows
  let documents: SessionDocuments
  /// Documents of modules not loaded: they can be named (to remove one), not opened.
  var dormant: [SessionRecord.Document] { host.dormantDocuments }

  func hint(forScreen screen: String) -> String { host.knownModules.hint(forScreen: screen) }

  var openWindows: [DirectoryWindow] { windows.all.map(\.directoryEntry) }
  var focusedWindow: DirectoryWindow? { windows.focusedID.flatMap { windows.window($0)?.directoryEntry } }
  func findWindow(named reference: String) -> DirectoryWindow? { windows.window(named: reference)?.directoryEntry }
  func hasDocument(named name: String) -> Bool? {
    documents[name] != nil || dormant.contains { $0.name == name }
  }
  var knownDocumentNames: [String] { documents.names + dormant.map(\.name) }
  func kindOfDocument(named name: String) -> String? { documents[name]?.kind }
  func model(of window: WindowID) -> AnyObject? { windows.window(window)?.content.model }

  func missingWindowMessage(_ reference: String) -> String {
    "no window '\(reference)'" + Suggestions.didYouMean(reference, in: windows.labels)
      + (windows.all.isEmpty ? ": no window is open" : "")
  }

  func place(of window: DirectoryWindow?) -> String {
    window.map { "window \($0.label) shows \($0.screen)" } ?? "no window is open"
  }

  var unknownCommandHint: String { " (type `help` for the list)" }
}

extension Window {
  /// The window as a directory lists it.
  var directoryEntry: DirectoryWindow { DirectoryWindow(id: id, name: name, screen: screen.name, live: self) }
}
