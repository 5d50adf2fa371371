import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The diagrams a report draws beside windows: a module's state machine named as a screen
/// (the ledger's `feed`) goes beside that screen's windows, with the node the frame's `state`
/// field names marked. Drawn as SVG by Graphviz's `dot` where it is installed and the diagram
/// is small enough to lay out in a moment, else given as Mermaid text. `make` gives the Graphviz source; the report's data draws it
/// (`HTMLReport.PageData.drawDiagrams()`).
public enum ReportDiagrams {
  /// The largest diagram given to Graphviz: its layout time grows steeply with size (measured
  /// with `dot -Tsvg` here: 40 nodes and 100 labelled edges 0.1 s, 60 and 200 2 s, 100 and 400
  /// over 30 s). A larger one (an external module's handshake may declare any state machine) is
  /// shown as Mermaid text.
  public static let maximumNodes = 40
  public static let maximumEdges = 100
  /// The most bytes of DOT source (long labels cost layout time too).
  public static let maximumSource = 64 * 1024
  /// How long `dot` may take before it is ended and the diagram shown as Mermaid text.
  public static let timeLimitMilliseconds = 5_000

  @MainActor
  public static func make(registry: ModuleRegistry) -> [HTMLReport.ScreenDiagram] {
    let screens = Set(registry.screens.map(\.name))
    var result: [HTMLReport.ScreenDiagram] = []
    // Only the diagrams named as screens are drawn.
    for name in registry.moduleDiagramNames where screens.contains(name) {
      guard let diagram = registry.diagram(named: name), diagram.isStateMachine else { continue }
      let source = diagram.dot
      let drawable =
        diagram.nodes.count <= maximumNodes && diagram.edges.count <= maximumEdges
        && source.utf8.count <= maximumSource
      result.append(
        HTMLReport.ScreenDiagram(
          screen: name, field: "state", mermaid: diagram.mermaid, svg: nil, dot: drawable ? source : nil))
    }
    return result
  }

  /// The SVG `dot -Tsvg` makes of `source`, or `nil` when Graphviz is not installed, fails, or
  /// takes longer than `timeLimit` milliseconds (it is then ended).
  ///
  /// The source goes to `dot` on a pipe and the SVG comes back on another: no temporary files
  /// to leave behind. `dot` stays in this process's group, so Ctrl-C at the terminal ends it
  /// with the run; a runner killed alone leaves it at most the layout of a bounded diagram,
  /// after which its write to the closed pipe ends it.
  static func svg(fromDOT source: String, program: String = "dot", timeLimit: Int = timeLimitMilliseconds)
    -> String?
  {
    guard
      let child = try? SpawnedProcess(
        program, arguments: ["-Tsvg"], input: .pipe, output: .pipe, error: .null, searchingPath: true)
    else { return nil }
    let svg = child.exchange(Array(source.utf8), within: timeLimit)
    if svg == nil { child.signal(SIGKILL) }
    guard child.wait() == .exited(0), let svg else { return nil }
    let text = String(decoding: svg, as: UTF8.self)
    // The SVG element itself, without the XML prologue and doctype.
    guard let start = text.firstRange(of: "<svg") else { return nil }
    return String(text[start.lowerBound...])
  }
}
