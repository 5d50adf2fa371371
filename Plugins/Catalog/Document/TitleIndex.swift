import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A case-folded copy of every title, in chunks of contiguous buffers, and the position of each
/// id.
///
/// Searching scans each chunk's buffer for the query's rarest byte with `memchr` (vectorised in
/// the C library) and compares the query only where that byte occurs, instead of comparing
/// `String`s one by one. A search that narrows a previous one (the next keystroke) scans only
/// the previous matches. The chunks hold the same books as `BookList`'s, so a rename folds one
/// title into a copy of one chunk and shares the rest with the index it came from.
final class TitleIndex: Sendable {
  /// The folded titles of up to `BookList.chunkSize` books.
  final class Chunk: Sendable {
    /// Every folded title, each followed by a newline (which no folded query contains).
    let folded: [UInt8]
    /// Where each title starts in `folded`, plus the end of the buffer.
    let starts: [Int]

    init(folded: [UInt8], starts: [Int]) {
      self.folded = folded
      self.starts = starts
    }

    init<Books: Collection<CatalogBook>>(books: Books) {
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
    }

    /// The chunk with the title at `local` replaced: the buffer spliced and the starts after it
    /// shifted.
    func renaming(at local: Int, to title: String) -> Chunk {
      var replacement: [UInt8] = []
      TitleIndex.appendFolded(title, to: &replacement)
      replacement.append(0x0A)
      let range = starts[local]..<starts[local + 1]
      var folded = self.folded
      folded.replaceSubrange(range, with: replacement)
      var starts = self.starts
      let shift = replacement.count - range.count
      if shift != 0 {
        for index in (local + 1)..<starts.count { starts[index] += shift }
      }
      return Chunk(folded: folded, starts: starts)
    }
  }

  let chunks: [Chunk]
  /// The number of titles.
  let count: Int
  /// The position of each id in the document.
  let positions: [Int: Int]
  /// Tells this index from every other, so a document can say which one it was made from
  /// (see `CatalogDocument.edit(from:)`). Random, not counted: nothing process-wide is kept.
  let token = UInt64.random(in: .min ... .max)
  /// When this index is another's with one title renamed: that index's token and the title's
  /// position. A search over the other index is brought up to date by looking at that one title.
  let renamed: (parent: UInt64, position: Int)?

  private init(chunks: [Chunk], count: Int, positions: [Int: Int], renamed: (parent: UInt64, position: Int)?) {
    self.chunks = chunks
    self.count = count
    self.positions = positions
    self.renamed = renamed
  }

  /// The index with the title at `position` replaced: one chunk spliced, the others shared.
  ///
  /// - Complexity: O(chunk size) copies of plain memory, whatever the number of books.
  func renaming(at position: Int, to title: String) -> TitleIndex {
    var chunks = self.chunks
    let chunk = position / BookList.chunkSize
    chunks[chunk] = chunks[chunk].renaming(at: position % BookList.chunkSize, to: title)
    return TitleIndex(chunks: chunks, count: count, positions: positions, renamed: (token, position))
  }

  /// Every folded title in one buffer, and where each starts (plus the end): a sort compares
  /// them in place.
  func flattened() -> (folded: [UInt8], starts: [Int]) {
    var folded: [UInt8] = []
    folded.reserveCapacity(chunks.reduce(0) { $0 + $1.folded.count })
    var starts: [Int] = []
    starts.reserveCapacity(count + 1)
    for chunk in chunks {
      let offset = folded.count
      for start in chunk.starts.dropLast() { starts.append(offset + start) }
      folded.append(contentsOf: chunk.folded)
    }
    starts.append(folded.count)
    return (folded, starts)
  }

  /// The index of the same titles in the order `permutation` gives (new position to old), whose
  /// ids by old position are `ids`: each folded title copied, none folded again, and the
  /// positions moved in a copy of the table (no key is added, so it never grows).
  func permuted(by permutation: [Int], ids: [Int]) -> TitleIndex {
    let (folded, starts) = flattened()
    let size = BookList.chunkSize
    var chunks: [Chunk] = []
    chunks.reserveCapacity((permutation.count + size - 1) / size)
    var chunkStart = 0
    while chunkStart < permutation.count {
      let chunkEnd = Swift.min(permutation.count, chunkStart + size)
      var bytes: [UInt8] = []
      var offsets: [Int] = []
      offsets.reserveCapacity(chunkEnd - chunkStart + 1)
      for old in permutation[chunkStart..<chunkEnd] {
        offsets.append(bytes.count)
        bytes.append(contentsOf: folded[starts[old]..<starts[old + 1]])
      }
      offsets.append(bytes.count)
      chunks.append(Chunk(folded: bytes, starts: offsets))
      chunkStart = chunkEnd
    }
    var positions = self.positions
    for (position, old) in permutation.enumerated() { positions[ids[old]] = position }
    return TitleIndex(chunks: chunks, count: count, positions: positions, renamed: nil)
  }

