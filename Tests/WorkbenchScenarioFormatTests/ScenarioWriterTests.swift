import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchTestSupport

/// What `ScenarioWriter` writes, `ScenarioLoader` reads back as the same scenario: random
/// scenarios with awkward text everywhere text goes (words YAML would read as something else,
/// quotes, breaks, other scripts), written, loaded and compared field by field.
@MainActor
@Suite struct ScenarioWriterTests {
  /// Text that tempts a YAML writer into writing something that reads back differently.
  nonisolated static let awkward = [
    "plain", "two words", "yes", "No", "null", "~", "true", "123", "-7", "1.5", "0x1F", "1e3", "- item", "a: b",
    "#hash", "x #y", "'single'", "\"double\"", "it's", "back\\slash", "tab\there", "line\nbreak", " lead",
    "trail ", "", "@at", "%p", "*star", "&amp", "!bang", "|", ">", "[x]", "{y}", ":", "?", "Gödel", "Война",
    "漢字", "emoji 🙂", "\u{7F}del", "\u{200B}zero width", "300ms", "1-60", "2024-01-01",
  ]

  struct Generator {
    var random: SplitMix64
    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    mutating func text() -> String { pick(ScenarioWriterTests.awkward) }

    mutating func value(depth: Int = 0) -> FrameValue {
      switch Int.random(in: 0..<(depth < 2 ? 8 : 5), using: &random) {
      case 0: return .null
      case 1: return .bool(chance(50))
      case 2: return .integer(pick([0, 1, -1, 42, Int.max, Int.min]))
      case 3, 4: return .string(text())
      case 5: return .list((0..<Int.random(in: 0...3, using: &random)).map { _ in value(depth: depth + 1) })
      default:
        var object = FrameObject()
        for _ in 0..<Int.random(in: 0...3, using: &random) { object[text()] = value(depth: depth + 1) }
        return .object(object)
      }
    }
  }

  static func scenario(seed: UInt64) -> Scenario {
    var g = Generator(random: SplitMix64(seed: seed))
    let here = SourceLocation(file: "generated.yaml", line: 1, column: 1)
    let drawn = g.text()
    let awkwardTitle = drawn.isEmpty ? "untitled" : drawn
    let library: FrameValue = .object(
      FrameObject(members: [
        ("books", .list([.object(FrameObject(members: [("id", .integer(1)), ("title", .string(awkwardTitle))]))]))
      ]))
    let documents = [
      DocumentSeed(
        name: "shelf", kind: "catalog", json: Array(library.jsonText.utf8), revision: g.pick([1, 2, Int.max]),
        location: here)
    ]
    var windows: [WindowSeed] = []
    var number = 0
    for index in 0..<Int.random(in: 0...3, using: &g.random) {
      number += g.pick([1, 1, 3])
      let named = g.chance(50)
      windows.append(
        WindowSeed(
          name: named ? "w\(index)" : String(number), number: number, screen: "catalog", document: "shelf",
          state: g.chance(50) ? #"{"query":"# + FrameValue.string(g.text()).jsonText + "}" : nil,
          location: here))
    }
    var steps: [Step] = []
    for _ in 0..<Int.random(in: 1...6, using: &g.random) {
      let failure: FailureMatcher? = g.chance(30) ? (g.chance(70) ? .substring(g.text()) : .pattern("a.c")) : nil
      if let window = windows.randomElement(using: &g.random), g.chance(60) {
        let line = g.pick(["query ", "add ", "rename 1 "]) + CommandTokenizer.quoted(g.text())
        steps.append(Step(action: .command(window: window.name, line: line), location: here, failure: failure))
      } else {
        steps.append(
          Step(action: .host(line: g.pick(["documents", "windows", "clock"])), location: here, failure: failure))
      }
    }
    if let window = windows.last, g.chance(70) {
      var expected = FrameObject()
      for field in ["query", "selected", "rows", "detail"] where g.chance(50) { expected[field] = g.value() }
      steps.append(Step(action: .expect([(window.name, YAMLNode(.object(expected), at: here))]), location: here))
    }
    var facts: [SessionFacts.Key: [FrameValue]]? = nil
    if g.chance(60) {
      var kept: [SessionFacts.Key: [FrameValue]] = [:]
      for _ in 0..<Int.random(in: 1...3, using: &g.random) {
        kept[SessionFacts.Key(scope: g.pick(["window 1", "bridge home", g.text()]), source: "probe.answer")] =
          (0..<Int.random(in: 1...3, using: &g.random)).map { _ in g.value() }
      }
      facts = kept
    }
    return Scenario(
      name: [g.text()].map { $0.isEmpty ? "empty" : $0 }[0], tags: g.chance(30) ? ["t1", "two"] : [], location: here,
      isExhaustive: g.chance(20), viewportRows: g.pick([ScreenEnvironment.defaultViewportRows, 5]),
      documents: documents, windows: windows, steps: steps,
      nextWindowNumber: g.chance(30) ? number + 5 : nil, facts: facts)
  }

