import WorkbenchModuleAPI

/// The terminal text of an editor frame.
enum EditorRendering {
  static func text(_ frame: EditorFrame) -> String {
    let state = frame.dirty ? "unsaved draft based on revision \(frame.baseRevision ?? 0)" : "saved"
    var lines = ["\(frame.title)  (\(state))"]
    if let conflict = frame.conflict {
      lines.append(
        "! conflict: the document moved to revision \(conflict.current); "
          + "`resolve diff`, `resolve keep` (save yours over it) or `resolve take` (drop yours)")
    }
    if frame.lines.isEmpty { lines.append("  (no lines)") }
    let width = String(frame.lines.count).count
    for line in frame.lines {
      let number = String(line.n)
      lines.append(String(repeating: " ", count: max(0, width - number.count)) + number + "  " + line.text)
    }
    return lines.joined(separator: "\n")
  }
}
