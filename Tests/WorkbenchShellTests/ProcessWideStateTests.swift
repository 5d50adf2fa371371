import Testing
import WorkbenchTestSupport

/// Several sessions live in one process (the scenario runner), so nothing process-wide may hold
/// session state: every clock, scheduler, module process and cache belongs to a host or a
/// registry. The one exception is the interactive session readline's C callbacks reach.
@Suite struct ProcessWideStateTests {
  static let allowed = [
    "Sources/WorkbenchShell/Interactive/InteractiveSession.swift: static var current: InteractiveSession?"
  ]

  @Test func noStoredStaticOrGlobalStateInTheProduct() {
    let root = repositoryRoot()
    var found: [String] = []
    for folder in ["Sources", "Plugins"] {
      for file in swiftFiles(under: root + "/" + folder) where !file.contains("/workbench-bench/") {
        let relative = String(file.dropFirst(root.count + 1))
        for line in (readTextFile(file) ?? "").split(separator: "\n") {
          let text = line.trimmingPrefix(while: { $0 == " " })
          let storedStatic = text.contains("static var ") && !text.contains("{")
          let shared = text.contains("static let shared")
          let global =
            (line.hasPrefix("var ") || line.hasPrefix("nonisolated(unsafe)"))
            || (line.hasPrefix("let ") && line.contains("Mutex"))
          if storedStatic || shared || global { found.append("\(relative): \(text)") }
        }
      }
    }
    #expect(found.filter { !Self.allowed.contains($0) } == [])
    #expect(found.contains(Self.allowed[0]), "the check no longer sees the one allowed case; is it still reading?")
  }

  private func swiftFiles(under folder: String) -> [String] {
    folderEntries(folder).flatMap { name -> [String] in
      let path = folder + "/" + name
      if name.hasSuffix(".swift") { return [path] }
      return name.contains(".") ? [] : swiftFiles(under: path)
    }
  }
}

/// Handlers read their arguments by typed keys (`context.arguments[Self.books]`), never by a
/// name string with a silent default: only the external-module proxy, whose arguments arrive
/// at run time, reads by name.
@Suite struct TypedArgumentsTests {
  @Test func noHandlerReadsAnArgumentByName() {
    let root = repositoryRoot()
    var found: [String] = []
    var read = 0
    for folder in ["Sources", "Plugins", "Examples/tasks/Sources"] {
      // The proxy's target is the one that may.
      for file in sourceFiles(under: root + "/" + folder) where !file.contains("/WorkbenchExternalModules/") {
        read += 1
        for (number, line) in (readTextFile(file) ?? "").split(separator: "\n", omittingEmptySubsequences: false)
          .enumerated()
        where line.contains("arguments.text(") || line.contains("arguments.integer(")
          || line.contains("arguments.window(")
        {
          found.append("\(file.dropFirst(root.count + 1)):\(number + 1)")
        }
      }
    }
    #expect(found == [])
    #expect(read > 50, "the scan read only \(read) files; is it still finding the sources?")
  }

  private func sourceFiles(under folder: String) -> [String] {
    folderEntries(folder).flatMap { name -> [String] in
      let path = folder + "/" + name
      if name.hasSuffix(".swift") { return [path] }
      return name.contains(".") ? [] : sourceFiles(under: path)
    }
  }
}
