import WorkbenchCore
import WorkbenchModuleAPI

// What a module sends: its handshake, then one reply to each request, and (protocol 2) changes
// its live sources saw. Each declared once as its fields (see `MessageField`).

/// The module's name, version and what it is (§3).
public struct WireManifest: WireStructure {
  public var name = ""
  public var version = ""
  public var summary = ""

  public init() {}
  public init(name: String, version: String, summary: String) {
    self.name = name
    self.version = version
    self.summary = summary
  }

  public static let definitionName = "manifest"
  public static let summary = "The module's name (lowercase letters, digits and dashes), version and what it is."
  public static let fields: [MessageField<Self>] = [
    .text("name", \.name), .text("version", \.version), .text("summary", \.summary),
  ]
}

/// One argument of a command's spec (§3).
public struct WireArgument: WireStructure {
  public var name = ""
  public var kind = "word"
  public var extra: FrameValue?
  public var optional: Bool?
  public var help: String?

  public init() {}

  public static let definitionName = "argumentSpec"
  public static let summary =
    "An argument: `integer` (`extra`: [low, high] or null), `word`, `rest` (the rest of the line, last) or `choice` (`extra`: the words)."
  public static let fields: [MessageField<Self>] = [
    .text("name", \.name),
    .value("kind", \.kindValue, type: .choice(["integer", "word", "rest", "choice", "window"])),
    .value("extra", \.extra, type: .nullable(.list(.anyValue)), "integer: [low, high]; choice: the words"),
    .boolean("optional", \.optional, "whether it may be left out (optional ones come last)"),
    .text("help", \.help),
  ]

  var kindValue: FrameValue {
    get { .string(kind) }
    set { kind = newValue.stringValue ?? "word" }
  }
}

/// A command's spec (§3): where it runs, its arguments, its subcommands, the windows it opens.
public struct WireCommandSpec: WireStructure {
  public var name = ""
  public var summary: String?
  public var details: String?
  /// The screens it runs in; `nil` for a command that runs anywhere.
  public var screens: [String]?
  public var reports: Bool?
  public var arguments: [WireArgument]?
  public var subcommands: [WireCommandSpec]?
  public var requiresSubcommand: Bool?
  public var windowEffect: FrameValue?

  public init() {}

  public static let definitionName = "commandSpec"
  public static let summary = "A command of the module's: the host parses, checks, completes and lists it from this."
  public static let fields: [MessageField<Self>] = [
    .text("name", \.name, "its name (`move`); offered as `MODULE.NAME` anywhere"),
    .text("summary", \.summary),
    .text("details", \.details),
    .value(
      "screens", \.screensValue, type: .nullable(.list(.string)),
      "the screens it runs in; null for a command that runs anywhere"),
    .boolean("reports", \.reports),
    .structures("arguments", \.arguments),
    .structures("subcommands", \.subcommands, "subcommands chosen by the word after the name (`network fail`)"),
    .boolean("requiresSubcommand", \.requiresSubcommand, "whether the name alone is refused (default true)"),
    .value(
      "windowEffect", \.windowEffect, type: .anyObject,
      "the windows the command opens or closes, for the scenario check (§17)"),
  ]

  var screensValue: FrameValue? {
    get { screens.map { .list($0.map(FrameValue.string)) } ?? .null }
    set { screens = newValue?.elements?.compactMap(\.stringValue) }
  }
}

/// A screen the module shows (§3).
public struct WireScreen: WireStructure {
  public var name = ""
  public var documentKind = ""
  public var fields: [String]?
  public var lifetimeFields: [String]?
  public var refusalFields: [String]?
  public var ownFields: [String]?
  public var fieldSummaries: FrameValue?
  public var recordFields: [WireRecordField]?

  public init() {}

  public static let definitionName = "screen"
  public static let summary = "A screen: it shows documents of one kind."
  public static let fields: [MessageField<Self>] = [
    .text("name", \.name), .text("documentKind", \.documentKind),
    .texts("fields", \.fields, "the top-level fields every frame of the screen has"),
    .texts("lifetimeFields", \.lifetimeFields, "those of them that count what happened in a window's life"),
    .texts("refusalFields", \.refusalFields, "those that show why the last command was refused"),
    .texts("ownFields", \.ownFields, "those a window holds of its own beyond its view state (what it loaded)"),
    .value("fieldSummaries", \.fieldSummaries, type: .map(.string), "what each field means, by name"),
    .structures(
      "recordFields", \.recordFields,
      "the top-level fields that hold a record (or a list or null of one), each with the record's fields, to any depth"),
  ]
}

