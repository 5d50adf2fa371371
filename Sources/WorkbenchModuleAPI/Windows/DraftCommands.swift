/// The `save` and `discard` commands of screens that hold a draft, written once on
/// `UnsavedWork`: the same words, checks and messages for every such screen, and the same path
/// the host takes when a window with a draft is closed or the session ends.
public enum DraftCommands {
  /// `save`: saves the window's draft to its document (`UnsavedWork.saveUnsavedWork`).
  ///
  /// - Parameter force: when given, the command takes an optional `force` word, which saves
  ///   over a document that moved since the draft started (`UnsavedWork.forceSaveUnsavedWork`).
  public static func save(screens: [String], summary: String, details: String = "", force: String? = nil)
    -> CommandSpec
  {
    let forceWord = Argument<String>.choice("force", ["force"], help: force ?? "").optional
    return CommandSpec(
      "save", arguments: force == nil ? [] : [forceWord], summary: summary, details: details,
      scope: .window(screens: screens)
    ) { context in
      // Whether there is anything to save is the screen's to say, in its own words.
      let (window, work) = try unsavedWork(in: context)
      if force != nil, context.arguments[forceWord] == "force" {
        try work.forceSaveUnsavedWork(context)
      } else {
        try work.saveUnsavedWork(context)
      }
      return .frame(window.id)
    }
  }

  /// `discard`: drops the window's draft; the document is unchanged.
  public static func discard(screens: [String], summary: String) -> CommandSpec {
    CommandSpec("discard", summary: summary, scope: .window(screens: screens)) { context in
      let (window, work) = try unsavedWork(in: context)
      guard work.hasDraft else { throw CommandError("there is no draft to discard in this window") }
      work.discardUnsavedWork()
      return .frame(window.id)
    }
  }

  /// The window and its screen's unsaved work.
  @MainActor
  private static func unsavedWork(in context: CommandContext) throws(CommandError) -> (Window, any UnsavedWork) {
    let window = try context.requireWindow()
    guard let work = window.content.unsavedWork else {
      throw CommandError("window \(window.label) shows \(window.screen.name), which has no drafts")
    }
    return (window, work)
  }
}
