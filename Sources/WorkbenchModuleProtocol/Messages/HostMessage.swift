import WorkbenchCore
import WorkbenchModuleAPI

/// The fields every request of the host's has: its number, the session it is about, and the
/// session's time when it was sent.
public protocol WireRequestHeader {
  var id: Int? { get set }
  var session: Int? { get set }
  var now: Int? { get set }
  var date: Int? { get set }
}

extension MessageField {
  /// `id`, `session` and `now`, declared once for every request. Each request hands over its own
  /// properties, so they are read and written at their offsets (a key path through
  /// `WireRequestHeader`'s requirements has none, and costs a run-time projection on every
  /// message).
  static func header(
    _ id: WritableKeyPath<Message, Int?> & Sendable, _ session: WritableKeyPath<Message, Int?> & Sendable,
    _ now: WritableKeyPath<Message, Int?> & Sendable, _ date: WritableKeyPath<Message, Int?> & Sendable
  ) -> [Self] {
    [
      .integer(
        "id", id, minimum: 1,
        "the request's number, counting from 1 for each module process; a reply carries it back (§7)"),
      .integer(
        "session", session, minimum: 1,
        "protocol 2: the host session the request is about; the module keeps each session's state (windows, clock, services) apart (§16)"
      ),
      .integer(
        "now", now, minimum: 0,
        "protocol 2: the session's time when the request was sent, in milliseconds since the session started (the virtual clock of a scenario, real time in the shell); a timer's `after` counts from it (§14)"
      ),
      .integer(
        "date", date,
        "protocol 2: `now` on the calendar, in milliseconds since 1970-01-01T00:00:00Z (UTC): the wall time the shell session started at plus `now`, or a scenario's `date:` plus `now`, so a replay reads the recording's dates (§14)"
      ),
    ]
  }
}

/// `open`, `refresh` and `restore`: a window, its document and its view state.
public struct WindowRequest: WireStructure, WireRequestHeader {
  public var key = ""
  public var screen = ""
  public var document = ""
  public var kind = ""
  public var revision = 1
  /// The view state as JSON text; `nil` for a new window.
  public var state: String?
  /// The document as JSON text; `nil` when the module holds it as it is.
  public var body: String?
  /// How many rows the window shows (protocol 2, `open` and `restore`).
  public var rows: Int?
  public var facts: WireFactsRequest?
  /// Protocol 2, `restore` after `undo view` or `redo view`: the window's timers the step puts
  /// back (`at` the time each was due), and the ones it takes away (§18).
  public var timers: [WireTimer]?
  public var cancel: [String]?
  public var id: Int?
  public var session: Int?
  public var now: Int?
  public var date: Int?

  public init() {}

  public static let definitionName = "windowRequest"
  public static let summary =
    "A window: the module makes or keeps its screen model on the document with the view state, and replies with a `result`."
  public static let fields: [MessageField<Self>] =
    [
      .text("key", \.key, "the window, as the host names it"),
      .text("screen", \.screen, "the screen it shows"),
      .text("document", \.document, "the document it shows"),
      .text("kind", \.kind, "the document's kind"),
      .integer("revision", \.revision, minimum: 0, "the document's revision"),
      .textOrNull("state", \.state, "the window's view state as JSON text, or null for a new window"),
      .text("body", \.body, "the document as JSON text; left out when the module already holds this revision"),
      .integer(
        "rows", \.rows, minimum: 1,
        "protocol 2, with `open` and `restore`: how many rows a window shows at once (`--rows`, a scenario's `rows:`)"),
      .structure("facts", \.facts, "while the session records or replays (§12)"),
      .structures(
        "timers", \.timers,
        "protocol 2, with `restore`: timers of the window that an undo or redo puts back, each `at` its time (§18)"),
      .texts(
        "cancel", \.cancel, "protocol 2, with `restore`: ids of the window's timers an undo or redo takes away (§18)"),
    ] + MessageField<Self>.header(\.id, \.session, \.now, \.date)
}

