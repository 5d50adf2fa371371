import WorkbenchModuleAPI

/// The catalog's commands. Each turns its arguments into one action or one document edit.
enum CatalogCommands {
  static let screens = ["catalog"]

  static let bookID = ReferenceSource(
    noun: "book", in: CatalogScreenModel.self,
    identifiers: { model in model.document.books.map { String($0.id) } },
    contains: { model, id in Int(id).map(model.document.contains) ?? false },
    label: { model, id in Int(id).flatMap(model.document.book)?.title })

  static let all: [CommandSpec] = [
    query, select, deselect, onlySelected, scroll, page, detail, add, rename, remove, move, sort,
  ]

  /// A command that runs in a catalog window and sends the action `makeAction` returns.
  private static func viewCommand(
    _ name: String, arguments: [any ArgumentDeclaration] = [], summary: String, details: String = "",
    makeAction: @escaping @MainActor @Sendable (ParsedArguments, CatalogScreenModel) -> CatalogAction
  ) -> CommandSpec {
    ScreenCommands.sending(
      name, to: CatalogScreenModel.self, screens: screens, arguments: arguments, summary: summary, details: details,
      action: makeAction)
  }

  /// A command that commits the document `edit` returns to the window's shared document.
  private static func editCommand(
    _ name: String, arguments: [any ArgumentDeclaration], summary: String,
    edit:
      @escaping @MainActor @Sendable (ParsedArguments, CatalogDocument) throws(CatalogValidationError) ->
      (CatalogDocument, String)
  ) -> CommandSpec {
    ScreenCommands.editing(
      name, in: CatalogScreenModel.self, screens: screens, arguments: arguments, summary: summary
    ) { arguments, document in
      let (edited, description) = try edit(arguments, document)
      return DocumentChange(edited, summary: description)
    }
  }

  static let book = Argument<Int>.reference("id", bookID, help: "the id of a book in this catalog")
  static let queryText = Argument<String>.rest("text", help: "the search text; none clears it").optional

  static let query = viewCommand(
    "query", arguments: [queryText],
    summary: "Filter the list to titles containing the text, ignoring case",
    details: "The selection stays when its book is filtered out; `query` alone clears the search."
  ) { arguments, _ in .queryChanged(arguments[queryText] ?? "") }

  static let select = viewCommand(
    "select", arguments: [book], summary: "Select a book by id; an unknown id is rejected and changes nothing"
  ) { arguments, _ in .selected(arguments[book]) }

  static let deselect = viewCommand("deselect", summary: "Clear the selection") { _, _ in .selected(nil) }

  /// `only-selected`'s switch.
  enum Switch: String, CaseIterable { case on, off }

  static let onOff = Argument<Switch>.choice("switch", help: "left out: toggle").optional

  static let onlySelected = viewCommand(
    "only-selected", arguments: [onOff],
    summary: "Show only the selected book (an empty list when nothing is selected)"
  ) { arguments, model in
    switch arguments[onOff] {
    case .on?: .onlySelectedChanged(true)
    case .off?: .onlySelectedChanged(false)
    case nil: .onlySelectedChanged(!model.viewState.showsOnlySelected)
    }
  }

  static let anchorBook = Argument<Int>.reference(
    "id", bookID, help: "the book to anchor on; none scrolls to the top"
  ).optional
  static let anchorOffset = Argument<Int>.integer(
    "offset", help: "its row in the viewport, 0 being the top (0 when left out)"
  ).optional

  static let scroll = viewCommand(
    "scroll", arguments: [anchorBook, anchorOffset],
    summary: "Anchor the viewport on a book, at a row of the viewport",
    details: "The anchor is a book id plus a row, so it survives edits, sorting and other windows' changes."
  ) { arguments, _ in
    .scrolled(arguments[anchorBook].map { ViewportAnchor(bookID: $0, offset: arguments[anchorOffset] ?? 0) })
  }

  /// Which way `page` moves.
  enum Direction: String, CaseIterable { case next, previous }

  static let direction = Argument<Direction>.choice("direction")

  static let page = viewCommand(
    "page", arguments: [direction], summary: "Move the viewport a page down or up"
  ) { arguments, _ in .paged(arguments[direction] == .previous ? .previous : .next) }

  static let policy = Argument<DetailPolicy>.choice("policy")

  static let detail = viewCommand(
    "detail", arguments: [policy],
    summary: "Choose whether the detail pane stays open while its book is filtered out",
    details: "keep (the default) shows the selected book, marked as filtered out; close hides the pane "
      + "until the book is visible again. The selection is kept either way."
  ) { arguments, _ in .detailPolicyChanged(arguments[policy]) }

  static let newTitle = Argument<String>.rest("title", help: "the new book's title")

  static let add = editCommand(
    "add", arguments: [newTitle], summary: "Add a book to the shared catalog"
  ) { arguments, document throws(CatalogValidationError) in
    (try document.adding(title: arguments[newTitle]), "add a book")
  }

  static let changedTitle = Argument<String>.rest("title", help: "the new title")

  static let rename = editCommand(
    "rename", arguments: [book, changedTitle], summary: "Change a book's title in the shared catalog"
  ) { arguments, document throws(CatalogValidationError) in
    let id = arguments[book]
    return (try document.renaming(id, to: arguments[changedTitle]), "rename book \(id)")
  }

  static let remove = editCommand(
    "remove", arguments: [book],
    summary: "Remove a book from the shared catalog; windows that selected it lose the selection"
  ) { arguments, document throws(CatalogValidationError) in
    let id = arguments[book]
    return (try document.removing(id), "remove book \(id)")
  }

  static let position = Argument<Int>.integer("position", help: "1 is the first place")

  static let move = editCommand(
    "move", arguments: [book, position],
    summary: "Move a book to another place in the shared catalog"
  ) { arguments, document throws(CatalogValidationError) in
    let id = arguments[book]
    return (try document.moving(id, to: arguments[position]), "move book \(id)")
  }

  static let order = Argument<CatalogOrder>.choice("order")

  static let sort = CommandSpec(
    "sort", arguments: [order], summary: "Reorder the shared catalog by title, by id, or in reverse",
    details: "Ctrl-C stops a long sort (a million books) before it changes anything.", scope: .window(screens: screens)
  ) { context in
    let chosen = context.arguments[order]
    let document = try context.model(CatalogScreenModel.self).document
    let requested = context.services.interruptRequested
    let sorted = try document.sorted(by: chosen) { MainActor.assumeIsolated { requested?() ?? false } }
    try context.commit(sorted, summary: "sort by \(chosen.rawValue)")
    return .frame(try context.requireWindow().id)
  }
}
