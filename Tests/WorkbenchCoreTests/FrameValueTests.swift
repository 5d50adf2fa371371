import Testing
import WorkbenchCore

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

  @Test func badJSONIsAnErrorWithItsPlace() {
    for bad in ["", "{", "[1,]", "{\"a\" 1}", "tru", "\"open", "1 2", String(repeating: "[", count: 600)] {
      #expect(throws: JSONParseError.self) { try FrameValue.parse(json: Array(bad.utf8)) }
    }
  }
}