/// `command`: a line to run, in a window (with its fields) or, protocol 2, in no window.
public struct CommandRequest: WireStructure, WireRequestHeader {
  public var key: String?
  public var screen: String?
  public var document: String?
  public var kind: String?
  public var revision: Int?
  public var state: String?
  public var body: String?
  /// Protocol 2: the command's full name as the module registered it (`network fail` for a
  /// subcommand), so a kit finds the command without reading the line.
  public var command: String?
  /// Protocol 2: the command's spec path as the module registered it (`["network", "fail"]`),
  /// to find the command by, name by name.
  public var path: [String]?
  /// The line as typed (its words after the command's name are its arguments).
  public var line = ""
  /// The arguments the host bound from the line against the command's spec, by name: a number
  /// as a number, a word or the rest of the line as text, a left-out optional one absent.
  public var arguments: FrameValue?
  /// Protocol 2: each `window` argument that names one of the module's own windows, by the
  /// argument's name: that window's key (`{"other": "k3"}`).
  public var windows: FrameValue?
  public var facts: WireFactsRequest?
  public var id: Int?
  public var session: Int?
  public var now: Int?
  public var date: Int?

  public init() {}

  public static let definitionName = "commandRequest"
  public static let summary =
    "A command line, in a window (with the window's fields) or, protocol 2, in no window (`line` and `session` only)."
  public static let fields: [MessageField<Self>] =
    [
      .text("key", \.key, "the window it runs in; left out for a command run in no window (§16)"),
      .text("screen", \.screen),
      .text("document", \.document),
      .text("kind", \.kind),
      .integer("revision", \.revision, minimum: 0),
      .textOrNull("state", \.state, required: false, "the window's view state as JSON text"),
      .text("body", \.body, "the document as JSON text; left out when the module already holds this revision"),
      .text(
        "command", \.command,
        "protocol 2: the command's full name as the module registered it (`network fail`), to find the command by"),
      .texts(
        "path", \.path,
        "protocol 2: the command's spec path as the module registered it (`[\"network\", \"fail\"]`), to find the command by"
      ),
      .text("line", \.line, "the command as the host writes it: its name (and subcommand), then its arguments"),
      .value(
        "arguments", \.arguments, type: .anyObject,
        "the arguments as the host bound them against the command's spec, by name: integers as numbers, words and rests as text; an optional one left out is absent"
      ),
      .value(
        "windows", \.windows, type: .anyObject,
        "protocol 2: each window argument that names one of the module's own windows, by the argument's name: that window's key"
      ),
      .structure("facts", \.facts, "while the session records or replays (§12)"),
    ] + MessageField<Self>.header(\.id, \.session, \.now, \.date)
}

extension CommandRequest {
  /// A command line in the window `window` names, with its fields, session and facts.
  public init(_ line: String, arguments: FrameValue?, in window: WindowRequest) {
    key = window.key
    screen = window.screen
    document = window.document
    kind = window.kind
    revision = window.revision
    state = window.state
    body = window.body
    self.line = line
    self.arguments = arguments
    session = window.session
    facts = window.facts
  }
}

/// `close`: the window closed.
public struct CloseRequest: WireStructure, WireRequestHeader {
  public var key = ""
  public var id: Int?
  public var session: Int?
  public var now: Int?
  public var date: Int?

  public init() {}

  public static let definitionName = "closeRequest"
  public static let summary = "The window closed: the module drops it and replies `ok`."
  public static let fields: [MessageField<Self>] =
    [.text("key", \.key, "the window")] + MessageField<Self>.header(\.id, \.session, \.now, \.date)
}

/// `leave`: what to do with a window's unsaved work (protocol 2, §20): `save` it to the
/// document, or `discard` it. Answered with a `result` (its `commit` when saved, `unsaved` gone),
/// or an `error` when it cannot be saved (then nothing changes).
public struct LeaveRequest: WireStructure, WireRequestHeader {
  public var key = ""
  public var choice = ""
  public var id: Int?
  public var session: Int?
  public var now: Int?
  public var date: Int?

  public init() {}
  public init(key: String, choice: String) {
    self.key = key
    self.choice = choice
  }

  public static let definitionName = "leaveRequest"
  public static let summary =
    "The user chose what to do with a window's unsaved work: `save` it (a `result` with its `commit`) or `discard` it."
  public static let fields: [MessageField<Self>] =
    [
      .text("key", \.key, "the window"),
      .text("choice", \.choice, "`save` or `discard`"),
    ] + MessageField<Self>.header(\.id, \.session, \.now, \.date)

