/// The books of a catalog in chunks of `chunkSize`: a rename copies one chunk (and the short
/// list of chunks), not a million books. Reads as an ordinary random-access collection.
public struct BookList: RandomAccessCollection, Equatable, Sendable {
  /// Books per chunk; every chunk but the last is full, so a position's chunk is a division.
  public static let chunkSize = 4096

  private var chunks: [[CatalogBook]]
  public let count: Int

  /// The books of `array`, in its order.
  public init(_ array: [CatalogBook]) {
    var chunks: [[CatalogBook]] = []
    chunks.reserveCapacity((array.count + Self.chunkSize - 1) / Self.chunkSize)
    var start = 0
    while start < array.count {
      let end = Swift.min(array.count, start + Self.chunkSize)
      chunks.append(Array(array[start..<end]))
      start = end
    }
    self.chunks = chunks
    self.count = array.count
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { count }

  public subscript(position: Int) -> CatalogBook {
    chunks[position / Self.chunkSize][position % Self.chunkSize]
  }

  /// The list with the book at `position` replaced: one chunk copied.
  func replacing(at position: Int, with book: CatalogBook) -> BookList {
    var copy = self
    copy.chunks[position / Self.chunkSize][position % Self.chunkSize] = book
    return copy
  }

  /// The books as one array (for edits that rebuild the catalog).
  var array: [CatalogBook] { chunks.flatMap { $0 } }

  public static func == (lhs: BookList, rhs: BookList) -> Bool {
    lhs.count == rhs.count && lhs.chunks == rhs.chunks
  }
}
