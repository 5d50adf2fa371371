import WorkbenchModuleAPI

/// The terminal text of a catalog frame, derived from the frame alone.
enum CatalogRendering {
  static func text(_ frame: CatalogFrame) -> String {
    let total = frame.total
    var summary =
      frame.query.isEmpty
      ? (total == 1 ? "the only book" : "all \(total) books")
      : "\(frame.matches) of \(total) \(total == 1 ? "book matches" : "books match") \"\(frame.query)\""
    if frame.onlySelected { summary += " · only selected" }
    var lines = [summary]
    let rows = frame.rows
    let firstRow = frame.viewport.firstRow ?? 1
    if rows.isEmpty {
      lines.append(
        frame.onlySelected && frame.selected == nil
          ? "  (only selected is on, and nothing is selected)" : "  (no books)")
    } else if firstRow > 1 {
      lines.append("  ↑ \(firstRow - 1) more")
    }
    let before = firstRow > 1 ? firstRow - 1 : 0
    let width = String(rows.map(\.id).max() ?? 0).count
    for row in rows {
      let marker = row.id == frame.selected ? "▸" : " "
      let number = String(row.id)
      let padding = String(repeating: " ", count: max(0, width - number.count))
      lines.append("\(marker) \(padding)\(number)  \(row.title)")
    }
    // The rows below the viewport; a number the frame holds never traps here.
    let shownEnd = before.addingReportingOverflow(rows.count)
    let (below, overflow) = frame.matches.subtractingReportingOverflow(shownEnd.partialValue)
    if !rows.isEmpty && !shownEnd.overflow && !overflow && below > 0 { lines.append("  ↓ \(below) more") }
    if let detail = frame.detail {
      let hidden = detail.filteredOut ? " (filtered out of the list)" : ""
      lines.append("detail: #\(detail.id) \(detail.title) · book \(detail.position) of \(total)\(hidden)")
    }
    return lines.joined(separator: "\n")
  }
}