  public func problems() -> [String] {
    ["save", "discard"].contains(choice) ? [] : ["`choice` as `save` or `discard`"]
  }
}

/// `timer`: a timer the module set is due (protocol 2, §14).
public struct TimerRequest: WireStructure, WireRequestHeader {
  /// The id the module gave it.
  public var timer = ""
  public var facts: WireFactsRequest?
  public var id: Int?
  public var session: Int?
  public var now: Int?
  public var date: Int?

  public init() {}

  public static let definitionName = "timerRequest"
  public static let summary =
    "A timer the module set is due: the module does what it waited for and replies `ok`, with what it changed (§14)."
  public static let fields: [MessageField<Self>] =
    [
      .text("timer", \.timer, "the id the module gave the timer"),
      .structure("facts", \.facts, "while the session records or replays (§12)"),
    ] + MessageField<Self>.header(\.id, \.session, \.now, \.date)

  public func problems() -> [String] { session == nil ? ["`session` as a whole number of at least 1"] : [] }
}

/// `end`, `capture` and `sync`: about a session as a whole (protocol 2).
public struct SessionRequest: WireStructure, WireRequestHeader {
  public var id: Int?
  public var session: Int?
  public var now: Int?
  public var date: Int?

  public init() {}

  public static let definitionName = "sessionRequest"
  public static let summary =
    "About a session as a whole: its end (§16), the states a recording starts from (§12), or the changes its live sources saw (§19)."
  public static let fields: [MessageField<Self>] = MessageField<Self>.header(\.id, \.session, \.now, \.date)

  public func problems() -> [String] { session == nil ? ["`session` as a whole number of at least 1"] : [] }
}

/// `live`: changes a live source saw while the session was recorded, handed back on replay
/// (protocol 2, §19), so the module's state is what it was live.
public struct LiveRequest: WireStructure, WireRequestHeader {
  /// Each change's `event`, as the module sent it, in order.
  public var events: FrameValue = .list([])
  public var id: Int?
  public var session: Int?
  public var now: Int?
  public var date: Int?

  public init() {}

  public static let definitionName = "liveRequest"
  public static let summary =
    "A replay's live step: the events the module's `changed` messages carried when the session was recorded, to apply as if its live sources saw them again; the module replies `ok` with the windows that changed (§19)."
  public static let fields: [MessageField<Self>] =
    [.value("events", \.events, type: .list(.anyValue), "each recorded change's `event`, in order")]
    + MessageField<Self>.header(\.id, \.session, \.now, \.date)

  public func problems() -> [String] { session == nil ? ["`session` as a whole number of at least 1"] : [] }
}

/// `validate` (reserved, §13).
public struct ValidateRequest: WireStructure, WireRequestHeader {
  public var kind = ""
  public var body = ""
  public var id: Int?
  public var session: Int?
  public var now: Int?
  public var date: Int?

  public init() {}

  public static let definitionName = "validateRequest"
  public static let summary = "Reserved (§13): whether a document of a kind is valid."
  public static let fields: [MessageField<Self>] =
    [.text("kind", \.kind), .text("body", \.body)] + MessageField<Self>.header(\.id, \.session, \.now, \.date)
}

/// What the host sends a module (docs/protocol.md): one case a request type.
public enum HostMessage: Equatable, Sendable, WireWritable {
  case open(WindowRequest)
  case refresh(WindowRequest)
  case restore(WindowRequest)
  case command(CommandRequest)
  case close(CloseRequest)
  case timer(TimerRequest)
  case end(SessionRequest)
  case capture(SessionRequest)
  case sync(SessionRequest)
  case live(LiveRequest)
  case validate(ValidateRequest)
  case leave(LeaveRequest)

  /// The request's `type` on the wire.
  public var type: String {
    switch self {
    case .open: return "open"
    case .refresh: return "refresh"
    case .restore: return "restore"
    case .command: return "command"
    case .close: return "close"
    case .timer: return "timer"
    case .end: return "end"
    case .capture: return "capture"
    case .sync: return "sync"
    case .live: return "live"
    case .validate: return "validate"
    case .leave: return "leave"
    }
  }

