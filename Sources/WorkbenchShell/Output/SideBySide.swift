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
      let counts = Self.width(of: scalar)
      if width + counts > limit - 1 { break }
      result.unicodeScalars.append(scalar)
      width += counts
    }
    return result + "…" + (coloured ? "\u{1B}[0m" : "")
  }

  /// The columns a character takes on a terminal: 0 for a mark, a joiner or a variation
  /// selector, 2 for an East Asian wide or fullwidth character and for an emoji shown as one,
  /// else 1 (as `wcwidth` counts, without depending on the locale).
  static func width(of scalar: Unicode.Scalar) -> Int {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if (0xFE00...0xFE0F).contains(scalar.value) { return 0 }
    if scalar.properties.isEmojiPresentation { return 2 }
    let wide: [ClosedRange<UInt32>] = [
      0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
      0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD,
    ]
    return wide.contains { $0.contains(scalar.value) } ? 2 : 1
  }

  /// Columns on screen (a wide character takes two), ignoring ANSI colour sequences.
  static func visibleWidth(_ text: String) -> Int {
    var width = 0
    var inEscape = false
    for scalar in text.unicodeScalars {
      if inEscape {
        if scalar == "m" { inEscape = false }
      } else if scalar == "\u{1B}" {
        inEscape = true
      } else {
        width += Self.width(of: scalar)
      }
    }
    return width
  }
}
