import WorkbenchCore
import WorkbenchModuleAPI

// The structures messages are made of: timers, window updates, windows a command opened, facts,
// commits of a timer's work. Each is declared once as its fields (see `MessageField`).

/// A timer a module asks for (§14): due `after` milliseconds from the request's `now`, or `at` a
/// time on the session's clock.
public struct WireTimer: WireStructure {
  public var id = ""
  public var after: Int?
  public var at: Int?

  public init() {}
  public init(id: String, after: Int? = nil, at: Int? = nil) {
    self.id = id
    self.after = after
    self.at = at
  }

  public static let definitionName = "setTimer"
  public static let summary =
    "A timer on the session's clock: due `after` milliseconds from the request's `now`, or `at` a time on that clock (§14). Exactly one of the two."
  public static let fields: [MessageField<Self>] = [
    .text("id", \.id, "the module's name for the timer; set again under the same id, it replaces the one pending"),
    .integer(
      "after", \.after, minimum: 0, maximum: ModuleProtocol.maximumTimerDelay,
      "milliseconds from the request's `now` (the session's time when the host sent the request this answers)"),
    .integer("at", \.at, minimum: 0, "the time on the session's clock it is due, in milliseconds"),
  ]

  public func problems() -> [String] {
    guard !id.isEmpty else { return ["`id` as text that is not empty"] }
    return (after == nil) == (at == nil) ? ["one of `after` and `at`"] : []
  }
}

/// A window's new frame, text and view state (§15), in an update or a live change.
public struct WireUpdate: WireStructure {
  public var key = ""
  public var frame: FrameValue = .object(FrameObject())
  public var text = ""
  public var state = ""
  /// What the window holds unsaved (§20), or `nil`.
  public var unsaved: String?

  public init() {}
  public init(key: String, frame: FrameValue, text: String, state: String) {
    self.key = key
    self.frame = frame
    self.text = text
    self.state = state
  }

  public static let definitionName = "windowUpdate"
  public static let summary = "Another window of the session whose frame changed (§15)."
  public static let fields: [MessageField<Self>] = [
    .text("key", \.key, "the window, as the host names it"),
    .value("frame", \.frame, type: .anyObject, "the window's new frame"),
    .text("text", \.text, "the frame as text, for the terminal"),
    .text("state", \.state, "the window's view state as JSON text"),
    .textOrNull("unsaved", \.unsaved, required: false, "what the window holds unsaved, or null (§20)"),
  ]
}

/// A window a command or a timer opened in the module (§17), under a key the module chose.
public struct WireOpenedWindow: WireStructure {
  public var key = ""
  public var screen = ""
  public var document = ""
  public var name: String?
  public var frame: FrameValue = .object(FrameObject())
  public var text = ""
  public var state = ""

  public init() {}

  public static let definitionName = "openedWindow"
  public static let summary = "A window the module opened (§17): already open in the module under `key`."
  public static let fields: [MessageField<Self>] = [
    .text("key", \.key, "a key no other window of the session has"),
    .text("screen", \.screen),
    .text("document", \.document, "the document it shows (a command's: its window's document)"),
    .textOrNull("name", \.name, required: false, "the window's name, or null to number it"),
    .value("frame", \.frame, type: .anyObject),
    .text("text", \.text),
    .text("state", \.state, "its view state as JSON text"),
  ]
}

/// A fact a module's work used (§12), reported so a recording keeps it.
public struct WireFact: WireStructure {
  public var source = ""
  public var value: FrameValue = .null
  public var asked: FrameValue?
  public var window: String?
  public var scope: String?

  public init() {}

  public static let definitionName = "fact"
  public static let summary = "A fact from outside the work used (§12)."
  public static let fields: [MessageField<Self>] = [
    .text("source", \.source, "what kind of fact (`network.answer`)"),
    .value("value", \.value, "the value used"),
    .value("asked", \.asked, "the question it answers, when it answers one"),
    .text("window", \.window, "protocol 2: the window whose fact it is, by its key"),
    .text("scope", \.scope, "protocol 2: a scope the session shares (`network`)"),
  ]
}

/// What a request carries as `facts` (§12): the module reports the facts it uses while the
/// session records, and takes the recorded ones while it replays.
public struct WireFactsRequest: WireStructure {
  public var replay: FrameValue?
  public var shared: FrameValue?
  public var windows: FrameValue?
  public var start: Bool?
  public var again: Bool?

  public init() {}

  public static let definitionName = "factsRequest"
  public static let summary =
    "The facts a request carries (§12): empty while recording, the recorded ones left while replaying."
  public static let fields: [MessageField<Self>] = [
    .value(
      "replay", \.replay, type: .map(.list(.anyValue)), "the recorded facts left for the request's window, by source"),
    .value(
      "shared", \.shared, type: .map(.map(.list(.anyValue))),
      "protocol 2: the recorded facts left in scopes the session shares, by scope and source"),
    .value(
      "windows", \.windows, type: .map(.map(.list(.anyValue))),
      "protocol 2: the recorded facts left for each of the module's windows in the session, by key and source"),
    .boolean(
      "start", \.start,
      "protocol 2: a replay setting up the windows its recording started with: they load live; `shared` holds the recorded states"
    ),
    .boolean(
      "again", \.again,
      "protocol 2: windows opened again, served the answers the session already took (`replay`, `windows`): do not count "
        + "that work again, as for `start`"),
  ]
}

/// A document a timer's work changed (§14), saved compare-and-swap as a command's commit is.
public struct WireCommit: WireStructure {
  public var document = ""
  public var revision = 0
  public var body = ""

  public init() {}
  public init(document: String, revision: Int, body: String) {
    self.document = document
    self.revision = revision
    self.body = body
  }

  public static let definitionName = "documentCommit"
  public static let summary = "A document the work changed: saved only if it is still at `revision` (§14)."
  public static let fields: [MessageField<Self>] = [
    .text("document", \.document, "the document's name"),
    .integer("revision", \.revision, minimum: 0, "the revision the change was made from (as the host last sent it)"),
    .text("body", \.body, "the document as JSON text"),
  ]
}
