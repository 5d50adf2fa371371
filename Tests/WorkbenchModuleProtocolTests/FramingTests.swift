import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The protocol's framing (docs/protocol.md §2): a 4-byte big-endian length, then that many
/// bytes of JSON. A message arrives whole however the pipe splits it, a length past the limit
/// or a body that is not JSON is malformed, and a channel says how the other end went away.
struct FramingTests {
  static func framed(_ message: FrameValue) -> [UInt8] {
    let body = Array(message.jsonText.utf8)
    let length = UInt32(body.count)
    return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
  }

  /// Two messages fed a byte at a time come out whole, in order, each exactly when its last
  /// byte arrives; an incomplete buffer is left as it was.
  @Test func messagesSplitAnywhereComeOutWhole() throws {
    let first: FrameValue = ["type": "timer", "id": 1, "timer": "t1", "text": "é \"quoted\""]
    let second: FrameValue = ["type": "end", "session": 2]
    let bytes = Self.framed(first) + Self.framed(second)
    var buffer = InputBuffer()
    var received: [FrameValue] = []
    var completedAt: [Int] = []
    for (index, byte) in bytes.enumerated() {
      buffer.append([byte])
      let before = Array(buffer.unread)
      if let message = try MessageChannel.nextMessage(in: &buffer) {
        received.append(message)
        completedAt.append(index + 1)
      } else {
        #expect(Array(buffer.unread) == before)
      }
    }
    #expect(received == [first, second])
    #expect(completedAt == [Self.framed(first).count, bytes.count])
    #expect(buffer.isEmpty)
  }

  @Test func aLengthPastTheLimitOrABodyThatIsNotJSONIsMalformed() {
    let limit = ModuleProtocol.maximumMessage + 1
    var tooLong = InputBuffer([
      UInt8(limit >> 24), UInt8(limit >> 16 & 0xFF), UInt8(limit >> 8 & 0xFF), UInt8(limit & 0xFF),
    ])
    #expect(throws: ChannelError.malformed("a message of \(limit) bytes announced")) {
      try MessageChannel.nextMessage(in: &tooLong)
    }
    var notJSON = InputBuffer([0, 0, 0, 3] + Array("{x}".utf8))
    #expect(throws: ChannelError.self) { try MessageChannel.nextMessage(in: &notJSON) }
    // The biggest length the 4 bytes can say is refused before any of it is awaited.
    var largest = InputBuffer([0xFF, 0xFF, 0xFF, 0xFF])
    #expect(throws: ChannelError.self) { try MessageChannel.nextMessage(in: &largest) }
  }

  /// Over a real pipe: what one end sends the other receives; nothing sent is a timeout after
  /// the time given; a closed writer is `closed`.
  @Test func aChannelOverAPipeReceivesTimesOutAndSeesTheEnd() throws {
    // Close-on-exec: a child another test starts meanwhile must not hold the write end, or the
    // reader never sees the end of its input.
    let pipe = try #require(Descriptors.pipe())
    let ends = [pipe.read, pipe.write]
    let writer = MessageChannel(input: -1, output: ends[1])
    let reader = MessageChannel(input: ends[0], output: -1)
    let message: FrameValue = ["type": "ok", "id": 7, "timers": [["id": "t1", "at": 1000]]]
    try writer.send(message)
    #expect(try reader.receive(timeout: 1000) == message)
    #expect(throws: ChannelError.timedOut(20)) { try reader.receive(timeout: 20) }
    close(ends[1])
    #expect(throws: ChannelError.closed) { try reader.receive(timeout: 1000) }
    close(ends[0])
  }
}

/// Reading with no deadline (a module's kit, once it saw a request come) reads before it looks:
/// a message already there comes at once, and on a descriptor that does not block, nothing yet
/// is waited for, not taken for the end.
struct ChannelReadingTests {
  @Test func withNoDeadlineAMessageThereOrStillToComeIsRead() throws {
    let pipe = try #require(Descriptors.pipe())
    defer {
      close(pipe.read)
      close(pipe.write)
    }
    let writer = MessageChannel(input: -1, output: pipe.write)
    let reader = MessageChannel(input: pipe.read, output: -1)
    let there: FrameValue = ["type": "timer", "id": 1, "timer": "t1", "now": 1000]
    try writer.send(there)
    #expect(try reader.receive(timeout: -1) == there)
    // Not there yet: another process writes it a moment later, into a read end that does not block.
    MessageChannel.makeNonBlocking(pipe.read)
    let later: FrameValue = ["type": "end", "id": 2, "session": 1]
    let writing = try Self.write(later, into: pipe.write)
    #expect(try reader.receive(timeout: -1) == later)
    #expect(writing() == 0)
  }

