import WorkbenchModuleAPI

/// The editor's commands: edits to the window's draft, and saving, discarding and resolving it.
enum EditorCommands {
  static let screens = ["editor"]
  static let all = [title, append, insert, replace, delete, show.reporting(), save, discard, resolve]

  /// A command that sends the window's editor an edit of its draft.
  private static func editing(
    _ name: String, arguments: [any ArgumentDeclaration], summary: String,
    _ action: @escaping @MainActor @Sendable (ParsedArguments) -> EditorAction
  ) -> CommandSpec {
    ScreenCommands.sending(
      name, to: EditorScreen.self, screens: screens, arguments: arguments, summary: summary
    ) { arguments, _ in action(arguments) }
  }

  static let number = Argument<Int>.integer("line", help: "a line number, from 1")
  /// A line's text; left out, the line is empty.
  static let text = Argument<String>.rest("text", help: "the text (may be empty)").optional
  static let newTitle = Argument<String>.rest("title", help: "the new title")

  static let title = editing("title", arguments: [newTitle], summary: "Set the draft's title") { arguments in
    .titleSet(arguments[newTitle])
  }

  static let append = editing("append", arguments: [text], summary: "Add a line at the end of the draft") {
    arguments in .lineAppended(arguments[text] ?? "")
  }

  static let insert = editing(
    "insert", arguments: [number, text], summary: "Insert a line before line N (N = count + 1 appends)"
  ) { arguments in .lineInserted(arguments[text] ?? "", at: arguments[number]) }

  static let replace = editing("replace", arguments: [number, text], summary: "Replace line N in the draft") {
    arguments in .lineReplaced(arguments[number], with: arguments[text] ?? "")
  }

  static let through = Argument<Int>.integer("through", help: "the last line of a range").optional

  static let delete = editing(
    "delete", arguments: [number, through],
    summary: "Delete line N, or lines N through M, from the draft"
  ) { arguments in
    let first = arguments[number]
    return .linesDeleted(first, through: arguments[through] ?? first)
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

  static let save = DraftCommands.save(
    screens: screens, summary: "Save the draft: saved, rejected (with the reason) or conflicted (draft kept)")

  static let discard = DraftCommands.discard(
    screens: screens, summary: "Drop the draft; the window shows the document again")

  /// A way to resolve a save conflict, on the window's editor in conflict.
  private static func resolving(
    _ name: String, summary: String,
    _ body: @escaping @MainActor @Sendable (EditorScreen, CommandContext) throws(CommandError) -> CommandOutput
  ) -> CommandSpec {
    CommandSpec(name, summary: summary, scope: .window(screens: screens)) { context in
      let screen = try context.model(EditorScreen.self)
      guard screen.conflict != nil else { throw CommandError("there is no conflict to resolve in this window") }
      return try body(screen, context)
    }
  }

  /// `resolve diff` reports what differs (shown with `-q` too, as `lines` is); `keep` and `take`
  /// act, and show the window.
  static let resolve = CommandSpec(
    "resolve",
    subcommands: [
      resolving("diff", summary: "Compare the newer revision with your draft") { screen, _ throws(CommandError) in
        let lines = ["--- revision \(screen.revision) (theirs)", "+++ your draft"] + screen.conflictDiff()
        return .text(lines.joined(separator: "\n"))
      }.reporting(),
      resolving("keep", summary: "Save yours over the newer revision") { screen, context throws(CommandError) in
        try screen.save(context, overriding: true)
        return .frame(try context.requireWindow().id)
      },
      resolving("take", summary: "Drop yours and take the newer revision") { screen, context throws(CommandError) in
        screen.sessionEnded()
        return .frame(try context.requireWindow().id)
      },
    ],
    summary: "Resolve a save conflict: diff, keep or take", scope: .window(screens: screens))
}
