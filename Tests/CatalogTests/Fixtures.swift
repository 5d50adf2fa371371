import Catalog

func books(_ pairs: [(Int, String)]) -> [CatalogBook] {
  pairs.map { CatalogBook(id: $0.0, title: $0.1) }
}

func catalog(_ pairs: [(Int, String)]) throws -> CatalogDocument {
  try CatalogDocument(validating: books(pairs))
}

/// The two-book document the seed's checks use.
func seedDocument() throws -> CatalogDocument {
  try catalog([(1, "Swift"), (2, "Algorithms")])
}

extension CatalogScreenModel {
  var rowIDs: [Int] { frame["rows"]?.elements?.compactMap { $0["id"]?.integerValue } ?? [] }
}
