import WorkbenchCore

/// The terminal text of a catalog frame, derived from the frame alone.
enum CatalogRendering {
  static func text(_ frame: FrameValue) -> String {
    let query = frame["query"]?.stringValue ?? ""
    let matches = frame["matches"]?.integerValue ?? 0
    let total = frame["total"]?.integerValue ?? 0
    let selected = frame["selected"]?.integerValue
    let onlySelected = frame["onlySelected"]?.boolValue ?? false
    var summary =
      query.isEmpty
      ? (total == 1 ? "the only book" : "all \(total) books")
      : "\(matches) of \(total) \(total == 1 ? "book matches" : "books match") \"\(query)\""
    if onlySelected { summary += " · only selected" }
    var lines = [summary]
    let rows = frame["rows"]?.elements ?? []
    let firstRow = frame["viewport"]?["firstRow"]?.integerValue ?? 1
    if rows.isEmpty {
      lines.append(
        onlySelected && selected == nil ? "  (only selected is on, and nothing is selected)" : "  (no books)")
    } else if firstRow > 1 {
      lines.append("  ↑ \(firstRow - 1) more")
    }
    let width = String(rows.compactMap { $0["id"]?.integerValue }.max() ?? 0).count
    for row in rows {
      let id = row["id"]?.integerValue ?? 0
      let marker = id == selected ? "▸" : " "
      let number = String(id)
      let padding = String(repeating: " ", count: max(0, width - number.count))
      lines.append("\(marker) \(padding)\(number)  \(row["title"]?.stringValue ?? "")")
    }
    let below = matches - (firstRow - 1) - rows.count
    if !rows.isEmpty && below > 0 { lines.append("  ↓ \(below) more") }
    if let detail = frame["detail"], case .object = detail {
      let hidden = detail["filteredOut"]?.boolValue == true ? " (filtered out of the list)" : ""
      lines.append(
        "detail: #\(detail["id"]?.integerValue ?? 0) \(detail["title"]?.stringValue ?? "")"
          + " · book \(detail["position"]?.integerValue ?? 0) of \(total)\(hidden)")
    }
    return lines.joined(separator: "\n")
  }
}
