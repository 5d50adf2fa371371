/// A change a screen hands back for the host to commit to its window's shared document.
public struct DocumentChange<Document: DocumentBody> {
  /// The new document.
  public let document: Document
  /// What changed, in words, for the document's history (`add a book`).
  public let summary: String

  /// A change to `document`, described by `summary`.
  public init(_ document: Document, summary: String) {
    self.document = document
    self.summary = summary
  }
}

/// A screen model driven by actions named for what happened (`queryChanged`, `completeTapped`,
/// `lightSwitched`), TCA's habit: a module's commands turn their words into one action each and
/// send it, so everything that can happen to a window is listed in one enum, and a test sends
/// the actions a user's commands would.
@MainActor
public protocol ActionHandling<Action>: ScreenModel {
  /// What can happen to the window.
  associatedtype Action
  /// Why an action is refused: a `CommandError`, or the module's own `UserFacingError`.
  associatedtype Failure: Error

  /// Takes in what happened; a refused action changes nothing and throws.
  ///
  /// - Returns: a change to the shared document for the host to commit, when the action made
  ///   one; `nil` when only this window changed.
  @discardableResult
  func send(_ action: Action) throws(Failure) -> DocumentChange<Document>?
}

/// The two kinds of command every module's screens have, written once: one that sends the
/// window's model an action, and one that commits a new version of the window's document. Each
/// runs in a window of the given screens and shows that window's frame.
public enum ScreenCommands {
  /// A command that sends `Model` the action `action` makes of its arguments (and the model,
  /// for a toggle), and commits the document change the model hands back, if any. (Inlinable,
  /// so each module's commands are specialized for its model rather than run generically.)
  @inlinable
  public static func sending<Model: ActionHandling>(
    _ name: String, to model: Model.Type, screens: [String], arguments: [any ArgumentDeclaration] = [],
    summary: String, details: String = "",
    action: @escaping @MainActor @Sendable (ParsedArguments, Model) throws -> Model.Action
  ) -> CommandSpec {
    CommandSpec(name, arguments: arguments, summary: summary, details: details, scope: .window(screens: screens)) {
      context in
      let model = try context.model(Model.self)
      try deliver(try action(context.arguments, model), to: model, context: context)
      return .frame(try context.requireWindow().id)
    }
  }

  /// A command that sends the action `action` makes of its arguments to whatever model the
  /// window has that takes `Action`: for a module whose screens share one action type over
  /// several model types (a live and a preview room).
  @inlinable
  public static func sending<Action>(
    _ name: String, for type: Action.Type, screens: [String], arguments: [any ArgumentDeclaration] = [],
    summary: String, details: String = "", action: @escaping @MainActor @Sendable (ParsedArguments) throws -> Action
  ) -> CommandSpec {
    CommandSpec(name, arguments: arguments, summary: summary, details: details, scope: .window(screens: screens)) {
      context in
      let window = try context.requireWindow()
      guard let model = window.model(as: (any ActionHandling<Action>).self) else {
        throw CommandError("window \(window.label) shows \(window.screenName), which has no such command")
      }
      try deliver(try action(context.arguments), to: model, context: context)
      return .frame(window.id)
    }
  }

  /// Sends `action` to `model` and commits the change it hands back.
  @MainActor @inlinable
  package static func deliver<Model: ActionHandling>(_ action: Model.Action, to model: Model, context: CommandContext)
    throws
  {
    if let change = try model.send(action) { try context.commit(change.document, summary: change.summary) }
  }

  /// A command that commits the document `edit` makes of its arguments and the window's
  /// document, as a change every window on the document is told of.
  @inlinable
  public static func editing<Model: ScreenModel>(
    _ name: String, in model: Model.Type, screens: [String], arguments: [any ArgumentDeclaration] = [],
    summary: String, details: String = "",
    edit: @escaping @MainActor @Sendable (ParsedArguments, Model.Document) throws -> DocumentChange<Model.Document>
  ) -> CommandSpec {
    CommandSpec(name, arguments: arguments, summary: summary, details: details, scope: .window(screens: screens)) {
      context in
      let change = try edit(context.arguments, try context.model(Model.self).document)
      try context.commit(change.document, summary: change.summary)
      return .frame(try context.requireWindow().id)
    }
  }
}
