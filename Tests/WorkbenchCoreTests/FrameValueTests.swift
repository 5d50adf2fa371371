import Testing
import WorkbenchCore
import WorkbenchModuleAPI

@Suite struct FrameValueTests {
  @Test func objectsKeepMemberOrder() {
    let frame: FrameValue = ["b": 1, "a": 2]
    #expect(frame.jsonText == #"{"b":1,"a":2}"#)
  }

  @Test func jsonEscapesStringsAndControlCharacters() {
    let frame: FrameValue = .string("a\"b\\c\nd\u{01}é")
    #expect(frame.jsonText == #""a\"b\\c\nd\u0001é""#)
  }

  @Test func jsonCoversEveryKind() {
    let frame: FrameValue = ["n": nil, "t": true, "i": -3, "d": 1.5, "l": [1, "x"], "o": ["k": "v"]]
    #expect(frame.jsonText == #"{"n":null,"t":true,"i":-3,"d":1.5,"l":[1,"x"],"o":{"k":"v"}}"#)
  }

  @Test func settingAMemberToNilRemovesIt() {
    var object = FrameObject(["a": 1, "b": 2])
    object["a"] = nil
    object["c"] = 3
    #expect(object.keys == ["b", "c"])
  }

  @Test func outlineRendersNestedValues() {
    let frame: FrameValue = ["rows": [["id": 1, "title": "Dune"]], "selected": nil]
    #expect(frame.outlineText == "rows:\n  - id: 1, title: Dune\nselected: -")
  }
}

@Suite struct FrameValueParseTests {
  @Test func parsingRoundTripsTheJSONItWrites() throws {
    let value: FrameValue = [
      "b": 1, "a": [true, nil, -2.5, "q\"uote\\ \n é ☃"], "o": ["k": ["x": 1]], "empty": [:], "none": [],
    ]
    #expect(try FrameValue.parse(json: Array(value.jsonText.utf8)) == value)
  }

  @Test func unicodeEscapesAndSurrogatesDecode() throws {
    #expect(try FrameValue.parse(json: Array(#""\u00e9\ud83d\ude00""#.utf8)) == "é😀")
  }

  /// Strings of every kind (ASCII, accents, emoji, control characters, quotes and
  /// backslashes) and numbers at the edges of `Int`, generated from a fixed seed, come back as
  /// they went out: the parser's fast paths (a string without escapes, digits read in place)
  /// agree with its general ones.
  @Test func generatedValuesRoundTrip() throws {
    var state: UInt64 = 0x5EED_2026_1204
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    let pieces = ["a", "Z", "0", " ", "é", "☃", "😀", "\"", "\\", "\n", "\t", "\u{01}", "\u{7F}", "/", "\u{2028}"]
    let numbers = [
      0, -1, 7, Int.max, Int.min, Int.max - 1, 999_999_999_999_999_999, -999_999_999_999_999_999,
      1_000_000_000_000_000_000, 123_456_789_012_345_678,
    ]
    for round in 0..<500 {
      var items: [FrameValue] = []
      for _ in 0..<(1 + next(6)) {
        if next(2) == 0 {
          items.append(.string((0..<next(12)).map { _ in pieces[next(pieces.count)] }.joined()))
        } else {
          items.append(.integer(next(3) == 0 ? numbers[next(numbers.count)] : next(2_000_000) - 1_000_000))
        }
      }
      let value: FrameValue = ["items": .list(items), "key \(round) é": .list(items.reversed())]
      #expect(try FrameValue.parse(json: Array(value.jsonText.utf8)) == value, "round \(round)")
    }
    // Numbers the fast path leaves to the general one, and bytes that are not UTF-8.
    #expect(
      try FrameValue.parse(json: Array("[-0, 1e3, 12345678901234567890, -9223372036854775808]".utf8))
        == [.integer(0), .number(1000), .number(1.2345678901234567e19), .integer(Int.min)])
    for bad in [[0x22, 0xFF, 0x22], [0x22, 0x61, 0xC3, 0x22], [0x2D], [0x2D, 0x2D, 0x31]] as [[UInt8]] {
      #expect(throws: JSONParseError.self) { try FrameValue.parse(json: bad) }
    }
  }

  @Test func badJSONIsAnErrorWithItsPlace() {
    for bad in ["", "{", "[1,]", "{\"a\" 1}", "tru", "\"open", "1 2", String(repeating: "[", count: 600)] {
      #expect(throws: JSONParseError.self) { try FrameValue.parse(json: Array(bad.utf8)) }
    }
  }
}
