/// A registered screen: which module, which document kind, how its frames render as text,
/// and how to build its model.
public struct ScreenKind: Sendable {
  /// The screen's name (`catalog`), used by `open`.
  public let name: String
  /// The module that registered it.
  public let module: String
  /// The document kind it shows.
  public let documentKind: String
  /// One line that says what it shows.
  public let summary: String
  /// The terminal text of a frame of this screen.
  public let render: @Sendable (FrameValue) -> String
  /// The terminal text of a window's model, when the model can give it without its frame being
  /// read back: a typed frame's rendering, a module process's own text for the frame it sent.
  /// `nil` (or a `nil` text) renders the frame's value.
  let modelText: (@MainActor @Sendable (AnyObject) -> String?)?
  /// What a screen with a typed frame (a `FramedScreen`) does from its model's typed frame;
  /// `nil` for a screen without one.
  let typed: Typed?

  /// The typed frame's work, on a window's model (the `AnyObject` a window holds).
  struct Typed: Sendable {
    /// The model's frame, and its text to render when wanted, from one projection of its
    /// typed frame.
    let frameAndText: @MainActor @Sendable (AnyObject) -> (frame: FrameValue, text: () -> String)?
  }
  /// The fields of its frames with the fields inside them, and what each means: a typed frame's
  /// table, or what a module process declared in its handshake; `nil` when the screen does not
  /// say. Made when asked for (an editor's completion), never at start.
  let fieldSchema: (@Sendable () -> [FrameFieldSchema])?
  /// The top-level fields its frames have (see `ScreenModel.frameFields`), when declared.
  public let frameFields: [String]?
  /// Fields that count what happened in a window's life (see `ScreenModel.lifetimeFields`).
  public var lifetimeFields: [String] = []
  /// Fields that show why the last command was refused (see `ScreenModel.refusalFields`).
  public var refusalFields: [String] = []
  /// Fields a window holds of its own (see `ScreenModel.ownFields`).
  public var ownFields: [String] = []
  /// What each frame field means, by name (see `ScreenModel.frameFieldSummaries`): asked for
  /// when wanted (an editor's hover), never at start.
  public var fieldSummaries: @MainActor @Sendable () -> [String: String] = { [:] }
  let make: @MainActor @Sendable (any DocumentBody, ScreenEnvironment) -> (any WindowContent)?
}
