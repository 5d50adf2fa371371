import Testing
import WorkbenchSystem

/// `LineBuffer`, the one line reader of worker output, run progress and piped commands: the
/// same lines however the bytes are cut into reads.
struct LineBufferTests {
  @Test func linesComeOutTheSameHoweverTheBytesAreCut() {
    let text = "first\n\nthird line, longer\r\n{\"json\": 1}\nlast without a feed"
    let bytes = Array(text.utf8)
    var state: UInt64 = 20_261_204
    for round in 0..<300 {
      var buffer = LineBuffer()
      var lines: [String] = []
      var offset = 0
      while offset < bytes.count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let size = 1 + Int((state >> 33) % 9)
        buffer.append(bytes[offset..<min(bytes.count, offset + size)])
        offset += size
        while let line = buffer.nextLine() { lines.append(String(decoding: line, as: UTF8.self)) }
      }
      let rest = buffer.takeRest().map { String(decoding: $0, as: UTF8.self) }
      #expect(lines == ["first", "", "third line, longer\r", "{\"json\": 1}"], "round \(round)")
      #expect(rest == "last without a feed", "round \(round)")
      #expect(buffer.isEmpty && buffer.takeRest() == nil)
    }
  }
}
