import Testing
import WorkbenchCore
import WorkbenchModuleAPI

@testable import WorkbenchModuleProtocol

/// A message read straight from its text (`ModuleMessage(json:)`, `HostMessage(json:)`) is the
/// message the long way reads (parsed, then `init(wire:)`), for generated messages of every
/// kind, spaced out and with members the protocol does not know; and for any text made from
/// them by a change of a byte or a member, the straight reading reads nothing or the same.
struct DirectReadingTests {
  typealias Sampler = WireEncodingTests.Sampler

  /// What each way reads from a text, for both directions of the protocol.
  struct Readings: Equatable, CustomStringConvertible {
    var straight: String?
    var parsed: String?

    init(host text: [UInt8]) {
      straight = HostMessage(json: text).map { "\($0)" }
      parsed = (try? FrameValue.parse(json: text)).flatMap { try? HostMessage(wire: $0) }.map { "\($0)" }
    }

    init(module text: [UInt8]) {
      straight = ModuleMessage(json: text).map { "\($0)" }
      parsed = (try? FrameValue.parse(json: text)).flatMap { try? ModuleMessage(wire: $0) }.map { "\($0)" }
    }

    var description: String { "straight: \(straight ?? "nothing"), parsed: \(parsed ?? "nothing")" }
  }

  /// Generated messages of every kind as text, with the direction each goes in; some break a
  /// rule across fields and read neither way.
  static func texts(seed: UInt64, rounds: Int) -> [(text: [UInt8], fromHost: Bool)] {
    var sampler = Sampler(seed: seed)
    var texts: [(text: [UInt8], fromHost: Bool)] = []
    for _ in 0..<rounds {
      for kind in HostMessage.kinds {
        texts.append((Array(sampler.object(of: kind.structure, depth: 0, type: kind.type).jsonText.utf8), true))
      }
      for kind in ModuleMessage.kinds {
        texts.append((Array(sampler.object(of: kind.structure, depth: 0, type: kind.type).jsonText.utf8), false))
      }
    }
    return texts
  }

  static func readings(_ text: [UInt8], fromHost: Bool) -> Readings {
    fromHost ? Readings(host: text) : Readings(module: text)
  }

