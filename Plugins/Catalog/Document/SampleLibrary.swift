extension CatalogDocument {
  /// The catalog a new workspace starts with: thirty real books, some with non-ASCII titles.
  public static let sampleLibrary: CatalogDocument = {
    let titles = [
      "The Swift Programming Language", "Structure and Interpretation of Computer Programs",
      "The Art of Computer Programming", "Introduction to Algorithms", "Design Patterns",
      "The Pragmatic Programmer", "Refactoring", "Domain-Driven Design",
      "Working Effectively with Legacy Code", "The Mythical Man-Month", "Code Complete",
      "Clean Architecture", "Types and Programming Languages", "Gödel, Escher, Bach",
      "The Design of Everyday Things", "Thinking, Fast and Slow", "Les Misérables",
      "Cien años de soledad", "Война и мир", "Der Zauberberg", "Don Quijote de la Mancha",
      "Crime and Punishment", "Pride and Prejudice", "Moby-Dick", "The Left Hand of Darkness",
      "A Wizard of Earthsea", "Dune", "Neuromancer", "The Dispossessed", "Snow Crash",
    ]
    let books = titles.enumerated().map { CatalogBook(id: $0.offset + 1, title: $0.element) }
    // The titles above are valid and their ids unique by construction.
    return (try? CatalogDocument(validating: books)) ?? CatalogDocument.empty
  }()
}
