import WorkbenchModuleAPI

/// The goal's commands: complete and retarget as actions sent to the window's controller,
/// save and discard its draft.
enum GoalCommands {
  static let screens = ["goal"]
  static let all = [complete, target, save, discard]

  static let complete = ScreenCommands.sending(
    "complete", to: GoalScreen.self, screens: screens,
    summary: "Complete one book: on the shared goal, or on this window's draft",
    details: "Completing past the target is rejected with a message, whoever asks."
  ) { _, _ in .completeTapped }

  static let books = Argument<Int>.integer("books", help: "the new target, 1 or more")

  static let target = ScreenCommands.sending(
    "target", to: GoalScreen.self, screens: screens, arguments: [books],
    summary: "Set a new target in this window's draft (saved only by `save`)"
  ) { arguments, _ in .targetChosen(arguments[books]) }

  static let save = DraftCommands.save(
    screens: screens, summary: "Save this window's draft as the shared goal", force: "replace a goal that moved")

  static let discard = DraftCommands.discard(
    screens: screens, summary: "Drop this window's draft; the shared goal is unchanged")
}