  /// The index of `books`. Chunks are folded in parallel, one core each: folding is most of
  /// the work of opening a big catalog.
  init(books: [CatalogBook], positions: [Int: Int]) {
    let size = BookList.chunkSize
    let count = (books.count + size - 1) / size
    // Each iteration writes its own slot of a buffer made beforehand: no two touch the same
    // memory, and nothing is shared but the books they read. (A `Mutex` captured by the
    // iterations read as a race to ThreadSanitizer's Swift access checks, now and then.)
    var built = [Chunk?](repeating: nil, count: count)
    built.withUnsafeMutableBufferPointer { slots in
      let slots = SlotBuffer(slots)
      DispatchQueue.concurrentPerform(iterations: count) { number in
        let start = number * size
        slots.put(Chunk(books: books[start..<Swift.min(books.count, start + size)]), at: number)
      }
    }
    self.chunks = built.compactMap { $0 }
    self.count = books.count
    self.positions = positions
    self.renamed = nil
  }

  /// Appends the folded title. ASCII is lowered byte by byte (far faster than building a
  /// lowercased `String`); each run of non-ASCII characters goes through `lowercased()`. Swift
  /// lowercases scalar by scalar (no context, not even a final sigma), so folding the runs
  /// apart gives what lowercasing the whole title gives.
  static func appendFolded(_ title: String, to folded: inout [UInt8]) {
    var title = title
    title.withUTF8 { bytes in
      var index = 0
      while index < bytes.count {
        let byte = bytes[index]
        guard byte >= 0x80 else {
          switch byte {
          case UInt8(ascii: "A")...UInt8(ascii: "Z"): folded.append(byte + 32)
          case 0x0A: folded.append(0x20)
          default: folded.append(byte)
          }
          index += 1
          continue
        }
        // A run ends at an ASCII byte, which is always a character's first byte.
        var end = index + 1
        while end < bytes.count, bytes[end] >= 0x80 { end += 1 }
        let run = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
        folded.append(contentsOf: run.lowercased().utf8)
        index = end
      }
    }
  }

  /// The form titles and queries are compared in: lowercased with Unicode's rules, so
  /// "MISÉRABLES" finds "Les Misérables". Line breaks become spaces.
  static func fold(_ text: String) -> String {
    var folded: [UInt8] = []
    appendFolded(text, to: &folded)
    return String(decoding: folded, as: UTF8.self)
  }

  /// The positions of the books whose folded title contains `query` (already folded).
  ///
  /// - Parameter candidates: when given, only these positions (ascending) are searched.
  /// - Complexity: O(total title length) for a full search; O(length of the candidates'
  ///   titles) for a narrowed one.
  func positions(matching query: [UInt8], among candidates: [Int]? = nil) -> [Int] {
    guard !query.isEmpty else { return candidates ?? Array(0..<count) }
    return query.withUnsafeBytes { needle -> [Int] in
      let finder = SubstringFinder(needle: needle)
      var result: [Int] = []
      if let candidates {
        for position in candidates {
          let chunk = chunks[position / BookList.chunkSize]
          let local = position % BookList.chunkSize
          let found = chunk.folded.withUnsafeBytes { buffer in
            let title = UnsafeRawBufferPointer(rebasing: buffer[chunk.starts[local]..<chunk.starts[local + 1]])
            return finder.firstOffset(in: title, from: 0) != nil
          }
          if found { result.append(position) }
        }
        return result
      }
      for (number, chunk) in chunks.enumerated() {
        let base = number * BookList.chunkSize
        chunk.folded.withUnsafeBytes { buffer in
          let starts = chunk.starts
          var offset = 0
          var local = 0
          while let hit = finder.firstOffset(in: buffer, from: offset) {
            // Hits come in order, so the title holding one is found by walking forward, or by a
            // binary search when the walk would be long.
            if hit - offset > 4096 {
              local = Self.title(containing: hit, starts: starts)
            } else {
              while starts[local + 1] <= hit { local += 1 }
            }
            result.append(base + local)
            offset = starts[local + 1]
          }
        }
      }
      return result
    }
  }

  /// The title in a chunk that holds byte `offset` of its buffer.
  private static func title(containing offset: Int, starts: [Int]) -> Int {
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

/// Slots that parallel iterations fill, each its own: the buffer outlives them
/// (`concurrentPerform` returns when every iteration has), and no slot is written twice.
private struct SlotBuffer<Element>: @unchecked Sendable {
  let base: UnsafeMutableBufferPointer<Element?>
  init(_ base: UnsafeMutableBufferPointer<Element?>) { self.base = base }
  func put(_ element: Element, at index: Int) { base[index] = element }
}
