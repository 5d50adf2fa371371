import WorkbenchCore

/// The catalog's commands. Each turns its arguments into one action or one document edit.
enum CatalogCommands {
  static let screens = ["catalog"]

  static let bookID = ReferenceSource(
    noun: "book", in: CatalogScreenModel.self,
    identifiers: { model in model.document.books.prefix(10_000).map { String($0.id) } },
    contains: { model, id in Int(id).map(model.document.contains) ?? false })

  static let all: [CommandSpec] = [
    query, select, deselect, onlySelected, scroll, page, detail, add, rename, remove, move, sort,
  ]

  /// A command that runs in a catalog window and sends the action `makeAction` returns.
  private static func viewCommand(
    _ name: String, arguments: [ArgumentSpec] = [], summary: String, details: String = "",
    makeAction: @escaping @MainActor @Sendable (ParsedArguments, CatalogScreenModel) -> CatalogAction
  ) -> CommandSpec {
    CommandSpec(name, arguments: arguments, summary: summary, details: details, scope: .window(screens: screens)) {
      context in
      let model = try context.model(CatalogScreenModel.self)
      try send(makeAction(context.arguments, model), to: model)
      return .frame(try context.requireWindow().id)
    }
  }

  /// A command that commits the document `edit` returns to the window's shared document.
  private static func editCommand(
    _ name: String, arguments: [ArgumentSpec], summary: String,
    edit:
      @escaping @MainActor @Sendable (ParsedArguments, CatalogDocument) throws(CatalogValidationError) ->
      (CatalogDocument, String)
  ) -> CommandSpec {
    CommandSpec(name, arguments: arguments, summary: summary, scope: .window(screens: screens)) { context in
      let model = try context.model(CatalogScreenModel.self)
      do {
        let (edited, description) = try edit(context.arguments, model.document)
        try context.commit(edited, summary: description)
      } catch let error as CatalogValidationError {
        throw CommandError(error.message)
      }
      return .frame(try context.requireWindow().id)
    }
  }

  @MainActor private static func send(_ action: CatalogAction, to model: CatalogScreenModel) throws(CommandError) {
    do {
      try model.send(action)
    } catch {
      throw CommandError(error.message)
    }
  }

  static let query = viewCommand(
    "query", arguments: [ArgumentSpec("text", .rest, optional: true, help: "the search text; none clears it")],
    summary: "Filter the list to titles containing the text, ignoring case",
    details: "The selection stays when its book is filtered out; `query` alone clears the search."
  ) { arguments, _ in .queryChanged(arguments.text("text") ?? "") }

  static let select = viewCommand(
    "select", arguments: [ArgumentSpec("id", .reference(bookID), help: "the id of a book in this catalog")],
    summary: "Select a book by id; an unknown id is rejected and changes nothing"
  ) { arguments, _ in .selected(arguments.integer("id")) }

  static let deselect = viewCommand("deselect", summary: "Clear the selection") { _, _ in .selected(nil) }

  static let onlySelected = viewCommand(
    "only-selected",
    arguments: [ArgumentSpec("switch", .choice(["on", "off"]), optional: true, help: "default: toggle")],
    summary: "Show only the selected book (an empty list when nothing is selected)"
  ) { arguments, model in
    switch arguments.text("switch") {
    case "on": .onlySelectedChanged(true)
    case "off": .onlySelectedChanged(false)
    default: .onlySelectedChanged(!model.viewState.showsOnlySelected)
    }
  }

  static let scroll = viewCommand(
    "scroll",
    arguments: [
      ArgumentSpec("id", .reference(bookID), optional: true, help: "the book to anchor on; none scrolls to the top"),
      ArgumentSpec("offset", .integer(), optional: true, help: "its row in the viewport, 0 being the top"),
    ],
    summary: "Anchor the viewport on a book, at a row of the viewport",
    details: "The anchor is a book id plus a row, so it survives edits, sorting and other windows' changes."
  ) { arguments, _ in
    .scrolled(arguments.integer("id").map { ViewportAnchor(bookID: $0, offset: arguments.integer("offset") ?? 0) })
  }

  static let page = viewCommand(
    "page", arguments: [ArgumentSpec("direction", .choice(["next", "previous"]))],
    summary: "Move the viewport a page down or up"
  ) { arguments, _ in .paged(arguments.text("direction") == "previous" ? .previous : .next) }

  static let detail = viewCommand(
    "detail", arguments: [ArgumentSpec("policy", .choice(["keep", "close"]))],
    summary: "Choose whether the detail pane stays open while its book is filtered out",
    details: "keep (the default) shows the selected book, marked as filtered out; close hides the pane "
      + "until the book is visible again. The selection is kept either way."
  ) { arguments, _ in .detailPolicyChanged(arguments.text("policy") == "close" ? .close : .keep) }

  static let add = editCommand(
    "add", arguments: [ArgumentSpec("title", .rest, help: "the new book's title")],
    summary: "Add a book to the shared catalog"
  ) { arguments, document throws(CatalogValidationError) in
    (try document.adding(title: arguments.text("title") ?? ""), "add a book")
  }

  static let rename = editCommand(
    "rename",
    arguments: [ArgumentSpec("id", .reference(bookID)), ArgumentSpec("title", .rest, help: "the new title")],
    summary: "Change a book's title in the shared catalog"
  ) { arguments, document throws(CatalogValidationError) in
    let id = arguments.integer("id") ?? 0
    return (try document.renaming(id, to: arguments.text("title") ?? ""), "rename book \(id)")
  }

  static let remove = editCommand(
    "remove", arguments: [ArgumentSpec("id", .reference(bookID))],
    summary: "Remove a book from the shared catalog; windows that selected it lose the selection"
  ) { arguments, document throws(CatalogValidationError) in
    let id = arguments.integer("id") ?? 0
    return (try document.removing(id), "remove book \(id)")
  }

  static let move = editCommand(
    "move",
    arguments: [
      ArgumentSpec("id", .reference(bookID)), ArgumentSpec("position", .integer(), help: "1 is the first place"),
    ],
    summary: "Move a book to another place in the shared catalog"
  ) { arguments, document throws(CatalogValidationError) in
    let id = arguments.integer("id") ?? 0
    return (try document.moving(id, to: arguments.integer("position") ?? 0), "move book \(id)")
  }

  static let sort = editCommand(
    "sort", arguments: [ArgumentSpec("order", .choice(CatalogOrder.allCases.map(\.rawValue)))],
    summary: "Reorder the shared catalog by title, by id, or in reverse"
  ) { arguments, document in
    let order = CatalogOrder(rawValue: arguments.text("order") ?? "") ?? .title
    return (document.sorted(by: order), "sort by \(order.rawValue)")
  }
}
