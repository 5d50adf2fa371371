import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchSession
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Text: lines, LSP positions in UTF-16, edits and file URIs.
extension LanguageServer {
  // MARK: Text

  static func lines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// A position from the client: `nil` when it is not there or out of LSP's range (the
  /// request was refused already), or, `clamping`, with each number brought into that range.
  static func position(_ value: FrameValue?, clamping: Bool = false) -> (line: Int, character: Int)? {
    guard var line = value?["line"]?.integerValue, var character = value?["character"]?.integerValue else {
      return nil
    }
    if clamping {
      line = min(max(0, line), largestNumber)
      character = min(max(0, character), largestNumber)
    }
    guard (0...largestNumber).contains(line), (0...largestNumber).contains(character) else { return nil }
    return (line, character)
  }

  /// The part of `line` before `utf16` code units (clamped to the line).
  static func prefix(of line: String, utf16 count: Int) -> Substring {
    let units = line.utf16
    let end = units.index(units.startIndex, offsetBy: min(count, units.count))
    return line[..<(String.Index(end, within: line) ?? line.endIndex)]
  }

  /// The lines with the text between two positions replaced (an incremental change). Positions
  /// past the end are clamped, so a client that is off by one loses nothing but its own edit.
  static func replacing(
    _ lines: [String], from start: (line: Int, character: Int), to end: (line: Int, character: Int), with text: String
  ) -> [String] {
    var lines = lines.isEmpty ? [""] : lines
    let first = min(start.line, lines.count - 1)
    let last = min(max(end.line, first), lines.count - 1)
    let before = prefix(of: lines[first], utf16: first == start.line ? start.character : lines[first].utf16.count)
    let endLine = lines[last]
    let cut = prefix(of: endLine, utf16: last == end.line ? end.character : endLine.utf16.count)
    let after = endLine[cut.endIndex...]
    let replaced = Self.lines(String(before) + text + String(after))
    lines.replaceSubrange(first...last, with: replaced)
    return lines
  }

  /// Why `uri` names no path a file can have, or `nil`: a byte it escapes that a path cannot
  /// hold (NUL ends a path in every system call: `a%00b` would name `a`), or escaped bytes that
  /// are not UTF-8 (they would be read as another name).
  static func pathProblem(of uri: String) -> String? {
    guard let bytes = pathBytes(of: uri) else { return nil }
    if bytes.contains(0) {
      return "the file's URI holds a NUL byte (%00), which no path can hold: open the file by its real name"
    }
    if String(validating: bytes, as: UTF8.self) == nil {
      return "the file's URI escapes bytes that are not UTF-8: workbench names files by UTF-8 paths"
    }
    return nil
  }

  /// A `file://` URI's path (percent escapes decoded); anything else as it is.
  static func path(of uri: String) -> String {
    pathBytes(of: uri).map { String(decoding: $0, as: UTF8.self) } ?? uri
  }

  /// The bytes of a `file://` URI's path, percent escapes decoded; `nil` for another URI.
  private static func pathBytes(of uri: String) -> [UInt8]? {
    guard uri.hasPrefix("file://") else { return nil }
    let raw = Array(uri.utf8.dropFirst("file://".count))
    var bytes: [UInt8] = []
    var index = 0
    while index < raw.count {
      if raw[index] == UInt8(ascii: "%"), index + 2 < raw.count,
        let value = UInt8(String(decoding: raw[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        index += 3
      } else {
        bytes.append(raw[index])
        index += 1
      }
    }
    return bytes
  }
}
