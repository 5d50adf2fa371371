import BuiltInModules
import Foundation
import Testing
import WorkbenchCore
import WorkbenchModuleAPI

/// Every built-in module's documents, read and written by the workbench's own coders
/// (`FrameValueEncoder`, `FrameValueDecoder`) and by Foundation's, which wrote every workspace
/// made before: each reads what the other wrote, as the same document.
@MainActor @Suite struct BuiltInCodingTests {
  @Test func everyBuiltInDocumentReadsAsFoundationWroteItAndTheOtherWayRound() throws {
    let registry = try ModuleRegistry(modules: builtInModules)
    let records = registry.sampleRecords
    #expect(Set(records.map(\.kind)).count >= 5, "\(records.map(\.kind))")
    for record in records {
      let body = try registry.decodeDocument(kind: record.kind, json: Array(record.body.utf8))
      let written = try Self.foundationJSON(body)
      let read = try registry.decodeDocument(kind: record.kind, json: Array(written))
      let same = Self.same(body, read)
      #expect(same, "\(record.name): Foundation's JSON read back differently")
      let foundationReads = try Self.foundationReads(record.body, as: body)
      #expect(foundationReads, "\(record.name): Foundation cannot read the workbench's")
    }
  }

  static func foundationJSON<Body: DocumentBody>(_ body: Body) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(body)
  }

  static func foundationReads<Body: DocumentBody>(_ json: String, as body: Body) throws -> Bool {
    try JSONDecoder().decode(Body.self, from: Data(json.utf8)) == body
  }

  static func same<Body: DocumentBody>(_ body: Body, _ other: any DocumentBody) -> Bool {
    (other as? Body) == body
  }
}
