import WorkbenchCore

/// The editor's commands: edits to the window's draft, and saving, discarding and resolving it.
enum EditorCommands {
  static let screens = ["editor"]
  static let all = [title, append, insert, replace, delete, show, save, discard, resolve]

  private static func editing(
    _ name: String, arguments: [ArgumentSpec], summary: String,
    _ change: @escaping @MainActor @Sendable (EditorScreen, ParsedArguments) throws(TextValidationError) -> Void
  ) -> CommandSpec {
    CommandSpec(name, arguments: arguments, summary: summary, scope: .window(screens: screens)) { context in
      let screen = try context.model(EditorScreen.self)
      do throws(TextValidationError) {
        try change(screen, context.arguments)
      } catch {
        throw CommandError(error.message)
      }
      return .frame(try context.requireWindow().id)
    }
  }

  static let number = ArgumentSpec("line", .integer(), help: "a line number, from 1")
  static let text = ArgumentSpec("text", .rest, optional: true, help: "the text (may be empty)")

  static let title = editing(
    "title", arguments: [ArgumentSpec("title", .rest, help: "the new title")], summary: "Set the draft's title"
  ) { screen, arguments throws(TextValidationError) in try screen.setTitle(arguments.text("title") ?? "") }

  static let append = editing("append", arguments: [text], summary: "Add a line at the end of the draft") {
    screen, arguments throws(TextValidationError) in try screen.append(arguments.text("text") ?? "")
  }

  static let insert = editing(
    "insert", arguments: [number, text], summary: "Insert a line before line N (N = count + 1 appends)"
  ) { screen, arguments throws(TextValidationError) in
    try screen.insert(arguments.text("text") ?? "", at: arguments.integer("line") ?? 0)
  }

  static let replace = editing("replace", arguments: [number, text], summary: "Replace line N in the draft") {
    screen, arguments throws(TextValidationError) in
    try screen.replace(arguments.integer("line") ?? 0, with: arguments.text("text") ?? "")
  }

  static let delete = editing(
    "delete",
    arguments: [number, ArgumentSpec("through", .integer(), optional: true, help: "the last line of a range")],
    summary: "Delete line N, or lines N through M, from the draft"
  ) { screen, arguments throws(TextValidationError) in
    let first = arguments.integer("line") ?? 0
    try screen.delete(first, through: arguments.integer("through") ?? first)
  }

  static let show = CommandSpec(
    "lines", summary: "Show the body with line numbers", scope: .window(screens: screens)
  ) { context in
    let screen = try context.model(EditorScreen.self)
    let width = String(screen.lines.count).count
    let text = screen.lines.enumerated().map { index, line in
      let number = String(index + 1)
      return String(repeating: " ", count: width - number.count) + number + "  " + line
    }
    return .text(text.isEmpty ? "(no lines)" : text.joined(separator: "\n"))
  }

  /// The save use case: saved, rejected by validation, or conflicted.
  @MainActor static func save(_ screen: EditorScreen, context: CommandContext, overriding: Bool) throws(CommandError) {
    let (document, result) = screen.prepareSave(overriding: overriding)
    switch result {
    case .saved:
      guard let document else { return }
      try context.commit(document, summary: "save '\(document.title)'")
      screen.sessionEnded()
    case .rejected(let reason):
      throw CommandError("not saved: \(reason)")
    case .conflicted(let base, let current):
      throw CommandError(
        "not saved: the document moved to revision \(current) since this draft started from revision \(base); "
          + "your draft is kept: `resolve diff` to compare, `resolve keep` to save yours over it, "
          + "`resolve take` to drop yours")
    }
  }

  static let save = DraftCommands.save(
    screens: screens, summary: "Save the draft: saved, rejected (with the reason) or conflicted (draft kept)")

  static let discard = DraftCommands.discard(
    screens: screens, summary: "Drop the draft; the window shows the document again")

  static let resolve = CommandSpec(
    "resolve",
    arguments: [
      ArgumentSpec(
        "choice", .choice(["diff", "keep", "take"]),
        help: "diff: compare the versions; keep: save yours over the newer one; take: drop yours")
    ],
    summary: "Resolve a save conflict", scope: .window(screens: screens)
  ) { context in
    let screen = try context.model(EditorScreen.self)
    guard screen.conflict != nil else { throw CommandError("there is no conflict to resolve in this window") }
    switch context.arguments.text("choice") {
    case "diff":
      let lines = ["--- revision \(screen.revision) (theirs)", "+++ your draft"] + screen.conflictDiff()
      return .text(lines.joined(separator: "\n"))
    case "keep":
      try save(screen, context: context, overriding: true)
    default:
      screen.sessionEnded()
    }
    return .frame(try context.requireWindow().id)
  }
}
