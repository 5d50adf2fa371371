import WorkbenchCore
import WorkbenchModuleAPI

// The report's coverage page (`run --coverage FILE --html REPORT`): per module the commands
// carried out, refused every time and never run, and each declared state machine drawn with
// the transitions taken (solid, with how often) and those never taken (dashed, red).
extension HTMLReport.PageData {
  /// The page with `coverage` (`ExploreCoverage.runJSON`) and its machines drawn; unchanged
  /// when there is none.
  @MainActor
  func with(coverage: FrameValue?, registry: ModuleRegistry?) -> Self {
    guard let coverage, let registry, case .object(let modules)? = coverage["modules"] else { return self }
    var page = self
    var drawn: [FrameValue] = []
    for (module, value) in modules.members {
      guard case .object(let machines)? = value["machines"] else { continue }
      for (screen, machine) in machines.members {
        guard let diagram = ExploreCoverage.machine(of: screen, in: registry) else { continue }
        var taken: [String: Int] = [:]
        for transition in machine["transitions"]?.elements ?? [] {
          guard let from = transition["from"]?.stringValue, let to = transition["to"]?.stringValue else { continue }
          taken[from + "\u{1F}" + to] = transition["taken"]?.integerValue ?? 0
        }
        let reached = { (node: String) in (machine["states"]?[node]?.integerValue ?? 0) > 0 }
        // Counted by pair of states: the count goes on the first edge between them.
        var counted: Set<String> = []
        let source = diagram.dot(
          nodeAttributes: { reached($0) ? [] : ["style=dashed", "color=\"#cf222e\"", "fontcolor=\"#cf222e\""] },
          edgeAttributes: { edge in
            let pair = edge.from + "\u{1F}" + edge.to
            let count = taken[pair] ?? 0
            return count > 0
              ? ["color=\"#1a7f37\"", "penwidth=2"] + (counted.insert(pair).inserted ? ["xlabel=\"×\(count)\""] : [])
              : ["style=dashed", "color=\"#cf222e\"", "fontcolor=\"#cf222e\""]
          })
        let drawable =
          diagram.nodes.count <= ReportDiagrams.maximumNodes && diagram.edges.count <= ReportDiagrams.maximumEdges
          && source.utf8.count <= ReportDiagrams.maximumSource
        drawn.append([
          "module": .string(module), "screen": .string(screen),
          "svg": FrameValue(drawable ? ReportDiagrams.svg(fromDOT: source) : nil), "mermaid": .string(diagram.mermaid),
        ])
      }
    }
    page.coverage = [
      "summary": .list(ExploreCoverage.summary(of: coverage).map(FrameValue.string)), "json": coverage,
      "drawn": .list(drawn),
    ]
    return page
  }
}

extension HTMLReport {
  /// Shows the coverage page when the data has one: a button in the header, and `#coverage`.
  static let coverageScript = #"""
    if (data.coverage) {
      const c = data.coverage;
      const open = el("button", {type: "button", id: "coverage-button"}, "Coverage");
      document.querySelector("header").append(open);
      function renderCoverage() {
        chosen = null;
        renderList();
        history.replaceState(null, "", "#coverage");
        const root = document.getElementById("scenario");
        root.replaceChildren(el("h2", {}, "Coverage"),
          el("div", {class: "file"}, `${c.json.scenarios} scenarios, ${c.json.steps} steps`));
        for (const line of c.summary) root.append(el("p", {}, line));
        for (const [module, m] of Object.entries(c.json.modules)) {
          root.append(el("h3", {}, module));
          const table = el("table", {class: "coverage"},
            el("tr", {}, el("th", {}, "command"), el("th", {}, "carried out"), el("th", {}, "refused")));
          for (const [name, counts] of Object.entries(m.commands)) {
            const never = counts.ran === 0;
            table.append(el("tr", {class: never ? "never" : ""},
              el("td", {}, name), el("td", {}, String(counts.ran)), el("td", {}, String(counts.refused))));
          }
          root.append(table);
          for (const d of c.drawn.filter(d => d.module === module)) {
            const machine = m.machines[d.screen];
            const untaken = machine.transitionsNeverTaken.map(t => `${t.from} → ${t.to}`);
            root.append(el("h4", {}, `${d.screen}: ${machine.transitions.length - untaken.length} of ` +
              `${machine.transitions.length} transitions taken`));
            const box = el("div", {class: "diagram coverage-diagram", "data-screen": d.screen});
            if (d.svg) box.innerHTML = d.svg; else box.append(el("pre", {}, d.mermaid));
            root.append(box);
            root.append(el("p", {class: untaken.length ? "never" : "hint"},
              untaken.length ? "never taken: " + untaken.join(", ") : "every transition taken"));
            if (machine.statesNeverReached.length)
              root.append(el("p", {class: "never"}, "never reached: " + machine.statesNeverReached.join(", ")));
          }
        }
      }
      open.onclick = renderCoverage;
      if (location.hash === "#coverage") renderCoverage();
    }
    """#
}
