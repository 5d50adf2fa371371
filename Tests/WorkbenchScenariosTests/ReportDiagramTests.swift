import Catalog
import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchTestSupport

@testable import WorkbenchScenarios

#if canImport(Glibc)
  import Glibc
#endif

/// A report draws a screen's state machine with Graphviz only when it is small enough to lay out
/// in a moment, and never waits on `dot` past its time limit.
@MainActor
@Suite struct ReportDiagramTests {
  /// A module whose only contribution is a state machine of `size` nodes, named as the catalog
  /// screen so a report draws it beside catalog windows.
  struct MachineModule: FeatureModule {
    var size: Int
    var manifest: ModuleManifest { ModuleManifest(name: "machine", version: "1", summary: "a state machine") }
    func register(into registrar: Registrar) {
      let nodes = (0..<size).map { "s\($0)" }
      let edges = (0..<size * 4).map {
        Diagram.Edge(from: nodes[$0 % size], to: nodes[($0 * 7 + 3) % size], label: "event \($0)")
      }
      registrar.diagram("catalog") {
        Diagram(title: "machine", isStateMachine: true, start: nodes[0], nodes: nodes, edges: edges)
      }
    }
  }

  @Test func aDiagramTooLargeToLayOutQuicklyIsShownAsMermaid() throws {
    for (size, drawn) in [(8, true), (100, false)] {
      let registry = try ModuleRegistry(modules: [CatalogModule(), MachineModule(size: size)])
      let diagrams = ReportDiagrams.make(registry: registry)
      let diagram = try #require(diagrams.first { $0.screen == "catalog" })
      #expect((diagram.dot != nil) == drawn, "\(size) nodes")
      #expect(diagram.mermaid.contains("s\(size - 1)"))
    }
  }

  /// A `dot` that never finishes is ended at the time limit, and the report does without it.
  @Test func aGraphvizThatHangsIsEndedAtItsTimeLimit() throws {
    let folder = makeTemporaryFolder()
    let program = folder + "/slow-dot"
    // It would write `finished` after 20 s; ended at the limit, it never does.
    writeTextFile("#!/bin/sh\necho $$ > \(folder)/pid\nsleep 20\necho done > \(folder)/finished\n", to: program)
    #expect(chmod(program, 0o755) == 0)
    // (A second: on a busy machine the shell can take longer than a moment to start and say
    // its pid, and the check needs the pid.)
    #expect(ReportDiagrams.svg(fromDOT: "digraph g { a -> b; }\n", program: program, timeLimit: 1000) == nil)
    let pid = try #require(readTextFile(folder + "/pid").flatMap { pid_t($0.split(separator: "\n").first ?? "") })
    #expect(readTextFile(folder + "/finished") == nil, "svg(fromDOT:) waited for the slow dot to finish")
    #expect(kill(pid, 0) != 0, "the slow dot \(pid) is still running")
  }

  @Test(.enabled(if: access("/usr/bin/dot", X_OK) == 0, "Graphviz is not installed"))
  func graphvizDrawsASmallDiagramThroughPipes() {
    let svg = ReportDiagrams.svg(fromDOT: "digraph g { idle -> loading [label=\"search\"]; }\n")
    #expect(svg?.hasPrefix("<svg") == true)
    #expect(svg?.contains("loading") == true)
  }
}
