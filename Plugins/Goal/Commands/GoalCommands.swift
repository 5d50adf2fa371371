import WorkbenchCore

/// The goal's commands: complete and retarget through the window's controller, save and
/// discard its draft.
enum GoalCommands {
  static let screens = ["goal"]
  static let all = [complete, target, save, discard]

  static let complete = CommandSpec(
    "complete", summary: "Complete one book: on the shared goal, or on this window's draft",
    details: "Completing past the target is rejected with a message, whoever asks.", scope: .window(screens: screens)
  ) { context in
    let screen = try context.model(GoalScreen.self)
    let committed = try screen.completeTapped()
    if let committed { try context.commit(committed, summary: "complete a book") }
    return .frame(try context.requireWindow().id)
  }

  static let books = Argument<Int>.integer("books", help: "the new target, 1 or more")

  static let target = CommandSpec(
    "target", arguments: [books],
    summary: "Set a new target in this window's draft (saved only by `save`)", scope: .window(screens: screens)
  ) { context in
    let screen = try context.model(GoalScreen.self)
    try screen.targetChosen(context.arguments[books])
    return .frame(try context.requireWindow().id)
  }

  static let save = DraftCommands.save(
    screens: screens, summary: "Save this window's draft as the shared goal", force: "replace a goal that moved")

  static let discard = DraftCommands.discard(
    screens: screens, summary: "Drop this window's draft; the shared goal is unchanged")
}