  /// Space after every `{`, `[`, `:` and `,` outside strings, and before the closing ones.
  static func spacedOut(_ text: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
    let spaces: [[UInt8]] = [[0x20], [0x0A], [0x09, 0x20], [0x0D, 0x0A]]
    var output: [UInt8] = []
    var inString = false
    var escaped = false
    for byte in text {
      if inString {
        output.append(byte)
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          inString = false
        }
        continue
      }
      if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") { output += spaces[Int(random.next() % 4)] }
      output.append(byte)
      if byte == UInt8(ascii: "\"") { inString = true }
      if [UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: ":"), UInt8(ascii: ",")].contains(byte) {
        output += spaces[Int(random.next() % 4)]
      }
    }
    return output
  }

  /// The message with a member no structure has, after its `type` and at its end.
  static func withUnknownMembers(_ text: [UInt8]) -> [UInt8] {
    guard text.last == UInt8(ascii: "}"), let comma = text.firstIndex(of: UInt8(ascii: ",")) else { return text }
    let unknown = Array(#""later":[1,{"a":null,"b":"\u00e9"}],"#.utf8)
    return Array(text[...comma]) + unknown + Array(text[(comma + 1)..<(text.count - 1)])
      + Array(#","zz":{"type":"ok"}}"#.utf8)
  }

  nonisolated static let seeds: [UInt64] = [1, 2, 3, 49, 2026, UInt64.random(in: 0...UInt64.max)]

  @Test(arguments: seeds) func aWellFormedMessageReadsStraightAsItReadsParsed(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var read = 0
    for (text, fromHost) in Self.texts(seed: seed, rounds: 30) {
      for variant in [text, Self.spacedOut(text, &random), Self.withUnknownMembers(text)] {
        let readings = Self.readings(variant, fromHost: fromHost)
        #expect(
          readings.straight == readings.parsed,
          "seed \(seed): \(String(decoding: variant, as: UTF8.self)): \(readings)")
        if readings.straight != nil { read += 1 }
      }
    }
    // Most generated messages read (a few break a rule across fields): not a comparison of
    // nothing with nothing.
    let kinds = HostMessage.kinds.count + ModuleMessage.kinds.count
    #expect(read > 3 * 30 * kinds / 2, "seed \(seed): \(read) read")
  }

  /// A byte deleted, put in or changed, a member given twice, the `type` not first, a key
  /// escaped: read straight, each is nothing (read the long way instead) or what the long way
  /// reads.
  @Test(arguments: seeds) func aChangedTextReadsStraightAsItReadsParsedOrNotAtAll(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    let pool = Array(#"{}[]",:\ 0-9aeln"#.utf8) + [0x80, 0xC3, 0xFF, 0x00]
    var compared = 0
    var readStraight = 0
    for (text, fromHost) in Self.texts(seed: seed, rounds: 12) where text.count > 2 {
      var variants: [[UInt8]] = []
      for _ in 0..<6 {
        var changed = text
        let place = Int(random.next() % UInt64(changed.count))
        switch random.next() % 3 {
        case 0: changed.remove(at: place)
        case 1: changed.insert(pool[Int(random.next() % UInt64(pool.count))], at: place)
        default: changed[place] = pool[Int(random.next() % UInt64(pool.count))]
        }
        variants.append(changed)
      }
      let body = Array(text.dropFirst().dropLast())
      // Every member given twice (the long way keeps the last), the type last, a key escaped.
      variants.append([UInt8(ascii: "{")] + body + [UInt8(ascii: ",")] + body + [UInt8(ascii: "}")])
      if let comma = body.firstIndex(of: UInt8(ascii: ",")) {
        variants.append(
          [UInt8(ascii: "{")] + Array(body[(comma + 1)...]) + [UInt8(ascii: ",")] + Array(body[..<comma])
            + [UInt8(ascii: "}")])
      }
      variants.append(Array(String(decoding: text, as: UTF8.self).replacing(#""id":"#, with: #""\u0069d":"#).utf8))
      variants.append(Array(String(decoding: text, as: UTF8.self).replacing(#"{"type""#, with: #"{"typ\u0065""#).utf8))
      for variant in variants {
        let readings = Self.readings(variant, fromHost: fromHost)
        compared += 1
        guard let straight = readings.straight else { continue }
        readStraight += 1
        #expect(
          straight == readings.parsed,
          "seed \(seed): \(String(decoding: variant, as: UTF8.self)): \(readings)")
      }
    }
    #expect(readStraight > 0 && readStraight < compared, "seed \(seed): \(readStraight) of \(compared) read straight")
  }

  @Test func aFieldGivenTwiceReadsAsItsLastValue() {
    let text = Array(#"{"type":"ok","id":1,"output":null,"id":2}"#.utf8)
    let readings = Readings(module: text)
    #expect(readings.parsed?.contains("id: Optional(2)") == true, "\(readings)")
    #expect(readings.straight == readings.parsed)
    let typeTwice = Array(#"{"type":"ok","id":1,"type":"error","message":"no"}"#.utf8)
    let twice = Readings(module: typeTwice)
    #expect(twice.parsed?.hasPrefix("error") == true, "\(twice)")
    #expect(twice.straight == nil || twice.straight == twice.parsed)
  }

  @Test func nestingPastTheLimitIsNotReadStraight() {
    // Structures in structures: a record's fields, 300 deep (two levels each, list and object).
    var record = #"{"name":"last"}"#
    for _ in 0..<300 { record = #"{"name":"a","fields":["# + record + "]}" }
    var cursor = JSONCursor(bytes: Array(record.utf8))
    #expect(WireRecordField.read(json: &cursor, depth: 0) == nil)
    #expect((try? FrameValue.parse(json: Array(record.utf8))) == nil)
    var shallower = #"{"name":"last"}"#
    for _ in 0..<200 { shallower = #"{"name":"a","fields":["# + shallower + "]}" }
    var again = JSONCursor(bytes: Array(shallower.utf8))
    let parsed = (try? FrameValue.parse(json: Array(shallower.utf8))).flatMap { try? WireRecordField(wire: $0) }
    #expect(parsed != nil)
    #expect(WireRecordField.read(json: &again, depth: 0) == parsed)

    let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
    let text = Array(#"{"type":"ok","id":1,"output":"#.utf8) + Array(deep.utf8) + [UInt8(ascii: "}")]
    #expect(ModuleMessage(json: text) == nil)
    #expect((try? FrameValue.parse(json: text)) == nil)
  }
}
