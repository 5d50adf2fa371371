/// Lays blocks of text out in columns, for `show A B`.
enum SideBySide {
  static func join(_ blocks: [String], gap: String = "  │  ") -> String {
    guard blocks.count > 1 else { return blocks.first ?? "" }
    let columns = blocks.map { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    let widths = columns.map { lines in lines.map(visibleWidth).max() ?? 0 }
    let height = columns.map(\.count).max() ?? 0
    var lines: [String] = []
    for row in 0..<height {
      var line = ""
      for (index, column) in columns.enumerated() {
        let cell = row < column.count ? column[row] : ""
        if index > 0 { line += gap }
        line += cell
        if index < columns.count - 1 {
          line += String(repeating: " ", count: max(0, widths[index] - visibleWidth(cell)))
        }
      }
      while line.last == " " { line.removeLast() }
      lines.append(line)
    }
    return lines.joined(separator: "\n")
  }

  /// Characters on screen, ignoring ANSI colour sequences.
  static func visibleWidth(_ text: String) -> Int {
    var width = 0
    var inEscape = false
    for scalar in text.unicodeScalars {
      if inEscape {
        if scalar == "m" { inEscape = false }
      } else if scalar == "\u{1B}" {
        inEscape = true
      } else if scalar.properties.generalCategory != .nonspacingMark {
        width += 1
      }
    }
    return width
  }
}
