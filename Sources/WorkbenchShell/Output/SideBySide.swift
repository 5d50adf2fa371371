/// Lays blocks of text out in columns, for `show A B`.
enum SideBySide {
  /// The blocks in columns; with `width` (a terminal's), each column is cut to its share so a
  /// line never wraps: a cut line ends with `…`.
  static func join(_ blocks: [String], gap: String = "  │  ", width: Int? = nil) -> String {
    guard blocks.count > 1 else { return blocks.first ?? "" }
    var columns = blocks.map { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    var widths = columns.map { lines in lines.map(visibleWidth).max() ?? 0 }
    if let width {
      let available = max(columns.count * 8, width - visibleWidth(gap) * (columns.count - 1))
      if widths.reduce(0, +) > available {
        // Narrow columns keep their width; the rest share what is left equally.
        var shares = [Int](repeating: 0, count: columns.count)
        var left = available
        var open = Array(columns.indices)
        while !open.isEmpty {
          let share = left / open.count
          let fitting = open.filter { widths[$0] <= share }
          if fitting.isEmpty {
            for index in open { shares[index] = share }
            break
          }
          for index in fitting {
            shares[index] = widths[index]
            left -= widths[index]
          }
          open.removeAll { fitting.contains($0) }
        }
        for index in columns.indices where widths[index] > shares[index] {
          columns[index] = columns[index].map { truncate($0, to: shares[index]) }
          widths[index] = shares[index]
        }
      }
    }
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

  /// `text` cut to `limit` characters on screen, ending with `…` when cut; colour sequences are
  /// kept whole, and reset after a cut.
  static func truncate(_ text: String, to limit: Int) -> String {
    guard visibleWidth(text) > limit else { return text }
    var result = ""
    var width = 0
    var inEscape = false
    var coloured = false
    for scalar in text.unicodeScalars {
      if inEscape {
        result.unicodeScalars.append(scalar)
        if scalar == "m" { inEscape = false }
        continue
      }
      if scalar == "\u{1B}" {
        inEscape = true
        coloured = true
        result.unicodeScalars.append(scalar)
        continue
      }
      let counts = scalar.properties.generalCategory != .nonspacingMark
      if counts && width == limit - 1 { break }
      result.unicodeScalars.append(scalar)
      if counts { width += 1 }
    }
    return result + "…" + (coloured ? "\u{1B}[0m" : "")
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
