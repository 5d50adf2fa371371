import WorkbenchCore

/// The terminal text of an editor frame.
enum EditorRendering {
  static func text(_ frame: FrameValue) -> String {
    let title = frame["title"]?.stringValue ?? ""
    var state = "saved"
    if frame["dirty"]?.boolValue == true {
      state = "unsaved draft based on revision \(frame["baseRevision"]?.integerValue ?? 0)"
    }
    var lines = ["\(title)  (\(state))"]
    if let conflict = frame["conflict"], case .object = conflict {
      lines.append(
        "! conflict: the document moved to revision \(conflict["current"]?.integerValue ?? 0); "
          + "`resolve diff`, `resolve keep` (save yours over it) or `resolve take` (drop yours)")
    }
    let body = frame["lines"]?.elements ?? []
    if body.isEmpty { lines.append("  (no lines)") }
    let width = String(body.count).count
    for line in body {
      let number = String(line["n"]?.integerValue ?? 0)
      lines.append(
        String(repeating: " ", count: width - number.count) + number + "  " + (line["text"]?.stringValue ?? ""))
    }
    return lines.joined(separator: "\n")
  }
}
