import Testing

@testable import WorkbenchCore
@testable import WorkbenchModuleAPI

/// A module whose commands take one argument of each kind that travels as text or a number, and
/// answer with what they were given: the bound command, not the line it came from.
private struct LabelModule: FeatureModule {
  static let count = Argument<Int>.integer("count")
  static let tag = Argument<String>.word("tag")
  static let tone = Argument<String>.choice("tone", ["loud", "soft"]).optional
  static let note = Argument<String>.rest("note").optional
  static let level = Argument<Int>.integer("level", in: 0...9)

  var manifest: ModuleManifest { ModuleManifest(name: "label", version: "1.0", summary: "echoes its arguments") }

  @MainActor func register(into registrar: Registrar) {
    registrar.command(
      CommandSpec("label", arguments: [Self.count, Self.tag, Self.tone, Self.note], summary: "echo") { context in
        .text(LabelModule.echo(context.arguments))
      })
    registrar.command(
      CommandSpec(
        "mark",
        subcommands: [
          CommandSpec("on", arguments: [Self.level], summary: "mark on") { context in
            .text("on \(context.arguments[Self.level])")
          },
          CommandSpec("off", summary: "mark off") { _ in .text("off") },
        ], summary: "marks"))
  }

  static func echo(_ arguments: ParsedArguments) -> String {
    let tone = arguments[Self.tone].map { "\"\($0)\"" } ?? "-"
    let note = arguments[Self.note].map { "\($0.unicodeScalars.map { String($0.value) })" } ?? "-"
    return "\(arguments[Self.count]) \(arguments[Self.tag].unicodeScalars.map(\.value)) \(tone) \(note)"
  }
}

@MainActor
@Suite struct BoundCommandTests {
  /// Characters the tokenizer gives a meaning, and some it does not.
  private static let alphabet: [String] = [
    "a", "Z", "7", " ", "  ", "\t", "\n", "\r", "\"", "'", "\\", "#", ";", "@", "é", "e\u{301}", "🙂", "-", "$",
  ]

  private static func word(_ generator: inout SplitMix64, empty: Bool) -> String {
    let length = Int.random(in: (empty ? 0 : 1)...6, using: &generator)
    return (0..<length).map { _ in alphabet.randomElement(using: &generator)! }.joined()
  }

  private static func values(_ generator: inout SplitMix64) -> [String: ArgumentValue] {
    let counts = [0, 1, -1, Int.max, Int.min, Int.random(in: Int.min...Int.max, using: &generator)]
    var values: [String: ArgumentValue] = [
      "count": .integer(counts.randomElement(using: &generator)!),
      "tag": .text(word(&generator, empty: true)),
    ]
    guard Bool.random(using: &generator) else { return values }
    values["tone"] = .text(Bool.random(using: &generator) ? "loud" : "soft")
    guard Bool.random(using: &generator) else { return values }
    // A rest bound from a line is its words joined by single spaces; one handed over as a
    // value may be any text.
    values["note"] = .text(word(&generator, empty: true))
    return values
  }

  nonisolated private static let seeds: [UInt64] = [1, 2, 3, 2026, 0xDEAD_BEEF, UInt64.random(in: 0...UInt64.max)]

  /// A command bound from values and written as text reads back, through the tokenizer and the
  /// resolver, as the same command with the same arguments; run either way, it does the same.
  @Test(arguments: seeds) func aBoundCommandsTextReadsBackAsTheSameCommand(seed: UInt64) throws {
    let host = try Host(modules: [LabelModule()])
    let resolver = host.resolver
    var generator = SplitMix64(seed: seed)
    for _ in 0..<200 {
      let values = Self.values(&generator)
      let name = [CommandToken(text: "label", column: 1)]
      let bound = try resolver.bind(try resolver.resolve(name, in: host.directory), values: values, in: host.directory)
      let text = bound.text
      let commands = try CommandTokenizer.commands(in: text)
      try #require(commands.count == 1, "seed \(seed): \(values) wrote \(text.debugDescription)")
      let again = try resolver.bind(try resolver.resolve(commands[0], in: host.directory), in: host.directory)
      #expect(again.arguments.values == bound.arguments.values, "seed \(seed): \(text.debugDescription)")
      #expect(again.text == text, "seed \(seed)")
      let byLine = try host.run(line: text)
      let byValue = try host.run(path: ["label"], arguments: values, in: nil)
      #expect(byLine == [byValue], "seed \(seed): \(text.debugDescription)")
    }
  }

  /// A subcommand's full name is its command's and its own, in the bound command and its text.
  @Test func aSubcommandIsNamedWithItsCommand() throws {
    let host = try Host(modules: [LabelModule()])
    let tokens = try CommandTokenizer.commands(in: "mark on 4")[0]
    let bound = try host.resolver.bind(try host.resolver.resolve(tokens, in: host.directory), in: host.directory)
    #expect(bound.name == "mark on")
    #expect(bound.text == "mark on 4")
    #expect(bound.path == ["mark", "on"])
    #expect(try host.run(path: ["mark", "on"], arguments: ["level": .integer(4)], in: nil) == .text("on 4"))
    #expect(try host.run(path: ["mark", "off"], arguments: [:], in: nil) == .text("off"))
  }

  /// Values are checked as words are, and what a line could not say is refused: a name the
  /// command lacks, an optional argument given after one left out, a required one missing, a
  /// number out of its range, a word that is not one of the choices.
  @Test func valuesAreCheckedAsWordsAre() throws {
    let host = try Host(modules: [LabelModule()])
    func refusal(_ name: String, _ values: [String: ArgumentValue]) -> String? {
      do throws(CommandError) {
        _ = try host.run(path: name.split(separator: " ").map(String.init), arguments: values, in: nil)
        return nil
      } catch {
        return error.message
      }
    }
    let given: [String: ArgumentValue] = ["count": .integer(1), "tag": .text("x")]
    func with(_ name: String, _ value: ArgumentValue) -> [String: ArgumentValue] {
      given.merging([name: value]) { _, new in new }
    }
    #expect(refusal("label", with("colour", .text("red")))?.contains("no argument 'colour'") == true)
    #expect(refusal("label", with("note", .text("n")))?.contains("TONE before it is not") == true)
    #expect(refusal("label", ["tag": .text("x")])?.contains("missing COUNT") == true)
    #expect(refusal("label", with("tone", .text("quiet")))?.contains("TONE must be one of") == true)
    #expect(refusal("mark on", ["level": .integer(10)])?.contains("between 0 and 9") == true)
    #expect(refusal("mark on", ["level": .integer(Int.max)])?.contains("between 0 and 9") == true)
    #expect(refusal("mark", [:])?.contains("subcommand") == true)
    #expect(refusal("", [:]) != nil)
    #expect(refusal("label", with("count", .text("many")))?.contains("whole number") == true)
  }
}