  /// Has another process write `message` into `descriptor` a tenth of a second from now, as a
  /// module or the host does; the returned function waits for it and says its status.
  static func write(_ message: FrameValue, into descriptor: Int32) throws -> () -> Int32 {
    let folder = try #require(FileSystem.makeTemporaryFolder(prefix: "workbench-channel"))
    #expect(FileSystem.write(bytes: FramingTests.framed(message), to: folder + "/message"))
    let child = try SpawnedProcess(
      "/bin/sh", arguments: ["-c", "sleep 0.1; cat '\(folder)/message' >&3"], input: .null, output: .null,
      error: .inherited, descriptors: [(descriptor, 3)])
    return {
      defer {
        unlink(folder + "/message")
        rmdir(folder)
      }
      return child.wait().status
    }
  }

  /// With a deadline, on a descriptor that does not block (the host's end of a module's pipe):
  /// a reply there is read, nothing there is waited for under the deadline (a timeout, never
  /// the end), one still to come within it is read, and a writer gone is the end. (Reading
  /// before the wait here was tried and undone: a module's reply is rarely there yet, so the
  /// read found nothing and cost a system call a message.)
  @Test func withADeadlineANonBlockingEndReadsFirstAndStillWaitsItsTime() throws {
    let pipe = try #require(Descriptors.pipe())
    defer { close(pipe.read) }
    MessageChannel.makeNonBlocking(pipe.read)
    let writer = MessageChannel(input: -1, output: pipe.write)
    let reader = MessageChannel(input: pipe.read, output: -1)
    let there: FrameValue = ["type": "ok", "id": 1]
    try writer.send(there)
    #expect(try reader.receive(timeout: 1000) == there)
    #expect(throws: ChannelError.timedOut(30)) { try reader.receive(timeout: 30) }
    let later: FrameValue = ["type": "ok", "id": 2]
    let writing = try Self.write(later, into: pipe.write)
    #expect(try reader.receive(timeout: 5000) == later)
    #expect(writing() == 0)
    close(pipe.write)
    #expect(throws: ChannelError.closed) { try reader.receive(timeout: 1000) }
  }
}

/// Writing a message at once or after looking for room, a pipe with room takes it whole, and a
/// full one that nobody reads times the writer out instead of holding it.
struct ChannelWritingTests {
  @Test(arguments: [true, false]) func aFullPipeTimesTheWriterOutEitherWay(writesBeforeLooking: Bool) throws {
    let pipe = try #require(Descriptors.pipe())
    defer {
      close(pipe.read)
      close(pipe.write)
    }
    MessageChannel.makeNonBlocking(pipe.write)
    let writer = MessageChannel(input: -1, output: pipe.write, writesBeforeLooking: writesBeforeLooking)
    let reader = MessageChannel(input: pipe.read, output: -1)
    let small: FrameValue = ["type": "ok", "id": 1]
    try writer.send(small, timeout: 1000)
    #expect(try reader.receive(timeout: 1000) == small)
    // Larger than a pipe holds (64 KiB): written in part, then the wait for room times out.
    let large: FrameValue = ["type": "ok", "output": .string(String(repeating: "x", count: 300_000))]
    #expect(throws: ChannelError.timedOut(50)) { try writer.send(large, timeout: 50) }
  }
}

/// A reader on a pipe whose end does not block (the host's end of a module's pipe), the pipe's
/// writing end, and another pipe beside it (standing for a module's process descriptor), all
/// closed when `body` returns.
private func withReaderAndAnotherPipe(
  _ body: (MessageChannel, _ input: Int32, _ other: (read: Int32, write: Int32)) throws -> Void
) throws {
  let input = try #require(Descriptors.pipe())
  let other = try #require(Descriptors.pipe())
  defer { [input.read, input.write, other.read, other.write].forEach { close($0) } }
  MessageChannel.makeNonBlocking(input.read)
  try body(MessageChannel(input: input.read, output: -1), input.write, other)
}

/// Looking before a request, in one `poll`: bytes the other end sent unasked, and whether a
/// second descriptor (a module's process descriptor) is readable, each seen apart from the other.
struct UnaskedInputTests {
  @Test func unaskedBytesAndTheOtherDescriptorAreToldApart() throws {
    try withReaderAndAnotherPipe { reader, input, other in try toldApart(reader, input, other) }
  }

