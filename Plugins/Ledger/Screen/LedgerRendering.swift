import WorkbenchModuleAPI

/// Terminal text for a feed frame.
enum LedgerRendering {
  static func text(_ frame: LedgerFrame) -> String {
    var lines = ["feed · \(frame.state) · session \(frame.session) · balance \(frame.balance)"]
    if !frame.query.isEmpty { lines.append("search: \(frame.query)") }
    switch frame.state {
    case "loading": lines.append("  loading...")
    case "empty": lines.append("  no transactions")
    case "failed": lines.append("  could not load: \(frame.message ?? "") · `retry`")
    default: break
    }
    for row in frame.rows { lines.append("  \(row.id)  \(row.counterparty)  \(row.amount)  \(row.memo)") }
    // More matched than the window shows: said, as the catalog says it.
    if frame.count > frame.rows.count { lines.append("  ↓ \(frame.count - frame.rows.count) more") }
    if let detail = frame.detail {
      lines.append("detail: #\(detail.id) \(detail.counterparty) \(detail.amount) (\(frame.link))")
    }
    if let dispute = frame.dispute {
      lines.append("dispute: \(dispute.step)" + (dispute.reason.map { " · \($0)" } ?? ""))
    }
    return lines.joined(separator: "\n")
  }
}