/// A field of a frame's record (a row, a viewport), with the fields of the record it holds in
/// turn (§3): what an editor completes and explains inside an expectation's field.
public struct WireRecordField: WireStructure {
  public var name = ""
  public var summary: String?
  public var fields: [WireRecordField]?

  public init() {}
  public init(name: String, summary: String?, fields: [WireRecordField]?) {
    self.name = name
    self.summary = summary
    self.fields = fields
  }

  /// A field of a frame's schema as a handshake declares it: its meaning left out when unsaid,
  /// and its record's fields when it holds one.
  public init(_ field: FrameFieldSchema) {
    self.init(
      name: field.name, summary: field.summary.isEmpty ? nil : field.summary,
      fields: field.fields.isEmpty ? nil : field.fields.map(WireRecordField.init))
  }

  /// The field as a frame's schema holds it (the way back from `init(_:)`).
  public var schema: FrameFieldSchema {
    FrameFieldSchema(name: name, summary: summary ?? "", fields: (fields ?? []).map(\.schema))
  }

  public static let definitionName = "recordField"
  public static let summary =
    "A field of a frame, or of a record inside one, with the fields of the record it holds (none for text, numbers, true or false)."
  public static let fields: [MessageField<Self>] = [
    .text("name", \.name, "the field's name"),
    .text("summary", \.summary, "what it means, in a few words"),
    .structures("fields", \.fields, "the fields of the record it holds, when it holds one"),
  ]
}

/// A document a new workspace starts with (§3).
public struct WireSample: WireStructure {
  public var name = ""
  public var kind = ""
  public var body = ""

  public init() {}

  public static let definitionName = "sample"
  public static let summary = "A sample document: `body` is the document as JSON text."
  public static let fields: [MessageField<Self>] = [
    .text("name", \.name), .text("kind", \.kind), .text("body", \.body),
  ]
}

/// An edge of a diagram.
public struct WireDiagramEdge: WireStructure {
  public var from = ""
  public var to = ""
  public var label: String?

  public init() {}

  public static let definitionName = "diagramEdge"
  public static let summary = "An edge of a diagram."
  public static let fields: [MessageField<Self>] = [.text("from", \.from), .text("to", \.to), .text("label", \.label)]
}

/// A diagram the module draws from its own code (`workbench diagram`).
public struct WireDiagram: WireStructure {
  public var name = ""
  public var title: String?
  public var stateMachine: Bool?
  public var start: String?
  public var nodes: [String]?
  public var edges: [WireDiagramEdge]?

  public init() {}

  public static let definitionName = "diagram"
  public static let summary = "A diagram of the module's, drawn from its code."
  public static let fields: [MessageField<Self>] = [
    .text("name", \.name), .text("title", \.title), .boolean("stateMachine", \.stateMachine),
    .textOrNull("start", \.start, required: false), .texts("nodes", \.nodes), .structures("edges", \.edges),
  ]
}

/// `hello`: the handshake (§3).
public struct WireHello: WireStructure {
  public var `protocol` = 1
  public var manifest = WireManifest()
  public var commands: [WireCommandSpec] = []
  public var screens: [WireScreen] = []
  public var documentKinds: [String] = []
  public var samples: [WireSample] = []
  public var diagrams: [WireDiagram]?
  /// Protocol 2: whether the module has live sources (§19): then the host asks it for their
  /// changes at the points a scenario takes them (`sync`).
  public var liveSources: Bool?
  /// Protocol 2: whether the module runs the timer a `timer` request names even before the
  /// request's `now` reaches it (§14): then a window opened again catches up with what the
  /// window it replaces had finished.
  public var catchUp: Bool?
  /// Protocol 2: whether the module moves its timers as a `restore` after an undo names them
  /// (§18): then its windows' timers go with their view history.
  public var undoTimers: Bool?

  public init() {}

