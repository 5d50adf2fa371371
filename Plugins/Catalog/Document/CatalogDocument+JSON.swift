import WorkbenchModuleAPI

/// A catalog read from and written to JSON without a coder: a million books is a 50 MB
/// document, and a coder's intermediate tree costs seconds and hundreds of megabytes for it.
/// The reader takes the plain shape (`{"books": [{"id": 1, "title": "..."}, ...]}`, keys in any
/// order, any whitespace) and gives up on anything else, which the decoder then reads and
/// explains.
extension CatalogDocument {
  public static func decodeQuickly(_ json: [UInt8]) throws -> CatalogDocument? {
    var reader = QuickJSONReader(json)
    guard let books = reader.catalogBooks() else { return nil }
    return try CatalogDocument(validating: books)
  }

  public func encodeQuickly() -> [UInt8]? {
    var output: [UInt8] = []
    output.reserveCapacity(books.count * 40 + 16)
    output += #"{"books":["#.utf8
    for (index, book) in books.enumerated() {
      if index > 0 { output.append(UInt8(ascii: ",")) }
      output += #"{"id":"#.utf8
      output += String(book.id).utf8
      output += #","title":"#.utf8
      FrameValue.string(book.title).appendJSON(to: &output)
      output.append(UInt8(ascii: "}"))
    }
    output += "]}".utf8
    return output
  }
}

/// Just enough of a JSON reader for the catalog's shape.
struct QuickJSONReader {
  private let bytes: [UInt8]
  private var index = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  mutating func catalogBooks() -> [CatalogBook]? {
    guard take("{"), let key = string(), key == "books", take(":"), take("[") else { return nil }
    var books: [CatalogBook] = []
    books.reserveCapacity(bytes.count / 40)
    if take("]") {
      return take("}") && atEnd() ? books : nil
    }
    repeat {
      guard let book = book() else { return nil }
      books.append(book)
    } while take(",")
    guard take("]"), take("}"), atEnd() else { return nil }
    return books
  }

  private mutating func book() -> CatalogBook? {
    guard take("{") else { return nil }
    var id: Int?
    var title: String?
    repeat {
      guard let key = string(), take(":") else { return nil }
      switch key {
      case "id" where id == nil: id = integer()
      case "title" where title == nil: title = string()
      default: return nil
      }
    } while take(",")
    guard take("}"), let id, let title else { return nil }
    return CatalogBook(id: id, title: title)
  }

  private mutating func skipSpace() {
    while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
  }

  private mutating func take(_ character: Unicode.Scalar) -> Bool {
    skipSpace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
    index += 1
    return true
  }

  private mutating func atEnd() -> Bool {
    skipSpace()
    return index == bytes.count
  }

  private mutating func integer() -> Int? {
    skipSpace()
    var negative = false
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
      negative = true
      index += 1
    }
    var value = 0
    var digits = 0
    while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
      let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times.addingReportingOverflow(Int(bytes[index] - 0x30))
      guard !overflow1, !overflow2 else { return nil }
      value = sum
      digits += 1
      index += 1
    }
    // A fraction or an exponent is not a plain id: the decoder decides.
    guard digits > 0,
      index >= bytes.count || ![UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index])
    else { return nil }
    return negative ? -value : value
  }

  /// A string without escapes is taken as it is; one with escapes is left to the decoder
  /// unless they are the common ones.
  private mutating func string() -> String? {
    guard take("\"") else { return nil }
    let start = index
    var plain = true
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") { break }
      if byte < 0x20 { return nil }
      if byte == UInt8(ascii: "\\") {
        plain = false
        index += 2
        continue
      }
      index += 1
    }
    guard index < bytes.count else { return nil }
    let end = index
    index += 1
    if plain {
      return bytes.withUnsafeBufferPointer { buffer in
        let slice = buffer[start..<end]
        // ASCII needs no validation; anything else must be well-formed UTF-8.
        if !slice.contains(where: { $0 >= 0x80 }) { return String(decoding: slice, as: UTF8.self) }
        return String(validating: slice, as: UTF8.self)
      }
    }
    var unescaped: [UInt8] = []
    var position = start
    while position < end {
      let byte = bytes[position]
      guard byte == UInt8(ascii: "\\") else {
        unescaped.append(byte)
        position += 1
        continue
      }
      guard position + 1 < end else { return nil }
      switch bytes[position + 1] {
      case UInt8(ascii: "\""): unescaped.append(UInt8(ascii: "\""))
      case UInt8(ascii: "\\"): unescaped.append(UInt8(ascii: "\\"))
      case UInt8(ascii: "/"): unescaped.append(UInt8(ascii: "/"))
      case UInt8(ascii: "n"): unescaped.append(0x0A)
      case UInt8(ascii: "t"): unescaped.append(0x09)
      case UInt8(ascii: "r"): unescaped.append(0x0D)
      default: return nil  // \u, \b, \f: the decoder's job
      }
      position += 2
    }
    return String(validating: unescaped, as: UTF8.self)
  }
}
