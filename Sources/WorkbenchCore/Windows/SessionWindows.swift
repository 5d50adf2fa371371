import WorkbenchModuleAPI

/// The windows of one session: their order, numbers, names and focus. This is the host's
/// window half; `Host` composes it with the documents and the command router, and builds each
/// window's content from the registry before handing it here.
@MainActor
final class SessionWindows {
  /// Open windows in the order they were opened.
  private(set) var all: [Window] = []
  /// The window commands run in unless they name another.
  private(set) var focusedID: WindowID?
  /// The number the next window gets.
  var nextNumber = 1
  /// Numbers kept for windows that are not open here (dormant, of a module not loaded).
  var reservedNumbers: Set<Int> = []

  /// The number for a new window: the next one, or, when that is taken (the numbers came from a
  /// workspace row and ran up to `Int.max`), the smallest positive number no window has.
  private func takeNumber() -> Int {
    var number = nextNumber
    let taken = { (candidate: Int) in
      self.reservedNumbers.contains(candidate) || self.all.contains { $0.id.number == candidate }
    }
    if number < 1 || taken(number) {
      number = 1
      while taken(number) { number += 1 }
    }
    nextNumber = max(nextNumber, OutsideNumbers.saturatingSuccessor(of: number))
    return number
  }

  /// The window with the given number.
  func window(_ id: WindowID) -> Window? {
    all.first { $0.id == id }
  }

  /// The window a user named, by name or number (`left`, `2`, with or without `@`).
  func window(named reference: String) -> Window? {
    let reference = CommandToken.bareWindowReference(reference)
    if let byName = all.first(where: { $0.name == reference }) { return byName }
    if let number = Int(reference) { return all.first { $0.id.number == number } }
    return nil
  }

  /// Every way a window can be named: names, then numbers.
  var labels: [String] {
    all.compactMap(\.name) + all.map { String($0.id.number) }
  }

  /// Checks a name for a new window: it starts with a letter, holds letters, digits, - and _,
  /// and no open window has it.
  func validateName(_ name: String) throws(CommandError) {
    guard let first = name.first, first.isLetter,
      name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    else {
      throw CommandError(
        "window name '\(name)' must start with a letter and hold only letters, digits, - and _")
    }
    guard window(named: name) == nil else {
      throw CommandError("a window named '\(name)' is already open; pick another name")
    }
  }

  /// Opens a window with the next number and focuses it.
  func open(screen: ScreenKind, document: String, name: String?, content: any WindowContent) -> Window {
    let window = Window(
      id: WindowID(takeNumber()), name: name, screen: screen, documentName: document, content: content)
    all.append(window)
    focusedID = window.id
    return window
  }

  /// Puts back a window from a session record, with its own number.
  func restore(_ window: Window) {
    all.append(window)
    nextNumber = max(nextNumber, OutsideNumbers.saturatingSuccessor(of: window.id.number))
  }

  /// After restoring: the next number at least `next`, and the focus on `focus` if it is open
  /// (else on the last window).
  func finishRestoring(nextNumber next: Int, focus: WindowID?) {
    nextNumber = max(nextNumber, next)
    focusedID = focus.flatMap { window($0)?.id } ?? all.last?.id
  }

  /// Closes a window; focus moves to the window opened before it, or the last one.
  func close(_ id: WindowID) {
    window(id)?.content.windowClosed()
    drop(id)
  }

  /// Puts `window` in the place of the open window with its number (its content made again).
  func replace(_ window: Window) {
    guard let index = all.firstIndex(where: { $0.id == window.id }) else { return }
    all[index] = window
  }

  /// Takes a window out of the list whose content is already closed.
  func drop(_ id: WindowID) {
    guard let index = all.firstIndex(where: { $0.id == id }) else { return }
    all.remove(at: index)
    if focusedID == id { focusedID = all.isEmpty ? nil : all[max(0, index - 1)].id }
  }

  /// Focuses a window.
  func focus(_ id: WindowID) {
    if window(id) != nil { focusedID = id }
  }
}

extension Host {
  /// Every open window's frame, by label: what a step left (traces, recordings, time travel).
  public var framesByLabel: [String: FrameValue] {
    var result: [String: FrameValue] = [:]
    for window in windows { result[window.label] = window.frame }
    return result
  }
}