  public static let definitionName = "hello"
  public static let summary = "The module's first message, within 10 seconds of starting (§3)."
  public static let fields: [MessageField<Self>] = [
    .integer("protocol", \.protocol, minimum: 1, "the protocol version the module speaks"),
    .structure("manifest", \.manifest), .structures("commands", \.commands), .structures("screens", \.screens),
    .texts("documentKinds", \.documentKinds), .structures("samples", \.samples),
    .structures("diagrams", \.diagrams),
    .boolean(
      "liveSources", \.liveSources,
      "protocol 2: the module has live sources (§19); the host asks them for their changes with `sync`"),
    .boolean(
      "catchUp", \.catchUp,
      "protocol 2: the module runs the timer a `timer` request names even before the request's `now` reaches it "
        + "(§14), so a window opened again catches up with the work its predecessor finished"),
    .boolean(
      "undoTimers", \.undoTimers,
      "protocol 2: the module puts back and takes away the timers a `restore` after an undo names (§18), so its "
        + "windows' timers go with their view history"),
  ]
}

/// `result`: a window's frame after `open`, `command`, `refresh` or `restore` (§4-§6).
public struct WireResult: WireStructure {
  public var frame: FrameValue = .object(FrameObject())
  public var text = ""
  public var state = ""
  public var output: String?
  /// The window's document as JSON text, when the command changed it.
  public var commit: String?
  /// What the window holds unsaved (protocol 2, §20), or `nil`.
  public var unsaved: String?
  /// Protocol 2, answering a `restore` that named timers: the screen set its timers from the
  /// state itself, and left those named aside (§18).
  public var ownTimers: Bool?
  public var facts: [WireFact]?
  public var divergence: String?
  public var id: Int?
  public var timers: [WireTimer]?
  public var cancel: [String]?
  public var updates: [WireUpdate]?
  public var opened: [WireOpenedWindow]?
  public var closed: [String]?

  public init() {}

  public static let definitionName = "result"
  public static let summary =
    "The window as the request left it: its frame, text and view state, what a command printed, and the document when it changed it."
  public static let fields: [MessageField<Self>] =
    [
      .value("frame", \.frame, type: .anyObject, "the window's frame"),
      .text("text", \.text, "the frame as text, for the terminal"),
      .text("state", \.state, "the window's view state as JSON text"),
      .textOrNull("output", \.output, required: false, "text the command printed, or null"),
      .textOrNull(
        "commit", \.commit, required: false,
        "the window's document as JSON text, when the command changed it; null otherwise"),
      .textOrNull(
        "unsaved", \.unsaved, required: false,
        "protocol 2: what the window holds unsaved (a draft), for the question before it closes; null or left out: nothing (§20)"
      ),
      .boolean(
        "ownTimers", \.ownTimers,
        "protocol 2, answering a `restore` that named timers: true when the screen set its timers from the state itself and left those named aside (§18)"
      ),
    ] + replyFields(\.facts, \.divergence, \.id, \.timers, \.cancel, \.updates, \.opened, \.closed)
}

/// `ok`: the answer to `close`, `timer`, `end`, `capture`, `sync`, `live` and a command run in
/// no window.
public struct WireOk: WireStructure {
  public var output: String?
  /// The documents the work changed (protocol 2, §14): a timer's, a live event's, a command's
  /// in no window.
  public var commits: [WireCommit]?
  public var facts: [WireFact]?
  public var divergence: String?
  public var id: Int?
  public var timers: [WireTimer]?
  public var cancel: [String]?
  public var updates: [WireUpdate]?
  public var opened: [WireOpenedWindow]?
  public var closed: [String]?

  public init() {}

  public static let definitionName = "ok"
  public static let summary =
    "Done. A timer's work, a live event's and a command run in no window may carry what they changed: documents, other windows, windows opened or closed, timers."
  public static let fields: [MessageField<Self>] =
    [
      .textOrNull("output", \.output, required: false, "protocol 2: text a command run in no window shows"),
      .structures(
        "commits", \.commits,
        "protocol 2: the documents the work changed (a timer's, a live event's, a command's in no window), each saved if it is still at the revision given (§14)"
      ),
    ] + replyFields(\.facts, \.divergence, \.id, \.timers, \.cancel, \.updates, \.opened, \.closed)
}

/// `error`: a refusal, with a message for the user (§7).
public struct WireError: WireStructure {
  public var message = ""
  public var facts: [WireFact]?
  public var divergence: String?
  public var id: Int?