  private func toldApart(_ reader: MessageChannel, _ input: Int32, _ other: (read: Int32, write: Int32)) throws {
    #expect(reader.hasUnaskedInput(besides: other.read) == (false, false))
    var byte: UInt8 = 1
    #expect(write(other.write, &byte, 1) == 1)
    #expect(reader.hasUnaskedInput(besides: other.read) == (false, true))
    try MessageChannel(input: -1, output: input).send(["type": "changed"] as FrameValue)
    #expect(reader.hasUnaskedInput(besides: other.read) == (true, true))
    // What was read is kept: it is still there, and the other descriptor is still asked.
    #expect(read(other.read, &byte, 1) == 1)
    #expect(reader.hasUnaskedInput(besides: other.read) == (true, false))
    #expect(try reader.receive(timeout: 0) == ["type": "changed"])
    #expect(reader.hasUnaskedInput(besides: other.read) == (false, false))
  }
}

/// Waiting for a message with the writer's process descriptor beside the pipe (the host's wait
/// for a reply): what the process wrote before it ended is read, and then its end is `closed` at
/// once, though something else holds the pipe open; a message cut short by the end is too.
struct ReadingFromAnEndedProcessTests {
  @Test func whatWasWrittenIsReadAndThenTheEndIsClosedAtOnce() throws {
    try withReaderAndAnotherPipe { reader, input, process in try readThenClosed(reader, input, process) }
  }

  private func readThenClosed(_ reader: MessageChannel, _ input: Int32, _ process: (read: Int32, write: Int32)) throws {
    let reply: FrameValue = ["type": "ok", "id": 1]
    try MessageChannel(input: -1, output: input).send(reply)
    var byte: UInt8 = 1
    #expect(write(process.write, &byte, 1) == 1)  // the process ended
    #expect(try reader.receiveText(timeout: 5000, process: process.read) == Array(reply.jsonText.utf8))
    // Closed, not timed out: the deadline is not waited for.
    #expect(throws: ChannelError.closed) { try reader.receiveText(timeout: 5000, process: process.read) }
    // Half a message, then nothing more: closed too.
    let half = Array(FramingTests.framed(reply).prefix(6))
    #expect(write(input, half, half.count) == half.count)
    #expect(throws: ChannelError.closed) { try reader.receiveText(timeout: 5000, process: process.read) }
    // Without the process descriptor the same wait runs to its deadline.
    #expect(throws: ChannelError.timedOut(30)) { try reader.receiveText(timeout: 30) }
  }
}

/// What a reply must be for its request (`ReplyRules`): the kind of message, and every field's
/// type, each problem named by its field.
struct ReplyRulesTests {
  @Test func aReplyOfTheWrongKindOrWithAFieldOfTheWrongTypeIsRefused() {
    let result: FrameValue = [
      "type": "result", "id": 1, "frame": ["n": 1], "text": "n 1", "state": "{}",
    ]
    #expect(ReplyRules.problems(with: result, toRequest: "command") == [])
    #expect(
      ReplyRules.problems(with: ["type": "ok", "id": 1], toRequest: "open")
        == ["a `result` or an `error` for `open`, got `ok`"])
    #expect(
      ReplyRules.problems(with: result, toRequest: "timer") == ["`ok` or an `error` for `timer`, got `result`"])
    let badFrame: FrameValue = ["type": "result", "id": 1, "frame": "not an object", "text": "n 1", "state": "{}"]
    #expect(ReplyRules.problems(with: badFrame, toRequest: "command").contains { $0.contains("`frame`") })
    let noText: FrameValue = ["type": "result", "id": 1, "frame": ["n": 1], "state": "{}"]
    #expect(ReplyRules.problems(with: noText, toRequest: "command").contains { $0.contains("`text`") })
  }

  /// A number from outside at `Int`'s edges is read, or refused, never trapped on.
  @Test func numbersAtTheEdgesAreReadOrRefused() {
    for id in [Int.max, Int.min, 0] {
      let reply: FrameValue = ["type": "ok", "id": .integer(id), "timers": [["id": "t", "at": .integer(Int.max)]]]
      _ = ReplyRules.problems(with: reply, toRequest: "timer")
    }
    let far: FrameValue = ["type": "ok", "id": 1, "timers": [["id": "t", "after": .integer(Int.max)]]]
    #expect(!ReplyRules.problems(with: far, toRequest: "timer").isEmpty)
  }
}
