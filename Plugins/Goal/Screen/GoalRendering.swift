import WorkbenchModuleAPI

/// The terminal text of a goal frame.
enum GoalRendering {
  static func text(_ frame: GoalFrame) -> String {
    var lines = ["shared goal: \(frame.progress) books\(frame.finished ? " · finished" : "")"]
    if let draft = frame.draft {
      lines.append("draft (this window only, not saved): \(draft.progress) books · `save` or `discard`")
    }
    lines.append(frame.canComplete ? "[complete] one more book" : "[complete] (nothing left to complete)")
    if let message = frame.message { lines.append("! " + message) }
    return lines.joined(separator: "\n")
  }
}
