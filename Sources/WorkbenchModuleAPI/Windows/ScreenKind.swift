/// A registered screen: which module, which document kind, how its frames render as text,
/// and how to build its model. A class: it is handed about with every window and resolved
/// command, and a copy of a struct of closures costs a retain for each.
package final class ScreenKind: Sendable {
  /// The screen's name (`catalog`), used by `open`.
  package let name: String
  /// The module that registered it.
  package let module: String
  /// The document kind it shows.
  package let documentKind: String
  /// One line that says what it shows.
  package let summary: String
  /// The terminal text of a frame of this screen.
  package let render: @Sendable (FrameValue) -> String
  /// The terminal text of a window's model, when the model can give it without its frame being
  /// read back: a typed frame's rendering, a module process's own text for the frame it sent.
  /// `nil` (or a `nil` text) renders the frame's value.
  package let modelText: (@MainActor @Sendable (AnyObject) -> String?)?
  /// What a screen with a typed frame (a `FramedScreen`) does from its model's typed frame;
  /// `nil` for a screen without one.
  package let typed: Typed?

  /// The typed frame's work, on a window's model (the `AnyObject` a window holds).
  package struct Typed: Sendable {
    /// The model's frame, and its text to render when wanted, from one projection of its
    /// typed frame.
    package let frameAndText: @MainActor @Sendable (AnyObject) -> (frame: FrameValue, text: () -> String)?
  }
  /// The fields of its frames with the fields inside them, and what each means: a typed frame's
  /// table, or what a module process declared in its handshake; `nil` when the screen does not
  /// say. Made when asked for (an editor's completion), never at start.
  package let fieldSchema: (@Sendable () -> [FrameFieldSchema])?
  /// Its frames' fields and their roles, made the first time one is read.
  package let fieldLists: FieldLists
  /// The top-level fields its frames have (see `ScreenModel.frameFields`), when declared.
  @MainActor package var frameFields: [String]? { fieldLists.lists.frame }
  /// Fields that count what happened in a window's life (see `ScreenModel.lifetimeFields`).
  @MainActor package var lifetimeFields: [String] { fieldLists.lists.lifetime }
  /// Fields that show why the last command was refused (see `ScreenModel.refusalFields`).
  @MainActor package var refusalFields: [String] { fieldLists.lists.refusal }
  /// Fields a window holds of its own (see `ScreenModel.ownFields`).
  @MainActor package var ownFields: [String] { fieldLists.lists.own }
  /// What each frame field means, by name (see `ScreenModel.frameFieldSummaries`): asked for
  /// when wanted (an editor's hover), never at start.
  package let fieldSummaries: @MainActor @Sendable () -> [String: String]
  package let make: @MainActor @Sendable (any DocumentBody, ScreenEnvironment) -> (any WindowContent)?

  package init(
    name: String, module: String, documentKind: String, summary: String,
    render: @escaping @Sendable (FrameValue) -> String,
    modelText: (@MainActor @Sendable (AnyObject) -> String?)?, typed: Typed?,
    fieldSchema: (@Sendable () -> [FrameFieldSchema])?, fieldLists: FieldLists,
    fieldSummaries: @escaping @MainActor @Sendable () -> [String: String],
    make: @escaping @MainActor @Sendable (any DocumentBody, ScreenEnvironment) -> (any WindowContent)?
  ) {
    self.name = name
    self.module = module
    self.documentKind = documentKind
    self.summary = summary
    self.render = render
    self.modelText = modelText
    self.typed = typed
    self.fieldSchema = fieldSchema
    self.fieldLists = fieldLists
    self.fieldSummaries = fieldSummaries
    self.make = make
  }
}

extension ScreenKind {
  /// A screen's field lists, made from its model's declaration the first time one is read: a
  /// typed frame's table (its fields' key paths) is made then, not as the module registers, so a
  /// start that only shows text never makes it.
  @MainActor package final class FieldLists: Sendable {
    package struct Lists {
      package var frame: [String]?
      package var lifetime: [String]
      package var refusal: [String]
      package var own: [String]
    }

    private let make: @MainActor () -> Lists
    private var made: Lists?

    package init(_ make: @escaping @MainActor () -> Lists) { self.make = make }

    package var lists: Lists {
      if let made { return made }
      let lists = make()
      made = lists
      return lists
    }
  }
}