  public init() {}
  public init(message: String) { self.message = message }

  public static let definitionName = "error"
  public static let summary = "The request is refused; the message says why, in words for the user (§7)."
  public static let fields: [MessageField<Self>] = [
    .text("message", \.message, "why, for the user"),
    .structures("facts", \.facts, expected: factsExpected), .text("divergence", \.divergence),
    .integer("id", \.id, minimum: 1, "the id of the request this answers; when present it must be that request's (§7)"),
  ]
}

/// `changed`: windows a live source changed, sent unasked (protocol 2, §19).
public struct WireChanged: WireStructure {
  public var session = 1
  public var updates: [WireUpdate] = []
  /// What happened, for a replay to hand back (`live`), so the module's state is what it was.
  public var event: FrameValue?

  public init() {}

  public static let definitionName = "changed"
  public static let summary =
    "Protocol 2: a live source saw a change (a switch at the wall); sent unasked, taken between commands (§19)."
  public static let fields: [MessageField<Self>] = [
    .integer("session", \.session, minimum: 1, "the session whose windows changed"),
    .structures("updates", \.updates, maximum: ModuleProtocol.maximumUpdatesPerReply, expected: updatesExpected),
    .value(
      "event", \.event,
      "what happened, as the module wants it back: a replay hands it to the module again (`live`) so its state is what it was live"
    ),
  ]
}

private let factsExpected = "a list of {source, value} objects, with `asked` when one answers a question (§12)"
private let updatesExpected =
  "a list of at most \(ModuleProtocol.maximumUpdatesPerReply) windows, each {key, frame, text, state} (§15)"

/// The fields `result` and `ok` share: facts, the request's id, and protocol 2's timers, updates
/// and windows.
private protocol ReplyFields {
  var facts: [WireFact]? { get set }
  var divergence: String? { get set }
  var id: Int? { get set }
  var timers: [WireTimer]? { get set }
  var cancel: [String]? { get set }
  var updates: [WireUpdate]? { get set }
  var opened: [WireOpenedWindow]? { get set }
  var closed: [String]? { get set }
}

extension WireResult: ReplyFields {}
extension WireOk: ReplyFields {}

/// The fields `result` and `ok` share. Each reply hands over its own properties, so they are
/// read and written at their offsets (a key path through `ReplyFields`' requirements has none,
/// and costs a run-time projection on every reply).
private func replyFields<Reply: ReplyFields>(
  _ facts: WritableKeyPath<Reply, [WireFact]?> & Sendable, _ divergence: WritableKeyPath<Reply, String?> & Sendable,
  _ id: WritableKeyPath<Reply, Int?> & Sendable, _ timers: WritableKeyPath<Reply, [WireTimer]?> & Sendable,
  _ cancel: WritableKeyPath<Reply, [String]?> & Sendable, _ updates: WritableKeyPath<Reply, [WireUpdate]?> & Sendable,
  _ opened: WritableKeyPath<Reply, [WireOpenedWindow]?> & Sendable,
  _ closed: WritableKeyPath<Reply, [String]?> & Sendable
) -> [MessageField<Reply>] {
  [
    .structures("facts", facts, "the facts from outside the work used (§12)", expected: factsExpected),
    .text("divergence", divergence, "a replay asked for a fact the recording does not have (§12)"),
    .integer("id", id, minimum: 1, "the id of the request this answers; when present it must be that request's (§7)"),
    .structures(
      "timers", timers, "protocol 2: timers to set (or set again) on the session's clock (§14)",
      expected:
        "a list of {id, after} objects (or {id, at}): an id (text) and a delay in milliseconds from 0 to \(ModuleProtocol.maximumTimerDelay), or a time on the session's clock (§14)"
    ),
    .texts("cancel", cancel, "protocol 2: ids of timers to cancel (§14)", expected: "a list of timer ids (§14)"),
    .structures(
      "updates", updates, maximum: ModuleProtocol.maximumUpdatesPerReply,
      "protocol 2: other windows of the session whose frames changed (§15)", expected: updatesExpected),
    .structures("opened", opened, "protocol 2: windows the work opened, under keys the module chose (§17)"),
    .texts("closed", closed, "protocol 2: keys of windows the work closed (§17)"),
  ]
}

