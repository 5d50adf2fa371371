import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchLanguageServer
import WorkbenchModuleAPI
import WorkbenchScenarios
import WorkbenchTestSupport

/// The language server's framing under whatever an editor (or something else) writes: messages
/// split anywhere, headers that lie about their length or never end. After garbage the next
/// well-formed message is read; garbage is reported (the server answers a parse error) and
/// never kept whole.
struct LanguageServerTransportTests {
  static func framed(_ message: FrameValue) -> [UInt8] { LanguageServerTransport.framed(message) }

  static func hover(_ id: Int) -> FrameValue {
    [
      "jsonrpc": "2.0", "id": .integer(id), "method": "textDocument/hover",
      "params": ["textDocument": ["uri": "file:///x.yaml"], "position": ["line": 0, "character": 0]],
    ]
  }

  /// Everything `bytes` makes, fed in chunks of `size`.
  static func events(_ bytes: [UInt8], chunk size: Int = 65536) -> [LanguageServerTransport.Event] {
    var transport = LanguageServerTransport()
    var events: [LanguageServerTransport.Event] = []
    var offset = 0
    while offset < bytes.count {
      transport.append(bytes[offset..<min(bytes.count, offset + size)])
      offset += size
      while let event = transport.next() { events.append(event) }
    }
    return events
  }

  static func ids(_ events: [LanguageServerTransport.Event]) -> [Int] {
    events.compactMap { event in
      guard case .message(let body) = event else { return nil }
      return (try? FrameValue.parse(json: body))?["id"]?.integerValue
    }
  }

  @Test func messagesSplitAnywhereComeOutWholeAndInOrder() {
    let stream = (1...5).flatMap { Self.framed(Self.hover($0)) }
    for size in [1, 2, 7, 64, 100_000] {
      #expect(Self.ids(Self.events(stream, chunk: size)) == [1, 2, 3, 4, 5], "chunks of \(size)")
    }
  }

  /// The headers the hostile trial sent: after each, the ten valid requests that follow are
  /// all read (they were all lost), and the bad one is reported.
  @Test(arguments: [
    ("negative", "Content-Length: -5\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":0}"),
    ("2^63", "Content-Length: 9223372036854775808\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":0}"),
    ("1e9", "Content-Length: 1e9\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":0}"),
    ("over the cap", "Content-Length: 1000000000\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":0}"),
    ("missing", "Content-Type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":0}"),
    ("too large", "Content-Length: 5000\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":0}"),
    ("not a header", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
  ])
  func aBadHeaderCostsOnlyItsOwnMessage(kind: String, bad: String) {
    let stream = Array(bad.utf8) + (1...10).flatMap { Self.framed(Self.hover($0)) }
    for size in [1, 13, 65536] {
      let events = Self.events(stream, chunk: size)
      #expect(Self.ids(events) == Array(1...10), "\(kind), chunks of \(size): \(events)")
      #expect(
        events.contains { if case .malformed = $0 { true } else { false } }, "\(kind) was not reported: \(events)")
    }
  }

  /// A length too small cuts the body (the server answers its JSON with a parse error); the
  /// rest of it is dropped before the next header, which is read.
  @Test func aLengthTooSmallLosesOnlyItsOwnMessage() {
    let body = Array(Self.hover(0).jsonText.utf8)
    let stream = Array("Content-Length: 10\r\n\r\n".utf8) + body + (1...10).flatMap { Self.framed(Self.hover($0)) }
    for size in [1, 65536] {
      let events = Self.events(stream, chunk: size)
      #expect(events.first == .message(Array(body.prefix(10))), "chunks of \(size)")
      #expect(Self.ids(events) == Array(1...10), "chunks of \(size): \(events)")
    }
  }

  /// 40 MB without a blank line: reported once, never held (the transport keeps a few chunks at
  /// most), and the request after it is read.
  @Test func aHeaderThatNeverEndsIsDroppedAsItComes() {
    var transport = LanguageServerTransport()
    var events: [LanguageServerTransport.Event] = []
    let garbage = [UInt8](repeating: UInt8(ascii: "x"), count: 65536)
    var largest = 0
    for _ in 0..<640 {
      transport.append(garbage)
      while let event = transport.next() { events.append(event) }
      largest = max(largest, transport.retainedBytes)
    }
    transport.append(Self.framed(Self.hover(7)))
    while let event = transport.next() { events.append(event) }
    #expect(Self.ids(events) == [7], "\(events.count) events")
    #expect(events.filter { if case .malformed = $0 { true } else { false } }.count == 1)
    #expect(largest <= 4 * 65536, "the transport held \(largest) bytes of garbage")
  }

  /// Through the real binary: a stream with every kind of bad header between good requests,
  /// each good one answered.
  @Test func theServerAnswersEveryGoodRequestAfterBadHeaders() {
    let bad = [
      "Content-Length: -5\r\n\r\n{}", "Content-Length: 9223372036854775808\r\n\r\n{}", "Content-Length: 1e9\r\n\r\n{}",
      "Content-Length: 3\r\n\r\n{\"jsonrpc\":\"2.0\"}", "Content-Type: text/plain\r\n\r\n{}",
      String(repeating: "y", count: 100_000),
    ]
    var stream = Self.framed(["jsonrpc": "2.0", "id": 100, "method": "initialize", "params": ["capabilities": [:]]])
    for (index, garbage) in bad.enumerated() {
      stream += Array(garbage.utf8)
      for id in 1...3 { stream += Self.framed(Self.hover(index * 10 + id)) }
    }
    stream += Self.framed(["jsonrpc": "2.0", "id": 200, "method": "shutdown"])
    stream += Self.framed(["jsonrpc": "2.0", "method": "exit"])
    let result = ChildProcess.runWorkbench(["lsp"], input: stream)
    #expect(result.status == 0, "\(result.stderr)")
    var replies = Self.events(Array(result.stdout.utf8)).compactMap { event -> FrameValue? in
      guard case .message(let body) = event else { return nil }
      return try? FrameValue.parse(json: body)
    }
    let answered = Set(replies.compactMap { $0["id"]?.integerValue })
    for index in bad.indices {
      for id in 1...3 { #expect(answered.contains(index * 10 + id), "request \(index * 10 + id) was not answered") }
    }
    replies.removeAll { $0["error"]?["code"] != .integer(-32700) }
    #expect(replies.count >= bad.count, "parse errors: \(replies)")
  }
}
