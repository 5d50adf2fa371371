import Testing
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `InputBuffer`, the one reader of both framings (lines: worker output, run progress, piped
/// commands; length-prefixed frames: module messages): the same messages however the bytes are
/// cut into reads.
struct InputBufferTests {
  @Test func linesComeOutTheSameHoweverTheBytesAreCut() {
    let text = "first\n\nthird line, longer\r\n{\"json\": 1}\nlast without a feed"
    let bytes = Array(text.utf8)
    var state: UInt64 = 20_261_204
    for round in 0..<300 {
      var buffer = InputBuffer()
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

  static func framed(_ body: [UInt8]) -> [UInt8] {
    let length = body.count
    return [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
      + body
  }

  /// Frames of every size from empty up (one past 255 and 65,535 among them) come out whole and
  /// in order however the stream is cut, each taken only once its last byte came.
  @Test func framesComeOutWholeHoweverTheBytesAreCut() throws {
    let bodies: [[UInt8]] = [
      [], Array("{}".utf8), [UInt8](repeating: 0x61, count: 256),
      [UInt8](repeating: 0x62, count: 65_536), Array("{\"last\": true}".utf8),
    ]
    let bytes = bodies.flatMap(Self.framed)
    var state: UInt64 = 41_912
    for round in 0..<40 {
      var buffer = InputBuffer()
      var taken: [[UInt8]] = []
      var offset = 0
      while offset < bytes.count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let size = 1 + Int((state >> 33) % 9_000)
        buffer.append(bytes[offset..<min(bytes.count, offset + size)])
        offset += size
        while buffer.holdsAFrame, let body = try buffer.nextFrame(maximum: 1 << 20) { taken.append(Array(body)) }
        #expect(!buffer.holdsAFrame)
        #expect(try buffer.nextFrame(maximum: 1 << 20) == nil)
      }
      #expect(taken == bodies, "round \(round)")
      #expect(buffer.isEmpty)
    }
  }

  /// A frame announcing more than the limit is refused before any of it is awaited, and
  /// nothing is taken (the stream cannot be read on from there).
  @Test func aFrameOverTheLimitIsRefusedAndNothingIsTaken() {
    var buffer = InputBuffer(Self.framed([UInt8](repeating: 1, count: 11)))
    #expect(throws: FrameTooLong(length: 11)) { try buffer.nextFrame(maximum: 10) }
    #expect(buffer.unread.count == 15)
    var largest = InputBuffer([0xFF, 0xFF, 0xFF, 0xFF])
    #expect(throws: FrameTooLong(length: 0xFFFF_FFFF)) { try largest.nextFrame(maximum: Int(Int32.max)) }
  }

  /// Reading from a descriptor adds what it had, says 0 at its end, and lines and frames read
  /// across several reads come out whole.
  @Test func readingFromAPipeAddsWhatItHad() throws {
    let pipe = try #require(Descriptors.pipe())
    let ends = [pipe.read, pipe.write]
    defer { close(ends[0]) }
    let written = Array("one\ntw".utf8) + Self.framed(Array("x".utf8))
    _ = written.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
    var buffer = InputBuffer()
    #expect(buffer.read(from: ends[0]) == written.count)
    #expect(buffer.nextLine().map { Array($0) } == Array("one".utf8))
    _ = Array("o\n".utf8).withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
    close(ends[1])
    #expect(buffer.read(from: ends[0]) == 2)
    #expect(buffer.read(from: ends[0]) == 0)
    #expect(buffer.takeRest().map { Array($0) } == Array("tw".utf8) + Self.framed(Array("x".utf8)) + Array("o\n".utf8))
  }
}

/// `Descriptors.wait`, the one wait on descriptors: what is ready is said, a quiet descriptor
/// times out, a closed writer is a hang-up, and a time from outside (`Int.max`) does not trap.
struct DescriptorWaitTests {
  @Test func aWaitSaysWhatHappenedToEachDescriptor() throws {
    let quietPipe = try #require(Descriptors.pipe())
    let busyPipe = try #require(Descriptors.pipe())
    var quiet = [quietPipe.read, quietPipe.write]
    let busy = [busyPipe.read, busyPipe.write]
    defer { for descriptor in quiet + busy { close(descriptor) } }
    guard case .timedOut = Descriptors.wait(for: quiet[0], .readable, milliseconds: 10) else {
      Issue.record("a quiet pipe did not time out")
      return
    }
    #expect(!Descriptors.isReadable(quiet[0]))
    _ = [UInt8(1)].withUnsafeBytes { write(busy[1], $0.baseAddress, 1) }
    guard
      case .ready(let happened) = Descriptors.wait(
        forAny: [(quiet[0], .readable), (busy[0], .readable), (busy[1], .writable)], milliseconds: Int.max)
    else {
      Issue.record("a readable pipe was not ready")
      return
    }
    #expect(happened == [[], .readable, .writable])
    #expect(Descriptors.isReadable(busy[0]))
    close(quiet[1])
    quiet[1] = -1
    guard case .ready(let ended) = Descriptors.wait(for: quiet[0], .readable, milliseconds: -1) else {
      Issue.record("a closed writer was not seen")
      return
    }
    #expect(ended.contains(.hangUp))
  }
}
