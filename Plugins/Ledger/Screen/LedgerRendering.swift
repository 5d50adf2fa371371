import WorkbenchCore

/// Terminal text for a feed frame.
enum LedgerRendering {
  static func text(_ frame: FrameValue) -> String {
    var lines = [
      "feed · \(frame["state"]?.stringValue ?? "") · session \(frame["session"]?.stringValue ?? "")"
        + " · balance \(frame["balance"]?.stringValue ?? "")"
    ]
    if let query = frame["query"]?.stringValue, !query.isEmpty { lines.append("search: \(query)") }
    switch frame["state"]?.stringValue {
    case "loading": lines.append("  loading...")
    case "empty": lines.append("  no transactions")
    case "failed": lines.append("  could not load: \(frame["message"]?.stringValue ?? "") · `retry`")
    default: break
    }
    let rows = frame["rows"]?.elements ?? []
    for row in rows {
      lines.append(
        "  \(row["id"]?.integerValue ?? 0)  \(row["counterparty"]?.stringValue ?? "")  \(row["amount"]?.stringValue ?? "")"
          + "  \(row["memo"]?.stringValue ?? "")")
    }
    // More matched than the window shows: said, as the catalog says it.
    if let count = frame["count"]?.integerValue, count > rows.count { lines.append("  ↓ \(count - rows.count) more") }
    if let detail = frame["detail"], case .object = detail {
      lines.append(
        "detail: #\(detail["id"]?.integerValue ?? 0) \(detail["counterparty"]?.stringValue ?? "") "
          + "\(detail["amount"]?.stringValue ?? "") (\(frame["link"]?.stringValue ?? ""))")
    }
    if let dispute = frame["dispute"], case .object = dispute {
      lines.append(
        "dispute: \(dispute["step"]?.stringValue ?? "")" + (dispute["reason"]?.stringValue.map { " · \($0)" } ?? ""))
    }
    return lines.joined(separator: "\n")
  }
}
