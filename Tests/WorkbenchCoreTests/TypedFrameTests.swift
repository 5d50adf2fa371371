import Testing
import WorkbenchCore
import WorkbenchModuleAPI

/// A record with every kind of field a typed frame holds, nested.
private struct Shelf: FrameRecord {
  struct Book: FrameRecord {
    var id = 0
    var title = ""
    var lent: Bool?
    static let fields: FrameFields<Book> = [
      FrameField("id", \.id), FrameField("title", \.title), FrameField("lent", \.lent),
    ]
  }

  var name = ""
  var count = 0
  var open = false
  var note: String?
  var books: [Book] = []
  var pinned: Book?
  var tags: [String] = []
  var extra: FrameValue = .null

  static let fields: FrameFields<Shelf> = [
    FrameField("name", \.name, "the shelf's name"),
    FrameField("count", \.count, role: .lifetime, "how many books came"),
    FrameField("open", \.open),
    FrameField("note", \.note, role: [.refusal, .own], "why the last change was refused"),
    FrameField("books", \.books),
    FrameField("pinned", \.pinned),
    FrameField("tags", \.tags),
    FrameField("extra", \.extra),
  ]
}

@Suite struct TypedFrameTests {
  @Test func aRecordIsWrittenAsItsTableSaysInOrder() {
    var shelf = Shelf()
    shelf.name = "hall"
    shelf.count = 2
    shelf.books = [Shelf.Book(id: 7, title: "Dune", lent: true)]
    shelf.tags = ["a"]
    shelf.extra = ["k": 1]
    #expect(
      shelf.frameValue.jsonText
        == #"{"name":"hall","count":2,"open":false,"note":null,"books":[{"id":7,"title":"Dune","lent":true}],"#
        + #""pinned":null,"tags":["a"],"extra":{"k":1}}"#)
  }

  /// Generated records (fixed seeds, and one drawn now, printed on failure) read back equal from
  /// what they write: numbers at `Int`'s edges, text of every kind, optionals either way.
  @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8, UInt64.random(in: 9...UInt64.max)])
  func generatedRecordsReadBackEqual(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    func number() -> Int { random.pick([0, 1, -1, .max, .min, Int(truncatingIfNeeded: random.next())]) }
    func text() -> String {
      random.pick(["", "plain", "quote \" and \\ and \n", "é ☃ 𝄞", "\u{0}\u{1F}", String(repeating: "x", count: 300)])
    }
    func book() -> Shelf.Book {
      Shelf.Book(id: number(), title: text(), lent: random.pick([nil, true, false]))
    }
    for _ in 0..<200 {
      var shelf = Shelf()
      shelf.name = text()
      shelf.count = number()
      shelf.open = random.chance(50)
      shelf.note = random.chance(50) ? text() : nil
      shelf.books = (0..<random.below(4)).map { _ in book() }
      shelf.pinned = random.chance(50) ? book() : nil
      shelf.tags = (0..<random.below(3)).map { _ in text() }
      shelf.extra = random.pick([.null, .integer(number()), .string(text()), ["nested": [1, nil]]])
      let written = shelf.frameValue
      #expect(Shelf(frameValue: written) == shelf, "seed \(seed): \(written.jsonText)")
      // Through JSON text too, as a frame travels.
      let parsed = try? FrameValue.parse(json: Array(written.jsonText.utf8))
      #expect(parsed.flatMap { Shelf(frameValue: $0) } == shelf, "seed \(seed): \(written.jsonText)")
    }
  }

  /// A value that is not the record is not read as one: what it lacks, holds beyond the table,
  /// or holds of another type would be lost or made up.
  @Test func aValueThatIsNotTheRecordIsNotReadAsOne() throws {
    let shelf = Shelf()
    guard case .object(let object) = shelf.frameValue else {
      Issue.record("a record writes an object")
      return
    }
    #expect(Shelf(frameValue: shelf.frameValue) == shelf)
    var missing = object
    missing["tags"] = nil
    #expect(Shelf(frameValue: .object(missing)) == nil)
    var beyond = object
    beyond["colour"] = "red"
    #expect(Shelf(frameValue: .object(beyond)) == nil)
    var retyped = object
    retyped["count"] = "2"
    #expect(Shelf(frameValue: .object(retyped)) == nil)
    var nulled = object
    nulled["open"] = .null
    #expect(Shelf(frameValue: .object(nulled)) == nil)
    var badBook = object
    badBook["books"] = [["id": 1, "title": 2, "lent": nil]]
    #expect(Shelf(frameValue: .object(badBook)) == nil)
    var fraction = object
    fraction["count"] = .number(1.5)
    #expect(Shelf(frameValue: .object(fraction)) == nil)
    #expect(Shelf(frameValue: [1, 2]) == nil)
    #expect(Shelf(frameValue: .null) == nil)
  }

  @Test func aFieldKeepsItsNameSummaryAndRole() {
    let fields = Shelf.fields
    #expect(fields.map(\.name) == ["name", "count", "open", "note", "books", "pinned", "tags", "extra"])
    #expect(fields.filter { $0.role.contains(.lifetime) }.map(\.name) == ["count"])
    #expect(fields.filter { $0.role.contains(.refusal) }.map(\.name) == ["note"])
    #expect(fields.filter { $0.role.contains(.own) }.map(\.name) == ["note"])
    #expect(fields[0].summary == "the shelf's name" && fields[2].summary.isEmpty)
    #expect(!fields.namesRepeat)
  }

  /// What an editor offers inside a field comes from the table: a record's fields, through the
  /// optionals and lists that hold one, and none inside a number; a record that holds its own
  /// kind ends at the depth asked for.
  @Test func theSchemaReachesIntoRecordsThroughOptionalsAndLists() {
    let schema = Shelf.fieldSchema(depth: 8)
    #expect(schema.map(\.name) == Shelf.fields.map(\.name))
    #expect(schema.first?.summary == "the shelf's name")
    #expect(FrameFieldSchema.fields(at: ["books"], in: schema)?.map(\.name) == ["id", "title", "lent"])
    #expect(FrameFieldSchema.fields(at: ["pinned"], in: schema)?.map(\.name) == ["id", "title", "lent"])
    #expect(FrameFieldSchema.fields(at: ["count"], in: schema) == [])
    #expect(FrameFieldSchema.fields(at: ["books", "nope"], in: schema) == nil)
    struct Tree: FrameRecord {
      var children: [Tree] = []
      static let fields: FrameFields<Tree> = [FrameField("children", \.children)]
    }
    let tree = Tree.fieldSchema(depth: 3)
    #expect(FrameFieldSchema.fields(at: ["children", "children"], in: tree)?.map(\.name) == ["children"])
    #expect(FrameFieldSchema.fields(at: ["children", "children", "children"], in: tree) == [])
  }

  /// A table that names a field twice is a mistake the frame does not hide: it keeps one member
  /// of that name (the last field's value), and reads back as no record.
  @Test func aTableThatRepeatsANameWritesOneMemberAndReadsBackAsNothing() {
    struct Twice: FrameRecord {
      var first = 1
      var second = 2
      static let fields: FrameFields<Twice> = [FrameField("n", \.first), FrameField("n", \.second)]
    }
    #expect(Twice.fields.namesRepeat)
    #expect(Twice().frameValue.jsonText == #"{"n":2}"#)
    #expect(Twice(frameValue: Twice().frameValue) == nil)
  }
}