  /// A scenario's content as comparable text: everything but where things were written.
  static func content(_ scenario: Scenario) -> [String] {
    var lines = [
      "name \(scenario.name.debugDescription)", "tags \(scenario.tags)", "exhaustive \(scenario.isExhaustive)",
      "rows \(scenario.viewportRows)", "next \(String(describing: scenario.nextWindowNumber))",
    ]
    for document in scenario.documents {
      let body = (try? FrameValue.parse(json: document.json))?.jsonText ?? "unparsed"
      lines.append("document \(document.name) \(document.kind) r\(document.revision) \(body)")
    }
    var implied = 1
    for window in scenario.windows {
      let number = window.number ?? implied
      implied = number + 1
      let state = window.state.flatMap { try? FrameValue.parse(json: Array($0.utf8)) }?.jsonText ?? "none"
      lines.append("window \(window.name) #\(number) \(window.screen) \(window.document) \(state)")
    }
    for key in (scenario.facts ?? [:]).keys.sorted() {
      lines.append("facts \(key) \(FrameValue.list(scenario.facts?[key] ?? []).jsonText)")
    }
    for step in scenario.steps {
      var text: String
      switch step.action {
      case .host(let line): text = "do \(line.debugDescription)"
      case .command(let window, let line): text = "\(window) \(line.debugDescription)"
      case .expect(let pairs):
        text = "expect " + pairs.map { "\($0.window)=\($0.expected.frameValue.jsonText)" }.joined()
      case .snapshot(let windows): text = "snapshot \(windows)"
      }
      lines.append(text + " fails \(step.failure.map { "\($0)" } ?? "-")")
    }
    return lines
  }

  @Test func whatTheWriterWritesLoadsBackTheSame() throws {
    let loader = try ScenarioLoader(modules: builtInModules)
    let folder = makeTemporaryFolder()
    for seed in UInt64(1)...150 {
      let scenario = Self.scenario(seed: seed)
      let path = folder + "/s\(seed).yaml"
      try ScenarioWriter().write(scenario, to: path)
      let loaded: [Scenario]
      do {
        loaded = try loader.load(path).scenarios
      } catch {
        Issue.record("seed \(seed): the written file does not load: \(error)\n\(readTextFile(path) ?? "")")
        continue
      }
      #expect(loaded.count == 1)
      let written = Self.content(scenario)
      let read = loaded.first.map(Self.content) ?? []
      if written != read {
        let diff =
          zip(written, read).first { $0 != $1 }.map { "wrote \($0)\nread  \($1)" }
          ?? "\(written.count) lines, read \(read.count)"
        Issue.record("seed \(seed) reads back differently:\n\(diff)\n\(readTextFile(path) ?? "")")
      }
    }
  }
}
