import Catalog
import FoundationEssentials
import Testing

/// The catalog's own JSON reader and writer agree with a coder, and leave to it what they do
/// not read.
@Suite struct QuickJSONTests {
  private func decoded(_ json: String) throws -> CatalogDocument {
    try JSONDecoder().decode(CatalogDocument.self, from: Data(json.utf8))
  }

  @Test func readsWhatADecoderReads() throws {
    for json in [
      #"{"books": []}"#,
      #"{"books":[{"id":1,"title":"Swift"},{"id":2,"title":"Algorithms"}]}"#,
      "{\n  \"books\" : [ { \"title\" : \"Les Misérables\" , \"id\" : -3 } ]\n}\n",
      #"{"books": [{"id": 4, "title": "A \"quoted\" \\ line\nbreak\/slash\ttab"}]}"#,
    ] {
      let quick = try #require(try CatalogDocument.decodeQuickly(Array(json.utf8)), "\(json)")
      #expect(quick == (try decoded(json)), "\(json)")
    }
  }

  @Test func leavesTheUnusualToTheDecoder() throws {
    for json in [
      #"{"books": [{"id": 1.5, "title": "x"}]}"#,  // not a whole number
      #"{"books": [{"id": 1, "title": "\u00e9"}]}"#,  // \u escape
      #"{"books": [{"id": 1, "title": "x", "extra": 1}]}"#,  // an unknown key
      #"{"books": [{"id": 99999999999999999999, "title": "x"}]}"#,  // too big
      #"{"books": [{"id": 1}]}"#,  // missing title
      #"{"books": [], "more": 1}"#,
      #"{"books": [{"id": 1, "title": "x"}] "#,  // cut short
      "[]",
    ] {
      #expect(try CatalogDocument.decodeQuickly(Array(json.utf8)) == nil, "\(json)")
    }
    // Invalid UTF-8 in a title is not taken either.
    #expect(
      try CatalogDocument.decodeQuickly(
        Array(#"{"books": [{"id": 1, "title": "#.utf8) + [0x22, 0xFF, 0x22, 0x7D, 0x5D, 0x7D]) == nil)
  }

  @Test func validationStillApplies() {
    #expect(throws: CatalogValidationError.self) {
      try CatalogDocument.decodeQuickly(Array(#"{"books": [{"id": 1, "title": "a"}, {"id": 1, "title": "b"}]}"#.utf8))
    }
  }

  @Test func writesWhatItAndADecoderReadBack() throws {
    let document = try CatalogDocument(validating: [
      CatalogBook(id: 1, title: "Plain"), CatalogBook(id: 2, title: "Quote \" backslash \\ newline \n tab \t"),
      CatalogBook(id: 3, title: "Война и мир \u{1}"),
    ])
    let json = try #require(document.encodeQuickly())
    #expect(try decoded(String(decoding: json, as: UTF8.self)) == document)
    #expect(
      try CatalogDocument.decodeQuickly(json) == document
        || (try decoded(String(decoding: json, as: UTF8.self))) == document)
  }
}
