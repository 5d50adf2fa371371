import Foundation
import Testing
import WorkbenchCore
import WorkbenchModuleAPI

/// The workbench's own `Codable` coders (`FrameValueEncoder`, `FrameValueDecoder`), which took
/// the place of Foundation's JSON coders in the binary: they read what Foundation wrote (every
/// workspace written before holds its JSON), Foundation reads what they write, and bad input is
/// a `DecodingError` naming the field, never a trap.
@Suite struct FrameValueCodingTests {
  enum Shape: Codable, Equatable {
    case dot
    case circle(radius: Double)
    case labelled(String, at: [Int])
  }

  class Base: Codable {
    var name = "base"
  }

  final class Derived: Base, Equatable {
    var extra = 7
    override init() { super.init() }
    required init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: Keys.self)
      extra = try container.decode(Int.self, forKey: .extra)
      try super.init(from: container.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Keys.self)
      try container.encode(extra, forKey: .extra)
      try super.encode(to: container.superEncoder())
    }
    enum Keys: String, CodingKey { case extra }
    static func == (lhs: Derived, rhs: Derived) -> Bool { lhs.name == rhs.name && lhs.extra == rhs.extra }
  }

  struct Zoo: Codable, Equatable {
    var text = "Quote \" backslash \\ newline \n tab \t bell \u{07} slash / é 🐘"
    var whole = Int.max
    var negative = Int.min
    var small: Int8 = -128
    var unsigned: UInt32 = .max
    var big: UInt64 = UInt64(Int.max)
    var fraction = 0.1
    var wholeDouble = 2.0
    var float: Float = 1.5
    var flag = true
    var missing: String? = nil
    var present: String? = "here"
    var list = [3, 1, 2]
    var nested = [[1], [], [2, 3]]
    var byName = ["b": 2, "a": 1]
    var byNumber = [10: "ten", 2: "two"]
    var shapes: [Shape] = [.dot, .circle(radius: 2.5), .labelled("x", at: [1, 2])]
    var empty: [String: Int] = [:]
    // Sorted already: a frame value is ordered, and sorting keys sorts its members too.
    var frame: FrameValue = ["a": [true, nil, 1.5], "z": 1]
    var derived = Derived()
  }

  @Test func valuesRoundTripThroughTheWorkbenchCoders() throws {
    let zoo = Zoo()
    let json = try FrameValueEncoder(sortsKeys: true).json(zoo)
    let back = try FrameValueDecoder().decode(Zoo.self, fromJSON: Array(json.utf8))
    #expect(back == zoo, "\(json)\n\(back)")
  }

  /// Workspaces hold what Foundation's `JSONEncoder` wrote (slashes escaped, whole doubles as
  /// `2`, keys sorted); they read the same. And what the workbench writes, Foundation reads.
  @Test func foundationAndTheWorkbenchReadEachOthersJSON() throws {
    let zoo = Zoo()
    let foundation = JSONEncoder()
    foundation.outputFormatting = [.sortedKeys]
    let written = try foundation.encode(zoo)
    #expect(String(decoding: written, as: UTF8.self).contains(#"\/"#), "the test should cover escaped slashes")
    #expect(try FrameValueDecoder().decode(Zoo.self, fromJSON: Array(written)) == zoo)
    let ours = try FrameValueEncoder(sortsKeys: true).json(zoo)
    var read = try JSONDecoder().decode(Zoo.self, from: Data(ours.utf8))
    // Foundation's decoder hands a keyed container's keys over in no fixed order, and a frame
    // value keeps the order it is given: sorted again, as the encoder sorts it.
    read.frame = try FrameValueEncoder(sortsKeys: true).encode(read.frame)
    #expect(read == zoo)
  }

  /// With `sortsKeys` the text is the same whatever order a dictionary iterates in (its seed
  /// changes with every process), at every depth, inside stored frame values too.
  @Test func sortedKeysGiveTheSameTextEveryTime() throws {
    var many: [String: [String: Int]] = [:]
    for number in 0..<200 { many["k\(number)"] = ["y\(number)": number, "x": 0] }
    let text = try FrameValueEncoder(sortsKeys: true).json(many)
    #expect(text.hasPrefix(#"{"k0":{"x":0,"y0":0},"k1":{"x":0,"y1":1},"k10":"#), "\(text.prefix(80))")
    let frame = try FrameValueEncoder(sortsKeys: true).json(["b": 1, "a": ["d": 1, "c": 2]] as FrameValue)
    #expect(frame == #"{"a":{"c":2,"d":1},"b":1}"#)
    #expect(try FrameValueEncoder().json(["b": 1, "a": 2] as FrameValue) == #"{"b":1,"a":2}"#)
  }

  struct Book: Codable, Equatable {
    var id: Int
    var title: String
  }
  struct Shelf: Codable { var books: [Book] }

  /// What reading `json` as a shelf says is wrong, as a user reads it.
  static func problem(_ json: String) -> String {
    let error: any Error
    do {
      _ = try FrameValueDecoder().decode(Shelf.self, fromJSON: Array(json.utf8))
      return "decoded"
    } catch let caught {
      error = caught
    }
    guard let decoding = error as? DecodingError else { return "not a DecodingError: \(error)" }
    return DecodingErrorText.describe(decoding)
  }

  @Test func problemsNameTheFieldAndNeverTrap() throws {
    let problem = Self.problem
    #expect(problem(#"{"books": [{"id": 1, "title": "a"}, {"id": 2}]}"#) == "books[1].title is missing")
    #expect(problem(#"{"books": [{"id": "one", "title": "a"}]}"#) == "books[0].id should be a whole number")
    #expect(problem(#"{"books": [{"id": null, "title": "a"}]}"#) == "books[0].id should be a whole number, not null")
    #expect(problem(#"{"books": {"id": 1}}"#) == "books should be a list")
    #expect(problem(#"{"books": [{"id": 1.5, "title": "a"}]}"#) == "books[0].id: 1.5 does not fit Int")
    #expect(problem(#"{"books": [{"id": 92233720368547758070, "title": "a"}]}"#).hasPrefix("books[0].id: "))
    #expect(problem(#"{"books": [{"id": 1, "title": "a"}"#) == "the document: not JSON: unclosed list at byte 34")
    #expect(problem(String(repeating: "[", count: 2000)).contains("nesting too deep"))
    #expect(problem(#"[1]"#) == "the document should be a mapping")
    #expect(try FrameValueDecoder().decode(UInt8.self, fromJSON: Array("255".utf8)) == 255)
    #expect(throws: DecodingError.self) { try FrameValueDecoder().decode(UInt8.self, fromJSON: Array("256".utf8)) }
    #expect(throws: DecodingError.self) { try FrameValueDecoder().decode(UInt64.self, fromJSON: Array("-1".utf8)) }
  }

  @Test func whatJSONCannotHoldIsRefused() {
    #expect(throws: EncodingError.self) { try FrameValueEncoder().json([1.0, .infinity]) }
    #expect(throws: EncodingError.self) { try FrameValueEncoder().json(Double.nan) }
    #expect(throws: EncodingError.self) { try FrameValueEncoder().json(UInt64.max) }
  }

  @Test func prettyTextIsIndentedAndReadsBack() throws {
    let value: FrameValue = ["passed": 2, "list": [1, ["a": "b"]], "none": [], "nothing": .object(FrameObject())]
    let text = value.prettyJSONText
    #expect(
      text == """
        {
          "passed" : 2,
          "list" : [
            1,
            {
              "a" : "b"
            }
          ],
          "none" : [],
          "nothing" : {}
        }
        """)
    #expect(try FrameValue.parse(json: Array(text.utf8)) == value)
  }
}
