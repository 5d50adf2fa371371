/// A window's interaction facts: what must survive reconstruction (a query, a selection, a
/// scroll anchor). A fresh window starts from `init()`.
public protocol ViewStateValue: Codable, Equatable, Sendable {
  /// The view state of a window that was just opened.
  init()
  /// The version of this type's stored form. Raise it when a change would make older code
  /// misread new records; records from a newer version are refused, not misread.
  static var version: Int { get }
  /// Turns a stored record of an older `version` into the current form, or `nil` when it
  /// cannot. Called once per version step (1 to 2, then 2 to 3, ...).
  static func migrate(_ state: FrameValue, from version: Int) -> FrameValue?
}

extension ViewStateValue {
  /// Version 1 unless the type says otherwise.
  public static var version: Int { 1 }

  /// No migrations unless the type says otherwise.
  public static func migrate(_ state: FrameValue, from version: Int) -> FrameValue? { nil }
}

/// Facts about where a screen is shown that are not view state: they belong to the session.
public struct ScreenEnvironment: Sendable {
  /// How many rows a list shows unless told otherwise.
  public static let defaultViewportRows = 20

  /// How many rows a list shows at once.
  public var viewportRows: Int
  /// The name of the document the window is bound to (set by the host when it opens one).
  public var documentName: String?
  /// The name of the screen the window shows (set by the host when it opens one).
  public var screenName: String?
  /// The session's shared objects, clock and scheduler. A host gives every window its own
  /// session's; an environment made outside a host has a private session on a virtual clock.
  public var services: SessionServices
  /// The number of the window the screen is made for (set by the host), which scopes the
  /// facts its effects use: `services.facts.value(of: "network.answer", in: factScope)`.
  package var windowNumber: Int?
  /// The revision of the document the window opens on, as the host holds it (a module process
  /// is told it as the window opens).
  package var documentRevision: Int?
  /// Where the session's clock reads zero on the calendar, when the session sets it before its
  /// windows open (a relaunch goes on from the date the last clock had got to); `nil`: the
  /// clock's own (the wall time on a real clock, the scenario default on a virtual one).
  package var calendarOrigin: CalendarDate?

  /// The scope of the facts this window's effects use: `window 3`.
  public var factScope: String { windowNumber.map { "window \($0)" } ?? "window" }

  /// An environment; lists show 20 rows unless told otherwise. Made outside a host (a unit
  /// test's screen), its session's time stays at zero and every fact is live.
  @MainActor
  public init(viewportRows: Int = ScreenEnvironment.defaultViewportRows, services: SessionServices? = nil) {
    self.viewportRows = viewportRows
    self.services = services ?? SessionServices()
  }

  /// An environment whose hosts share `facts` (a session that records or replays).
  @MainActor
  package init(viewportRows: Int = ScreenEnvironment.defaultViewportRows, facts: any OutsideFacts) {
    self.init(
      viewportRows: viewportRows,
      services: SessionServices(clock: StillTime(), facts: facts, scheduler: ConnectionScheduler()))
  }
}

/// The model behind one window: it owns a snapshot of the shared document and the window's
/// view state, keeps the invariants between them, and projects frames.
///
/// All access happens on the main actor, the one serial executor the host runs on.
@MainActor
public protocol ScreenModel: AnyObject {
  /// The kind of document the screen shows.
  associatedtype Document: DocumentBody
  /// The window's interaction facts.
  associatedtype State: ViewStateValue

  /// A screen on a document, starting from a view state that it reconciles at once.
  init(document: Document, viewState: State, environment: ScreenEnvironment)

  /// The document snapshot the screen shows.
  var document: Document { get }
  /// The window's view state.
  var viewState: State { get }
  /// The shared document changed: take the new snapshot and reconcile the view state.
  func documentReplaced(_ document: Document)
  /// Replace the view state (undo, restoration) and reconcile it against the document.
  func restore(_ viewState: State)
  /// The frame projected from the document and the view state.
  var frame: FrameValue { get }
  /// A number that moves whenever the frame may have changed, or `nil` when the screen cannot
  /// say (the default: its frame is projected every time it is asked for). While it stays, the
  /// window hands out its last frame, and a trace does not project the window again. A screen
  /// whose frame reads only its own stored properties bumps it in their `didSet`.
  var frameStamp: Int? { get }
  /// The top-level fields every frame of this screen has (its frame schema), or `nil` when the
  /// screen does not say. Scenarios are checked against it before they run: an expectation
  /// naming a field the screen does not declare is refused with a did-you-mean.
  static var frameFields: [String]? { get }
  /// What each frame field means, in a few words, by name (`"matches": "how many books the
  /// query leaves"`): what an editor shows over a field of an expectation. Empty when the screen
  /// does not say.
  static var frameFieldSummaries: [String: String] { get }
  /// Fields that count what happened in the window's life (loads started since it opened): a
  /// replay opens the window fresh and does not live that life again, so a recording leaves
  /// them out of the expectation it writes.
  static var lifetimeFields: [String] { get }
  /// Fields that show why the last command was refused (a message the screen displays): a
  /// refusal may change these and nothing else (`workbench explore` checks that it does not).
  static var refusalFields: [String] { get }
  /// Fields a window holds of its own, beyond its view state: what it loaded and how its loads
  /// went. Two windows on one document with one view state may differ there; everywhere else
  /// they agree once the session has settled (`workbench explore` checks that they do).
  static var ownFields: [String] { get }
  /// The document's revision, when the window opens and after every change. Screens that keep
  /// drafts compare it with the revision a draft was based on.
  func documentRevisionChanged(_ revision: Int)
  /// The window closed: cancel subscriptions and anything else the screen started.
  func windowClosed()
  /// The view state a window keeps after a command that failed: `before`, unless part of what
  /// the command attempted must stay (a message saying why it was refused, which the frame
  /// shows and a relaunch restores). The default keeps nothing of the attempt.
  func viewStateAfterFailure(before: State, attempted: State) -> State
  /// The window's unsaved work: the screen itself when it is `UnsavedWork`, else `nil` (known
  /// from the types, so the host never asks the runtime whether a model conforms).
  var unsavedWork: (any UnsavedWork)? { get }
}

extension ScreenModel {
  /// A failed command leaves no trace in the view state unless the screen says otherwise.
  public func viewStateAfterFailure(before: State, attempted: State) -> State { before }

  /// Unknown: the frame is projected whenever it is asked for.
  public var frameStamp: Int? { nil }

  /// Most screens do not need the revision.
  public func documentRevisionChanged(_ revision: Int) {}
  /// Most screens hold nothing to cancel.
  public func windowClosed() {}
  /// Undeclared: expectations on this screen are checked when they run, not before.
  public static var frameFields: [String]? { nil }
  /// Unsaid.
  public static var frameFieldSummaries: [String: String] { [:] }
  /// None: every field of the frame is restored as it was.
  public static var lifetimeFields: [String] { [] }
  /// None: a refused command changes no field.
  public static var refusalFields: [String] { [] }
  /// None: windows on one document with one view state show the same frame once settled.
  public static var ownFields: [String] { [] }
  /// Most screens keep no drafts.
  public var unsavedWork: (any UnsavedWork)? { nil }
}

extension ScreenModel where Self: UnsavedWork {
  /// A screen that keeps drafts is its own unsaved work.
  public var unsavedWork: (any UnsavedWork)? { self }
}
