import Catalog
import WorkbenchCore
import WorkbenchModuleAPI

#if canImport(Glibc)
  import Glibc
#endif

/// One million generated books: a query keystroke against `grep -ci` over the same titles.
@MainActor
enum LargeCatalogBenchmark {
  static let vocabulary = [
    "the", "art", "of", "war", "peace", "love", "time", "river", "night", "garden", "city", "stone", "light",
    "shadow", "house", "winter", "summer", "island", "machine", "empire", "children", "secret", "history",
    "sea", "mountain", "letters", "dream", "fire", "glass", "iron", "silver", "golden", "last", "first",
    "lost", "hidden", "silent", "broken", "wild", "little", "great", "dark", "bright", "north", "south",
    "journey", "kingdom", "memory", "storm", "harbor", "forest", "desert", "voice", "road", "bridge",
    "Élan", "Über", "años", "мир", "война", "Straße", "café", "naïve", "Ångström", "Zürich", "façade",
  ]

  static func generateBooks(count: Int) -> [CatalogBook] {
    var state: UInt64 = 0x5EED
    func next() -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(truncatingIfNeeded: state >> 33)
    }
    var books: [CatalogBook] = []
    books.reserveCapacity(count)
    for id in 1...count {
      let words = 2 + next() % 4
      var title = ""
      for index in 0..<words {
        if index > 0 { title += " " }
        let word = vocabulary[next() % vocabulary.count]
        title += index == 0 ? word.prefix(1).uppercased() + word.dropFirst() : word
      }
      books.append(CatalogBook(id: id, title: title + " \(next() % 1000)"))
    }
    return books
  }

  static func run(count: Int) -> [String] {
    var lines = ["catalog of \(count) generated books:"]
    let books = generateBooks(count: count)
    var document: CatalogDocument? = nil
    let buildTime = measure { document = try? CatalogDocument(validating: books) }
    guard let document else { return ["large catalog: the generated books did not validate"] }
    lines.append("  building the document and its index   \(format(buildTime * 1000, 1)) ms")

    let path = "/tmp/workbench-bench-titles.txt"
    writeTitles(books, to: path)

    let screen = CatalogScreenModel(document: document)
    _ = screen.frame
    for query in ["e", "love", "zürich", "winter garden", "qqq"] {
      var frameMatches = 0
      let keystroke = bestOf(5) {
        _ = try? screen.send(.queryChanged(""))
        _ = screen.frame
        return measure {
          _ = try? screen.send(.queryChanged(query))
          frameMatches = screen.frame["matches"]?.integerValue ?? -1
        }
      }
      let grep = bestOf(5) { timeProcess("/bin/grep", ["-ci", query, path], output: path + ".count") ?? .infinity }
      lines.append(
        "  query \"\(query)\"".padding(24) + "keystroke \(format(keystroke * 1000, 1)) ms".padding(22)
          + "grep -ci \(format(grep * 1000, 1)) ms".padding(22) + "\(frameMatches) matches")
    }
    // Typing "winter garden" one key at a time: each key narrows the previous matches.
    let typed = Array("winter garden")
    var incremental: [Double] = []
    _ = try? screen.send(.queryChanged(""))
    _ = screen.frame
    for length in 1...typed.count {
      let query = String(typed[0..<length])
      incremental.append(
        measure {
          _ = try? screen.send(.queryChanged(query))
          _ = screen.frame
        })
    }
    lines.append(
      "  typing \"winter garden\" key by key: first key \(format(incremental[0] * 1000, 1)) ms, "
        + "later keys median \(format(percentile(Array(incremental.dropFirst()), 50) * 1000, 2)) ms")
    lines.append("  peak memory (whole benchmark process)   \(format(peakMemoryMB(), 0)) MB  (target: under 300 MB)")
    unlink(path)
    unlink(path + ".count")
    return lines
  }

  static func writeTitles(_ books: [CatalogBook], to path: String) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    var chunk: [UInt8] = []
    chunk.reserveCapacity(1 << 20)
    for book in books {
      chunk += book.title.utf8
      chunk.append(0x0A)
      if chunk.count > 1 << 20 {
        _ = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        chunk.removeAll(keepingCapacity: true)
      }
    }
    _ = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
  }
}

extension String {
  fileprivate func padding(_ width: Int) -> String {
    count >= width ? self + " " : self + String(repeating: " ", count: width - count)
  }
}
