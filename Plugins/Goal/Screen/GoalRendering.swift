import WorkbenchCore

/// The terminal text of a goal frame.
enum GoalRendering {
  static func text(_ frame: FrameValue) -> String {
    var lines: [String] = []
    let progress = frame["progress"]?.stringValue ?? ""
    let finished = frame["finished"]?.boolValue == true ? " · finished" : ""
    lines.append("shared goal: \(progress) books\(finished)")
    if let draft = frame["draft"], case .object = draft {
      lines.append(
        "draft (this window only, not saved): \(draft["progress"]?.stringValue ?? "") books · `save` or `discard`")
    }
    lines.append(
      frame["canComplete"]?.boolValue == true ? "[complete] one more book" : "[complete] (nothing left to complete)")
    if let message = frame["message"]?.stringValue { lines.append("! " + message) }
    return lines.joined(separator: "\n")
  }
}
