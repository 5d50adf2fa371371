#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A case-folded copy of every title in one contiguous buffer, and the position of each id.
///
/// Searching scans the buffer for the query's rarest byte with `memchr` (vectorised in the C
/// library) and compares the query only where that byte occurs, instead of comparing
/// `String`s one by one. A search that narrows a previous one (the next keystroke) scans only
/// the previous matches.
final class TitleIndex: Sendable {
  /// Every folded title, each followed by a newline (which no folded query contains).
  let folded: [UInt8]
  /// Where each title starts in `folded`, plus the end of the buffer.
  let starts: [Int]
  /// The position of each id in the document.
  let positions: [Int: Int]
  /// Tells this index from every other, so a document can say which one it was made from
  /// (see `CatalogDocument.edit(from:)`). Random, not counted: nothing process-wide is kept.
  let token = UInt64.random(in: .min ... .max)

  private init(folded: [UInt8], starts: [Int], positions: [Int: Int]) {
    self.folded = folded
    self.starts = starts
    self.positions = positions
  }

  /// The index with the title at `position` replaced: the buffer spliced and the starts after
  /// it shifted, instead of folding every title again.
  ///
  /// - Complexity: O(n) copies of plain memory, no per-title work.
  func renaming(at position: Int, to title: String) -> TitleIndex {
    var replacement: [UInt8] = []
    TitleIndex.appendFolded(title, to: &replacement)
    replacement.append(0x0A)
    let range = starts[position]..<starts[position + 1]
    var folded = self.folded
    folded.replaceSubrange(range, with: replacement)
    var starts = self.starts
    let shift = replacement.count - range.count
    if shift != 0 {
      starts.withUnsafeMutableBufferPointer { buffer in
        for index in (position + 1)..<buffer.count { buffer[index] += shift }
      }
    }
    return TitleIndex(folded: folded, starts: starts, positions: positions)
  }

  init(books: [CatalogBook], positions: [Int: Int]) {
    var folded: [UInt8] = []
    var starts: [Int] = []
    starts.reserveCapacity(books.count + 1)
    folded.reserveCapacity(books.count * 24)
    for book in books {
      starts.append(folded.count)
      TitleIndex.appendFolded(book.title, to: &folded)
      folded.append(0x0A)
    }
    starts.append(folded.count)
    self.folded = folded
    self.starts = starts
    self.positions = positions
  }

  /// Appends the folded title: ASCII is lowered byte by byte (most titles, and far faster than
  /// building a lowercased `String`); anything else goes through `fold`.
  static func appendFolded(_ title: String, to folded: inout [UInt8]) {
    var title = title
    let ascii = title.withUTF8 { bytes -> Bool in
      guard !bytes.contains(where: { $0 >= 0x80 }) else { return false }
      for byte in bytes {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): folded.append(byte + 32)
        case 0x0A: folded.append(0x20)
        default: folded.append(byte)
        }
      }
      return true
    }
    if !ascii { folded.append(contentsOf: fold(title).utf8) }
  }

  /// The form titles and queries are compared in: lowercased with Unicode's rules, so
  /// "MISÉRABLES" finds "Les Misérables". Line breaks become spaces.
  static func fold(_ text: String) -> String {
    let lowered = text.lowercased()
    guard lowered.utf8.contains(0x0A) else { return lowered }
    return String(lowered.map { $0 == "\n" ? " " : $0 })
  }

  /// The positions of the books whose folded title contains `query` (already folded).
  ///
  /// - Parameter candidates: when given, only these positions (ascending) are searched.
  /// - Complexity: O(total title length) for a full search; O(length of the candidates'
  ///   titles) for a narrowed one.
  func positions(matching query: [UInt8], among candidates: [Int]? = nil) -> [Int] {
    guard !query.isEmpty else { return candidates ?? Array(0..<(starts.count - 1)) }
    return folded.withUnsafeBytes { buffer -> [Int] in
      query.withUnsafeBytes { needle -> [Int] in
        let finder = SubstringFinder(needle: needle)
        var result: [Int] = []
        if let candidates {
          for position in candidates {
            let title = UnsafeRawBufferPointer(rebasing: buffer[starts[position]..<starts[position + 1]])
            if finder.firstOffset(in: title, from: 0) != nil { result.append(position) }
          }
          return result
        }
        var offset = 0
        var position = 0
        while let hit = finder.firstOffset(in: buffer, from: offset) {
          // Hits come in order, so the title holding one is found by walking forward, or by a
          // binary search when the walk would be long.
          if hit - offset > 4096 {
            position = title(containing: hit)
          } else {
            while starts[position + 1] <= hit { position += 1 }
          }
          result.append(position)
          offset = starts[position + 1]
        }
        return result
      }
    }
  }

  /// The position of the title that holds byte `offset` of the buffer.
  private func title(containing offset: Int) -> Int {
    var low = 0
    var high = starts.count - 1
    while low + 1 < high {
      let middle = (low + high) / 2
      if starts[middle] <= offset { low = middle } else { high = middle }
    }
    return low
  }
}

/// Finds a byte string inside a buffer: `memchr` jumps to each occurrence of the needle's
/// rarest byte, and the needle is compared only there.
struct SubstringFinder {
  let needle: UnsafeRawBufferPointer
  let pivot: Int
  let pivotByte: Int32

  init(needle: UnsafeRawBufferPointer) {
    self.needle = needle
    var pivot = 0
    for index in needle.indices where Self.commonness(needle[index]) < Self.commonness(needle[pivot]) {
      pivot = index
    }
    self.pivot = pivot
    self.pivotByte = Int32(needle[pivot])
  }

  /// The offset of the first occurrence at or after `start`, if there is one.
  func firstOffset(in haystack: UnsafeRawBufferPointer, from start: Int) -> Int? {
    guard let base = haystack.baseAddress, let needleBase = needle.baseAddress,
      haystack.count - start >= needle.count
    else { return nil }
    var cursor = start + pivot
    let last = haystack.count - needle.count + pivot  // the last place the pivot can be
    while cursor <= last {
      guard let found = memchr(base + cursor, pivotByte, last - cursor + 1) else { return nil }
      let at = base.distance(to: UnsafeRawPointer(found))
      let candidate = at - pivot
      if memcmp(base + candidate, needleBase, needle.count) == 0 { return candidate }
      cursor = at + 1
    }
    return nil
  }

  /// A rough rank of how often a byte occurs in titles: lower is rarer.
  static func commonness(_ byte: UInt8) -> Int {
    switch byte {
    case 0x20: return 40
    case UInt8(ascii: "a")...UInt8(ascii: "z"):
      let order = Array("zqxjkvbpygfwmucldrhsnioate".utf8)
      return 10 + (order.firstIndex(of: byte) ?? 0)
    case 0x80...0xBF: return 30  // UTF-8 continuation bytes
    case 0xC0...0xFF: return 25  // UTF-8 lead bytes
    default: return 5
    }
  }
}
