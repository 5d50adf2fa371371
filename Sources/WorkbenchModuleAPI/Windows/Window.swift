/// A window's number, unique within a session and never reused.
public struct WindowID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The number users type (`@2`).
  public let number: Int

  /// The window numbered `number`.
  public init(_ number: Int) { self.number = number }

  public static func < (lhs: WindowID, rhs: WindowID) -> Bool { lhs.number < rhs.number }
  public var description: String { String(number) }
}

/// One window: a screen bound to a document, with its own view state.
@MainActor
public final class Window {
  /// The window's number.
  public let id: WindowID
  /// An optional name users can type instead of the number (`@left`).
  public package(set) var name: String?
  /// The screen it shows.
  package let screen: ScreenKind
  /// The name of the screen it shows (`catalog`).
  public var screenName: String { screen.name }
  /// The document it is bound to.
  public let documentName: String
  package let content: any WindowContent

  package init(id: WindowID, name: String?, screen: ScreenKind, documentName: String, content: any WindowContent) {
    self.id = id
    self.name = name
    self.screen = screen
    self.documentName = documentName
    self.content = content
  }

  /// The name if it has one, otherwise the number.
  public var label: String { name ?? String(id.number) }

  /// The window's current frame.
  public var frame: FrameValue { content.frame }
  /// The terminal text of the window: its screen's rendering of its frame (of the typed frame,
  /// for a screen that has one).
  package var text: String { screen.modelText?(content.model) ?? screen.render(frame) }

  /// The frame, and its text to render when wanted: for a screen with a typed frame and no
  /// frame stamp, both from one projection of the typed frame rather than one each (what a
  /// module kit compares and sends for every window a request may have changed).
  package var frameAndText: (frame: FrameValue, text: () -> String) {
    if content.frameStamp == nil, let both = screen.typed?.frameAndText(content.model) { return both }
    return (frame, { self.text })
  }

  /// The window's view state now, to compare with one taken later: whether something moved it,
  /// without encoding it.
  package var viewStateSnapshot: ViewStateSnapshot { content.viewStateSnapshot }

  /// A number that moves whenever the frame may have changed, or `nil` when the screen cannot
  /// say. Equal stamps of the same window mean the same frame.
  package var frameStamp: Int? { content.frameStamp }

  /// The frame projected from the model now, bypassing the kept one (tests check the stamps
  /// with it).
  package var projectedFrame: FrameValue { content.projectedFrame }

  /// The window's view state as JSON with sorted keys.
  package func viewStateJSON() throws -> String { try content.viewStateJSON() }

  /// The screen model, untyped: for the host's own parts (a module process's proxy screens),
  /// not for modules, which ask for the type they know (`model(as:)`).
  package var anyModel: AnyObject { content.model }

  /// The screen model, when it is of type `Model`: a screen's class, or a protocol a module's
  /// screens share.
  public func model<Model>(as type: Model.Type) -> Model? {
    content.model as? Model
  }
}