  /// The rules a reply is held to: a `command` without a `key` is one run in no window.
  public var replyRule: String {
    if case .command(let request) = self, request.key == nil { return ReplyRules.commandInNoWindow }
    return type
  }

  /// The header every request has.
  public var header: (id: Int?, session: Int?, now: Int?, date: Int?) {
    switch self {
    case .open(let request), .refresh(let request), .restore(let request):
      return (request.id, request.session, request.now, request.date)
    case .command(let request): return (request.id, request.session, request.now, request.date)
    case .close(let request): return (request.id, request.session, request.now, request.date)
    case .timer(let request): return (request.id, request.session, request.now, request.date)
    case .end(let request), .capture(let request), .sync(let request):
      return (request.id, request.session, request.now, request.date)
    case .live(let request): return (request.id, request.session, request.now, request.date)
    case .validate(let request): return (request.id, request.session, request.now, request.date)
    case .leave(let request): return (request.id, request.session, request.now, request.date)
    }
  }

  /// The request with its number, session, time and date set (those given).
  public func with(id: Int? = nil, session: Int? = nil, now: Int? = nil, date: Int? = nil) -> HostMessage {
    func set<Request: WireRequestHeader>(_ request: Request) -> Request {
      var request = request
      if let id { request.id = id }
      if let session { request.session = session }
      if let now { request.now = now }
      if let date { request.date = date }
      return request
    }
    switch self {
    case .open(let request): return .open(set(request))
    case .refresh(let request): return .refresh(set(request))
    case .restore(let request): return .restore(set(request))
    case .command(let request): return .command(set(request))
    case .close(let request): return .close(set(request))
    case .timer(let request): return .timer(set(request))
    case .end(let request): return .end(set(request))
    case .capture(let request): return .capture(set(request))
    case .sync(let request): return .sync(set(request))
    case .live(let request): return .live(set(request))
    case .validate(let request): return .validate(set(request))
    case .leave(let request): return .leave(set(request))
    }
  }

  /// Reads a request.
  ///
  /// - Throws: `WireProblems` for a `type` no request has, or fields that do not fit it.
  public init(wire value: FrameValue) throws(WireProblems) {
    switch value["type"]?.stringValue {
    case "open": self = .open(try WindowRequest(wire: value))
    case "refresh": self = .refresh(try WindowRequest(wire: value))
    case "restore": self = .restore(try WindowRequest(wire: value))
    case "command": self = .command(try CommandRequest(wire: value))
    case "close": self = .close(try CloseRequest(wire: value))
    case "timer": self = .timer(try TimerRequest(wire: value))
    case "end": self = .end(try SessionRequest(wire: value))
    case "capture": self = .capture(try SessionRequest(wire: value))
    case "sync": self = .sync(try SessionRequest(wire: value))
    case "live": self = .live(try LiveRequest(wire: value))
    case "validate": self = .validate(try ValidateRequest(wire: value))
    case "leave": self = .leave(try LeaveRequest(wire: value))
    case let type?: throw WireProblems(problems: ["a request the protocol has, not `\(type)`"])
    case nil: throw WireProblems(problems: ["a request with a `type`, got \(WireProblems.excerpt(value))"])
    }
  }

  /// Reads a request straight from its JSON text, without the `FrameValue` between; `nil`
  /// unless the text is a well-formed request with its `type` first (anything else is parsed
  /// and read by `init(wire:)`, which says what is wrong). Where both read a text, they read the
  /// same request.
  public init?(json bytes: [UInt8]) {
    var cursor = JSONCursor(bytes: bytes)
    func read<Request: WireStructure>(_ make: (Request) -> Self) -> Self? {
      Request.readMessage(json: &cursor).map(make)
    }
    let request: Self?
    switch cursor.messageType() {
    case "open": request = read(Self.open)
    case "refresh": request = read(Self.refresh)
    case "restore": request = read(Self.restore)
    case "command": request = read(Self.command)
    case "close": request = read(Self.close)
    case "timer": request = read(Self.timer)
    case "end": request = read(Self.end)
    case "capture": request = read(Self.capture)
    case "sync": request = read(Self.sync)
    case "live": request = read(Self.live)
    case "validate": request = read(Self.validate)
    case "leave": request = read(Self.leave)
    default: request = nil
    }
    guard let request else { return nil }
    self = request
  }