/// What a module sends (docs/protocol.md): one case a message type.
public enum ModuleMessage: Equatable, Sendable, WireWritable {
  case hello(WireHello)
  case result(WireResult)
  case ok(WireOk)
  case error(WireError)
  case changed(WireChanged)

  /// The message's `type` on the wire.
  public var type: String {
    switch self {
    case .hello: return "hello"
    case .result: return "result"
    case .ok: return "ok"
    case .error: return "error"
    case .changed: return "changed"
    }
  }

  /// The id of the request it answers, when it says.
  public var id: Int? {
    switch self {
    case .result(let reply): return reply.id
    case .ok(let reply): return reply.id
    case .error(let reply): return reply.id
    case .hello, .changed: return nil
    }
  }

  /// Reads a module's message.
  ///
  /// - Throws: `WireProblems` for a message without a known `type`, or fields that do not fit it.
  public init(wire value: FrameValue) throws(WireProblems) {
    switch value["type"]?.stringValue {
    case "hello": self = .hello(try WireHello(wire: value))
    case "result": self = .result(try WireResult(wire: value))
    case "ok": self = .ok(try WireOk(wire: value))
    case "error": self = .error(try WireError(wire: value))
    case "changed": self = .changed(try WireChanged(wire: value))
    case let type?:
      throw WireProblems(problems: ["a message the protocol has (hello, result, ok, error, changed), not `\(type)`"])
    case nil: throw WireProblems(problems: ["a message with a `type`, got \(WireProblems.excerpt(value))"])
    }
  }

  /// Reads a module's message straight from its JSON text, without the `FrameValue` between;
  /// `nil` unless the text is a well-formed message with its `type` first (anything else is
  /// parsed and read by `init(wire:)`, which says what is wrong). Where both read a text, they
  /// read the same message.
  public init?(json bytes: [UInt8]) {
    var cursor = JSONCursor(bytes: bytes)
    func read<Message: WireStructure>(_ make: (Message) -> Self) -> Self? {
      Message.readMessage(json: &cursor).map(make)
    }
    let message: Self?
    switch cursor.messageType() {
    case "hello": message = read(Self.hello)
    case "result": message = read(Self.result)
    case "ok": message = read(Self.ok)
    case "error": message = read(Self.error)
    case "changed": message = read(Self.changed)
    default: message = nil
    }
    guard let message else { return nil }
    self = message
  }

  /// The message on the wire, its `type` first.
  /// Appends the message's JSON (`type` first, then its fields), byte for byte what
  /// `wire.jsonText` gives, without making the `FrameValue` between.
  public func appendWire(to output: inout [UInt8]) {
    output += #"{"type":"#.utf8
    FrameValue.appendJSONString(type, to: &output)
    switch self {
    case .hello(let message): message.appendWireMembers(to: &output, first: false)
    case .result(let message): message.appendWireMembers(to: &output, first: false)
    case .ok(let message): message.appendWireMembers(to: &output, first: false)
    case .error(let message): message.appendWireMembers(to: &output, first: false)
    case .changed(let message): message.appendWireMembers(to: &output, first: false)
    }
    output.append(UInt8(ascii: "}"))
  }

  public var wire: FrameValue {
    let body: FrameValue
    switch self {
    case .hello(let message): body = message.wire
    case .result(let message): body = message.wire
    case .ok(let message): body = message.wire
    case .error(let message): body = message.wire
    case .changed(let message): body = message.wire
    }
    guard case .object(let object) = body else { return body }
    return .object(FrameObject(members: [("type", .string(type))] + object.members))
  }

  /// Each message type with the structure it carries, for the schema.
  static let kinds: [(type: String, structure: any WireStructure.Type, summary: String)] = [
    ("hello", WireHello.self, WireHello.summary), ("result", WireResult.self, WireResult.summary),
    ("ok", WireOk.self, WireOk.summary), ("error", WireError.self, WireError.summary),
    ("changed", WireChanged.self, WireChanged.summary),
  ]
}

extension ModuleMessage: Codable {
  public init(from decoder: any Decoder) throws { try self.init(wire: FrameValue(from: decoder)) }
  public func encode(to encoder: any Encoder) throws { try wire.encode(to: encoder) }
}
