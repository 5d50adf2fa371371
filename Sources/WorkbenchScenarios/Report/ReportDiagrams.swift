import WorkbenchCore
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The diagrams a report draws beside windows: a module's state machine named as a screen
/// (the ledger's `feed`) goes beside that screen's windows, with the node the frame's `state`
/// field names marked. Drawn as SVG by Graphviz's `dot` where it is installed, else given as
/// Mermaid text. `make` gives the Graphviz source; the report's data draws it
/// (`HTMLReport.PageData.drawDiagrams()`).
public enum ReportDiagrams {
  @MainActor
  public static func make(registry: ModuleRegistry) -> [HTMLReport.ScreenDiagram] {
    let screens = Set(registry.screens.map(\.name))
    var result: [HTMLReport.ScreenDiagram] = []
    // Only the diagrams named as screens are drawn.
    for name in registry.moduleDiagramNames where screens.contains(name) {
      guard let diagram = registry.diagram(named: name), diagram.isStateMachine else { continue }
      result.append(
        HTMLReport.ScreenDiagram(screen: name, field: "state", mermaid: diagram.mermaid, svg: nil, dot: diagram.dot)
      )
    }
    return result
  }

  /// The SVG `dot -Tsvg` makes of `dot`, or `nil` when Graphviz is not installed or fails.
  static func svg(fromDOT source: String) -> String? {
    // A fresh private folder: a fixed name in /tmp could be another user's link.
    guard let folder = FileSystem.makeTemporaryFolder(prefix: "workbench-dot") else { return nil }
    let input = folder + "/diagram.dot"
    let output = folder + "/diagram.svg"
    defer {
      unlink(input)
      unlink(output)
      rmdir(folder)
    }
    guard FileSystem.write(source, to: input) else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let words: [String] = ["dot", "-Tsvg", input, "-o", output]
    let argv = words.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawnp(&pid, "dot", &actions, nil, argv, environ) == 0 else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    guard status == 0, let bytes = try? FileSystem.read(output) else { return nil }
    let text = String(decoding: bytes, as: UTF8.self)
    // The SVG element itself, without the XML prologue and doctype.
    guard let start = text.firstRange(of: "<svg") else { return nil }
    return String(text[start.lowerBound...])
  }
}