  /// The request on the wire, its `type` first.
  /// Appends the message's JSON (`type` first, then its fields), byte for byte what
  /// `wire.jsonText` gives, without making the `FrameValue` between.
  public func appendWire(to output: inout [UInt8]) {
    output += #"{"type":"#.utf8
    FrameValue.appendJSONString(type, to: &output)
    switch self {
    case .open(let request), .refresh(let request), .restore(let request):
      request.appendWireMembers(to: &output, first: false)
    case .command(let request): request.appendWireMembers(to: &output, first: false)
    case .close(let request): request.appendWireMembers(to: &output, first: false)
    case .timer(let request): request.appendWireMembers(to: &output, first: false)
    case .end(let request), .capture(let request), .sync(let request):
      request.appendWireMembers(to: &output, first: false)
    case .live(let request): request.appendWireMembers(to: &output, first: false)
    case .validate(let request): request.appendWireMembers(to: &output, first: false)
    case .leave(let request): request.appendWireMembers(to: &output, first: false)
    }
    output.append(UInt8(ascii: "}"))
  }

  public var wire: FrameValue {
    let body: FrameValue
    switch self {
    case .open(let request), .refresh(let request), .restore(let request): body = request.wire
    case .command(let request): body = request.wire
    case .close(let request): body = request.wire
    case .timer(let request): body = request.wire
    case .end(let request), .capture(let request), .sync(let request): body = request.wire
    case .live(let request): body = request.wire
    case .validate(let request): body = request.wire
    case .leave(let request): body = request.wire
    }
    guard case .object(let object) = body else { return body }
    return .object(FrameObject(members: [("type", .string(type))] + object.members))
  }

  /// The requests only protocol 2 has: each names its session.
  static let namingSessions: Set<String> = ["restore", "timer", "end", "capture", "sync", "live", "leave"]

  /// Each request type with the structure it carries, for the schema.
  static let kinds: [(type: String, structure: any WireStructure.Type, summary: String)] = [
    (
      "open", WindowRequest.self,
      "Open a window: the module makes its screen model on the document with the view state (a new window when `state` is null) and replies with a `result` (§4)."
    ),
    (
      "command", CommandRequest.self,
      "Run a command line in a window, or (protocol 2) in no window; a `result` (or `ok` in no window) answers (§5, §16)."
    ),
    (
      "leave", LeaveRequest.self,
      "Protocol 2: what to do with a window's unsaved work, `save` (a `result` with its `commit`) or `discard` (§20)."
    ),
    (
      "refresh", WindowRequest.self,
      "The window's document changed elsewhere: a `result` with the window as it is now (§6)."
    ),
    (
      "restore", WindowRequest.self,
      "Protocol 2: the host restored the open window's view state; take it in place and reply with a `result` (§18)."
    ),
    ("close", CloseRequest.self, "The window closed: `ok` (§8)."),
    ("timer", TimerRequest.self, "Protocol 2: a timer the module set is due; `ok` with what the work changed (§14)."),
    ("end", SessionRequest.self, "Protocol 2: the session ended; let go of what it kept, `ok` (§16)."),
    (
      "capture", SessionRequest.self,
      "Protocol 2: a recording starts; `ok` with the states of the session's services as facts (§12)."
    ),
    (
      "sync", SessionRequest.self,
      "Protocol 2, for a module with live sources: send now, before the `ok`, every change they saw and have not sent (§19)."
    ),
    (
      "live", LiveRequest.self,
      "Protocol 2: a replay's live step hands back the events the recorded changes carried; apply them and reply `ok` with the windows that changed (§19)."
    ),
    ("validate", ValidateRequest.self, "Reserved (§13)."),
  ]
}

extension HostMessage: Codable {
  public init(from decoder: any Decoder) throws { try self.init(wire: FrameValue(from: decoder)) }
  public func encode(to encoder: any Encoder) throws { try wire.encode(to: encoder) }
}
