import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel

/// One self-contained HTML file from a run's traces: inline CSS, a little JavaScript, the data
/// as JSON in the page. No network: it reads the same from disk as attached to a CI job.
///
/// The page lists the scenarios (failures first, with a filter box); choosing one shows its
/// steps as a timeline, and choosing a step shows every window's frame at that point side by
/// side, the lines that changed marked, the expectation's diff, the recorded facts, and beside
/// a ledger feed its state machine with the current state marked. With a baseline (the traces
/// of a green run), a failed scenario names the first step where a frame left the green run's,
/// field by field.
public enum HTMLReport {
  /// A diagram to draw beside windows of a screen: Mermaid text, and SVG when `dot` made one.
  public struct ScreenDiagram: Sendable {
    public var screen: String
    /// The frame field holding the current node (`state`).
    public var field: String
    public var mermaid: String
    public var svg: String?
    /// Graphviz source, while the SVG is still to be drawn from it (`PageData.drawDiagrams()`).
    public var dot: String?

    public init(screen: String, field: String, mermaid: String, svg: String?, dot: String? = nil) {
      self.screen = screen
      self.field = field
      self.mermaid = mermaid
      self.svg = svg
      self.dot = dot
    }
  }

  /// Where a failed scenario first left its green run.
  struct Divergence: Encodable {
    var step: Int
    var stepText: String
    var fields: [Field]
    struct Field: Encodable {
      var path: String
      var baseline: String
      var actual: String
    }
  }

  /// The page for `traces`, compared with `baseline` where a scenario failed.
  public static func make(
    traces: [ScenarioTrace], baseline: [ScenarioTrace] = [], diagrams: [ScreenDiagram] = [],
    title: String = "workbench run"
  ) -> String {
    var data = PageData(baseline: baseline, diagrams: diagrams)
    data.drawDiagrams()
    for trace in traces { data.add(trace, steps: TraceStore.stepsJSON(of: trace)) }
    return String(decoding: page(data, title: title), as: UTF8.self)
  }

  /// The page for the scenarios `data` was given, as the bytes of the file: the data goes in
  /// as it is, not through a string of several megabytes copied at each `+`.
  static func page(_ data: PageData, title: String = "workbench run") -> [UInt8] {
    let head =
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      + "<title>\(escape(title))</title>\n<style>\(style)</style>\n</head>\n<body>\n"
      + "<script id=\"data\" type=\"application/json\">"
    let tail = "</script>\n" + body + "<script>\(script)\n\(coverageScript)</script>\n</body>\n</html>\n"
    var bytes: [UInt8] = []
    bytes.reserveCapacity(head.utf8.count + data.estimatedSize + tail.utf8.count)
    bytes += head.utf8
    data.appendJSON(to: &bytes)
    bytes += tail.utf8
    return bytes
  }

  /// The report's data, one scenario at a time: a run adds each as it finishes, so the page's
  /// JSON is ready when the last one is. Written as JSON safe inside a `<script>` element.
  struct PageData: Sendable {
    private var diagrams: [ScreenDiagram]
    private let diagramFields: [String: String]
    private let greens: [String: ScenarioTrace]
    /// The passing baseline traces by name alone, for those whose name no other has: a
    /// baseline taken from another folder (`./suite/a.yaml` against `suite/a.yaml`) pairs by
    /// name, as `workbench diff` pairs.
    private let greensByName: [String: ScenarioTrace]
    private let hasBaseline: Bool
    private var frames: [String: FrameValue] = [:]
    /// The scenarios' JSON, comma-separated, `<` already escaped.
    private var scenarios: [UInt8] = []
    private var count = 0
    private var passed = 0
    private var skipped = 0
    private var tags: Set<String> = []
    private var expectedFailures = 0
    private var duration = 0.0
    /// What the scenarios covered, with its machines drawn (`with(coverage:registry:)`).
    var coverage: FrameValue?

    init(baseline: [ScenarioTrace], diagrams: [ScreenDiagram]) {
      self.diagrams = diagrams
      diagramFields = Dictionary(diagrams.map { ($0.screen, $0.field) }, uniquingKeysWith: { a, _ in a })
      greens = Dictionary(
        baseline.filter { $0.status == "passed" }.map { ("\($0.file)\u{0}\($0.scenario)", $0) },
        uniquingKeysWith: { a, _ in a })
      var byName: [String: ScenarioTrace] = [:]
      var seen: Set<String> = []
      for trace in baseline where trace.status == "passed" {
        if seen.insert(trace.scenario).inserted { byName[trace.scenario] = trace } else { byName[trace.scenario] = nil }
      }
      greensByName = byName
      hasBaseline = !baseline.isEmpty
    }

    /// Adds a scenario, given its steps' JSON (`TraceStore.stepsJSON(of:)`, which a trace
    /// file holds too).
    mutating func add(_ trace: ScenarioTrace, steps: [UInt8]) {
      count += 1
      if trace.status == "passed" { passed += 1 }
      if trace.status == "skipped" { skipped += 1 }
      tags.formUnion(trace.tags)
      duration += trace.duration
      // The page shows a frame's text; of its value, only the field a diagram marks.
      for (hash, frame) in trace.frames where frames[hash] == nil {
        var entry: FrameValue = ["screen": .string(frame.screen), "text": .string(frame.text)]
        if let field = diagramFields[frame.screen] {
          entry = ["screen": .string(frame.screen), "text": .string(frame.text), "state": frame.value[field] ?? .null]
        }
        frames[hash] = entry
      }
      expectedFailures += trace.steps.filter { $0.outcome == "expected-failure" }.count
      var scenario: [(key: String, value: FrameValue)] = [
        ("name", .string(trace.scenario)), ("file", .string(trace.file)), ("line", .integer(trace.line)),
        ("tags", .list(trace.tags.map(FrameValue.string))), ("status", .string(trace.status)),
        ("duration", .number(trace.duration)), ("windows", .list(trace.windows.map(FrameValue.string))),
      ]
      if let reason = trace.skipped { scenario.append(("skipped", .string(reason))) }
      if let failure = trace.failure {
        scenario.append(
          (
            "failure",
            [
              "location": .string(failure.location.description), "step": .string(failure.step),
              "message": .string(failure.message), "details": .list(failure.details.map(FrameValue.string)),
            ]
          ))
      }
      if trace.status == "failed",
        let green = greens["\(trace.file)\u{0}\(trace.scenario)"] ?? greensByName[trace.scenario],
        let divergence = divergence(of: trace, from: green)
      {
        scenario.append(
          (
            "divergence",
            [
              "step": .integer(divergence.step), "stepText": .string(divergence.stepText),
              "fields": .list(
                divergence.fields.map {
                  ["path": .string($0.path), "baseline": .string($0.baseline), "actual": .string($0.actual)]
                }),
            ]
          ))
      }
      if !scenarios.isEmpty { scenarios.append(UInt8(ascii: ",")) }
      Self.appendEscaped(.object(FrameObject(members: scenario)), to: &scenarios)
      scenarios.removeLast()  // the object goes on with its steps
      scenarios += #","steps":"#.utf8
      scenarios += steps
      scenarios.append(UInt8(ascii: "}"))
    }

    /// `value` as JSON with `<` written `\u003c`: `<` only occurs inside JSON strings, where the
    /// escape means the same, so no `</script>` can end the element early.
    private static func appendEscaped(_ value: FrameValue, to bytes: inout [UInt8]) {
      value.appendJSON(to: &bytes, escapingLessThan: true)
    }

    /// Runs Graphviz over the diagrams that have none drawn yet (a process each, so a traced
    /// run does it on its output queue while scenarios run).
    mutating func drawDiagrams() {
      for index in diagrams.indices where diagrams[index].svg == nil {
        guard let dot = diagrams[index].dot else { continue }
        diagrams[index].svg = ReportDiagrams.svg(fromDOT: dot)
        diagrams[index].dot = nil
      }
    }

    /// About how many bytes `appendJSON(to:)` adds.
    var estimatedSize: Int { scenarios.count + frames.count * 512 + 65536 }

    /// The data as JSON: `{"summary", "scenarios", "frames", "diagrams"}`.
    func appendJSON(to bytes: inout [UInt8]) {
      let summary: FrameValue = [
        "passed": .integer(passed), "failed": .integer(count - passed - skipped), "skipped": .integer(skipped),
        "expectedFailures": .integer(expectedFailures), "duration": .number(duration),
        "tags": .list(tags.sorted().map(FrameValue.string)), "baseline": .bool(hasBaseline),
      ]
      var rest: FrameValue = [
        "frames": .object(FrameObject(members: frames.keys.sorted().map { ($0, frames[$0]!) })),
        "diagrams": .list(
          diagrams.map {
            [
              "screen": .string($0.screen), "field": .string($0.field), "mermaid": .string($0.mermaid),
              "svg": FrameValue($0.svg),
            ]
          }),
      ]
      if let coverage, case .object(var members) = rest {
        members["coverage"] = coverage
        rest = .object(members)
      }
      bytes += #"{"summary":"#.utf8
      Self.appendEscaped(summary, to: &bytes)
      bytes += #","scenarios":["#.utf8
      bytes += scenarios
      bytes += "],".utf8
      // The rest's members follow the scenarios in the same object: its `{` is dropped.
      let start = bytes.count
      Self.appendEscaped(rest, to: &bytes)
      bytes.remove(at: start)
    }
  }

  /// The first step after which the run differs from the green run's (a window's frame, the
  /// facts served, the output, the step itself), with what differs: `workbench diff`'s
  /// comparison, over the steps both runs have.
  static func divergence(of trace: ScenarioTrace, from green: ScenarioTrace) -> Divergence? {
    guard
      let difference = TraceComparison.firstDifference(
        from: green, to: trace, comparing: [.steps, .facts, .output])
    else { return nil }
    return Divergence(
      step: difference.step, stepText: difference.stepText,
      fields: difference.fields.map { Divergence.Field(path: $0.path, baseline: $0.before, actual: $0.after) })
  }

  static func escape(_ text: String) -> String {
    var result = ""
    for character in text {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      default: result.append(character)
      }
    }
    return result
  }

  static let body = """
    <header>
      <h1>workbench run</h1>
      <p id="summary" aria-live="polite"></p>
      <label class="filter">Filter <input id="filter" type="search" placeholder="name, file or tag"></label>
      <div id="tags"></div>
    </header>
    <main>
      <nav aria-label="Scenarios"><ol id="scenarios"></ol></nav>
      <section id="scenario" aria-live="polite"><p class="hint">Choose a scenario.</p></section>
    </main>

    """

  static let style = """
    :root { font: 14px/1.45 system-ui, sans-serif; color: #1b1b1b; background: #fff; }
    body { margin: 0; }
    header { padding: 12px 20px; border-bottom: 1px solid #ccc; display: flex; flex-wrap: wrap; gap: 8px 20px; align-items: center; }
    h1 { font-size: 18px; margin: 0; }
    h2 { font-size: 16px; margin: 0 0 4px; }
    h3 { font-size: 14px; margin: 12px 0 4px; }
    #summary { margin: 0; }
    .filter input { font: inherit; padding: 3px 6px; width: 16em; }
    #tags button, .tag { font: inherit; font-size: 12px; border: 1px solid #777; border-radius: 10px; padding: 0 8px; background: #f3f3f3; color: #1b1b1b; }
    #tags button[aria-pressed="true"] { background: #1b1b1b; color: #fff; }
    main { display: grid; grid-template-columns: minmax(220px, 300px) 1fr; min-height: calc(100vh - 60px); }
    nav { border-right: 1px solid #ccc; overflow: auto; }
    nav ol { list-style: none; margin: 0; padding: 0; }
    nav li button { all: unset; box-sizing: border-box; display: block; width: 100%; padding: 6px 12px; cursor: pointer; border-bottom: 1px solid #eee; }
    nav li button:focus-visible, .steps button:focus-visible { outline: 3px solid #0b57d0; outline-offset: -3px; }
    nav li button[aria-current="true"] { background: #e8f0fe; }
    .file { color: #4a4a4a; font-size: 12px; word-break: break-all; }
    .passed { color: #0a6b2a; } .failed { color: #b00020; } .skipped { color: #6b5a00; } .expected-failure { color: #7a4b00; }
    #scenario { padding: 12px 20px; overflow: auto; min-width: 0; }
    .failure, .divergence { border: 1px solid #b00020; background: #fdecee; padding: 8px 12px; margin: 8px 0; }
    .divergence { border-color: #7a4b00; background: #fff6e0; }
    .open-here { margin: 4px 0 8px; font-size: 0.9em; } .open-here code { background: #f2f2f2; padding: 1px 4px; }
    pre { margin: 0; font: 12px/1.4 ui-monospace, monospace; white-space: pre-wrap; word-break: break-word; }
    .steps { list-style: none; margin: 8px 0; padding: 0; max-height: 32vh; overflow: auto; border: 1px solid #ddd; }
    .steps button { all: unset; box-sizing: border-box; display: block; width: 100%; padding: 4px 8px; cursor: pointer; border-bottom: 1px solid #eee; font: 12px/1.4 ui-monospace, monospace; }
    .steps button[aria-current="true"] { background: #e8f0fe; }
    .steps .meta { color: #4a4a4a; }
    .windows { display: flex; flex-wrap: wrap; gap: 12px; }
    .window { border: 1px solid #999; min-width: 280px; flex: 1 1 360px; max-width: 100%; }
    .window h4 { margin: 0; padding: 4px 8px; background: #f0f0f0; border-bottom: 1px solid #999; font-size: 13px; }
    .window pre { padding: 6px 8px; }
    .window.closed { opacity: 0.6; }
    mark { background: #fff0a0; color: #1b1b1b; }
    .window .body { display: flex; flex-wrap: wrap; align-items: flex-start; }
    .window .body pre { flex: 1 1 320px; }
    .diagram { flex: 0 1 420px; border-left: 1px dashed #999; padding: 6px 8px; overflow: auto; }
    .diagram svg { max-width: 100%; max-height: 300px; height: auto; }
    .diagram .current polygon, .diagram .current ellipse { fill: #fff0a0; stroke: #7a4b00; stroke-width: 2; }
    .diagram .current-line { background: #fff0a0; font-weight: bold; }
    .hint { color: #4a4a4a; }
    .never { color: #cf222e; }
    table.coverage { border-collapse: collapse; margin: 6px 0; }
    table.coverage td, table.coverage th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }
    .coverage-diagram { border-left: 0; max-width: 100%; }
    @media (max-width: 1000px) {
      main { grid-template-columns: 1fr; }
      nav { border-right: 0; border-bottom: 1px solid #ccc; max-height: 30vh; }
    }
    """

  static let script = #"""
    "use strict";
    const data = JSON.parse(document.getElementById("data").textContent);
    const el = (tag, attrs = {}, ...children) => {
      const node = document.createElement(tag);
      for (const [key, value] of Object.entries(attrs)) {
        if (key === "class") node.className = value; else node.setAttribute(key, value);
      }
      for (const child of children) node.append(child);
      return node;
    };
    const order = data.scenarios.map((s, i) => i).sort((a, b) => {
      const fa = data.scenarios[a].status === "failed" ? 0 : 1, fb = data.scenarios[b].status === "failed" ? 0 : 1;
      return fa - fb || a - b;
    });
    let chosen = null, chosenStep = 0, activeTag = null;
    const s = data.summary;
    document.getElementById("summary").textContent =
      `${s.failed} failed, ${s.passed} passed, ` + (s.skipped ? `${s.skipped} skipped, ` : "") +
      `${s.expectedFailures} steps failed as expected (fails:) · ` +
      `${s.duration.toFixed(2)} s` + (s.baseline ? " · compared with a baseline" : "");
    const tags = document.getElementById("tags");
    for (const tag of s.tags) {
      const button = el("button", {type: "button", "aria-pressed": "false"}, tag);
      button.onclick = () => { activeTag = activeTag === tag ? null : tag; renderList(); };
      tags.append(button);
    }
    const filter = document.getElementById("filter");
    filter.oninput = () => renderList();
    function renderList() {
      for (const b of tags.children) b.setAttribute("aria-pressed", String(b.textContent === activeTag));
      const text = filter.value.trim().toLowerCase();
      const list = document.getElementById("scenarios");
      list.replaceChildren();
      for (const index of order) {
        const sc = data.scenarios[index];
        if (activeTag && !sc.tags.includes(activeTag)) continue;
        if (text && !(sc.name + " " + sc.file + " " + sc.tags.join(" ")).toLowerCase().includes(text)) continue;
        const button = el("button", {type: "button", "data-index": String(index)},
          el("span", {class: sc.status}, mark(sc)), sc.name,
          el("div", {class: "file"}, `${sc.file}:${sc.line} · ${(sc.duration * 1000).toFixed(1)} ms`));
        if (index === chosen) button.setAttribute("aria-current", "true");
        button.onclick = () => choose(index, null);
        list.append(el("li", {class: "scenario " + sc.status}, button));
      }
    }
    const where = (sc, st) => /^\d+:\d+$/.test(st.at) ? `${sc.file}:${st.at}` : st.at;
    // The line of the scenario's file a step is at: its own, or the include that brought it.
    function stepLine(sc, st, i) {
      if (i === 0) return sc.line;
      if (/^\d+:\d+$/.test(st.at)) return Number(st.at.split(":")[0]);
      for (const origin of st.origin || []) {
        const m = origin.split(" ").pop().match(/^(.*):(\d+):(\d+)$/);
        if (m && m[1] === sc.file) return Number(m[2]);
      }
      return null;
    }
    const shellQuote = p => /^[A-Za-z0-9\/._+@%-]+$/.test(p) ? p : "'" + p.split("'").join("'\\''") + "'";
    function framesAt(sc, step) {
      const shown = {};
      for (let i = 0; i <= step && i < sc.steps.length; i++) {
        for (const [window, hash] of Object.entries(sc.steps[i].frames || {})) {
          if (hash === null) delete shown[window]; else shown[window] = hash;
        }
      }
      return shown;
    }
    function choose(index, step) {
      chosen = index;
      const sc = data.scenarios[index];
      if (step === null) {
        const failing = sc.steps.findIndex(st => st.outcome === "failed");
        step = failing >= 0 ? failing : sc.steps.length - 1;
      }
      chosenStep = Math.max(0, Math.min(step, sc.steps.length - 1));
      history.replaceState(null, "", `#s=${index}&t=${chosenStep}`);
      renderList();
      renderScenario();
    }
    function mark(sc) { return sc.status === "failed" ? "✘ " : sc.status === "skipped" ? "↷ " : "✔ "; }
    function renderScenario() {
      const sc = data.scenarios[chosen];
      const root = document.getElementById("scenario");
      root.replaceChildren();
      root.append(el("h2", {}, el("span", {class: sc.status}, mark(sc)), sc.name));
      if (sc.skipped) root.append(el("div", {class: "skipped", role: "note"}, "skipped: " + sc.skipped));
      root.append(el("div", {class: "file"}, `${sc.file}:${sc.line}` + (sc.tags.length ? " · " + sc.tags.join(", ") : "")));
      if (sc.failure) {
        root.append(el("div", {class: "failure", role: "alert"},
          el("strong", {}, `${sc.failure.location}: ${sc.failure.step}`), el("div", {}, sc.failure.message),
          el("pre", {class: "diff"}, sc.failure.details.join("\n"))));
      }
      // A file that could not be loaded ran no step: its mistakes are the failure above.
      if (!sc.steps.length) {
        root.append(el("p", {class: "hint", id: "no-steps"}, "No step ran: the file could not be loaded."));
        return;
      }
      if (sc.divergence) {
        const d = sc.divergence;
        const box = el("div", {class: "divergence"},
          el("strong", {}, `First divergence from the green run: step ${d.step} (${d.stepText})`));
        const button = el("button", {type: "button"}, "show that step");
        button.onclick = () => choose(chosen, d.step);
        box.append(" ", button, el("pre", {}, d.fields.map(f => `${f.path}: green ${f.baseline} → now ${f.actual}`).join("\n")));
        root.append(box);
      }
      const steps = el("ol", {class: "steps", "aria-label": "Steps"});
      sc.steps.forEach((st, i) => {
        const mark = st.outcome === "failed" ? "✘" : st.outcome === "expected-failure" ? "!" : "✔";
        const button = el("button", {type: "button", "data-step": String(i)},
          el("span", {class: st.outcome}, mark + " "), `${i}. ${st.text}`,
          el("div", {class: "meta"}, `${where(sc, st)} · ${st.ms.toFixed(2)} ms · clock ${st.clock} ms`));
        if (i === chosenStep) button.setAttribute("aria-current", "true");
        button.onclick = () => choose(chosen, i);
        steps.append(el("li", {}, button));
      });
      const detail = el("div", {class: "step-detail"});
      root.append(steps, detail);
      const st = sc.steps[chosenStep];
      detail.append(el("h3", {id: "step-title"}, `Step ${chosenStep}: ${st.text}`));
      const line = stepLine(sc, st, chosenStep);
      if (line !== null) {
        // The command that opens the session where this step left it, in the shell.
        const command = `workbench run ${shellQuote(sc.file)}:${line} --shell`;
        const copy = el("button", {type: "button", class: "copy", "aria-label": "copy the command"}, "copy");
        copy.onclick = () => {
          if (navigator.clipboard) navigator.clipboard.writeText(command).then(() => { copy.textContent = "copied"; }, () => {});
        };
        detail.append(el("div", {class: "open-here"}, "Open the session after this step: ",
          el("code", {id: "shell-command"}, command), " ", copy));
      }
      if (st.message) detail.append(el("div", {class: st.outcome === "failed" ? "failure" : "hint"}, st.message));
      if (st.details) detail.append(el("pre", {class: "diff"}, st.details.join("\n")));
      if (st.output) detail.append(el("h3", {}, "Output"), el("pre", {class: "output"}, st.output.join("\n")));
      if (st.facts) detail.append(el("h3", {}, "Recorded facts served"), el("pre", {}, st.facts.join("\n")));
      const now = framesAt(sc, chosenStep), before = chosenStep > 0 ? framesAt(sc, chosenStep - 1) : {};
      const windows = el("div", {class: "windows", id: "frames"});
      for (const label of windowOrder(sc, st)) {
        const hash = now[label];
        const box = el("section", {class: "window" + (hash ? "" : " closed"), "data-window": label});
        if (!hash) { box.append(el("h4", {}, `${label} (not open)`)); windows.append(box); continue; }
        const frame = data.frames[hash];
        box.append(el("h4", {}, `${label} · ${frame.screen}` + (before[label] !== hash ? " · changed" : "")));
        const old = before[label] ? new Set(data.frames[before[label]].text.split("\n")) : new Set();
        const pre = el("pre", {});
        for (const line of frame.text.split("\n")) {
          const changed = before[label] !== hash && !old.has(line);
          pre.append(changed ? el("mark", {}, line) : line, "\n");
        }
        const body = el("div", {class: "body"}, pre);
        const diagram = data.diagrams.find(d => d.screen === frame.screen);
        if (diagram) body.append(drawDiagram(diagram, frame.state));
        box.append(body);
        windows.append(box);
      }
      detail.append(el("h3", {}, "Windows after this step"), windows);
      const current = steps.querySelector('[aria-current="true"]');
      if (current && current.scrollIntoView) current.scrollIntoView({block: "nearest"});
    }
    // The windows a step is about come first: those its failure names (the window whose
    // expectation failed at the top), then those the step names, then the others in order.
    function windowOrder(sc, st) {
      const named = [];
      const add = label => { if (sc.windows.includes(label) && !named.includes(label)) named.push(label); };
      for (const line of st.details || []) {
        const m = /^\s*([^.\s\[]+)[.\[]/.exec(line);
        if (m) add(m[1]);
      }
      const text = st.text || "";
      const key = /^([^:\s]+):/.exec(text);
      if (key && key[1] === "expect") text.slice(key[0].length).split(",").forEach(w => add(w.trim()));
      else if (key && key[1] !== "do") add(key[1]);
      for (const m of text.matchAll(/@([A-Za-z0-9_-]+)/g)) add(m[1]);
      return named.concat(sc.windows.filter(label => !named.includes(label)));
    }
    function drawDiagram(diagram, state) {
      const box = el("div", {class: "diagram", "data-state": String(state)});
      if (diagram.svg) {
        box.innerHTML = diagram.svg;
        for (const node of box.querySelectorAll("g.node")) {
          const title = node.querySelector("title");
          if (title && title.textContent === String(state)) node.classList.add("current");
        }
      } else {
        const pre = el("pre", {});
        for (const line of diagram.mermaid.split("\n")) {
          const current = line.trim().startsWith(String(state) + " ") || line.includes("--> " + state + ":");
          pre.append(current ? el("span", {class: "current-line"}, line) : line, "\n");
        }
        box.append(pre);
      }
      return box;
    }
    document.addEventListener("keydown", event => {
      if (chosen === null || event.target === filter) return;
      const count = data.scenarios[chosen].steps.length;
      if (event.key === "ArrowDown" || event.key === "j") { choose(chosen, Math.min(count - 1, chosenStep + 1)); event.preventDefault(); }
      if (event.key === "ArrowUp" || event.key === "k") { choose(chosen, Math.max(0, chosenStep - 1)); event.preventDefault(); }
    });
    renderList();
    const match = /s=(\d+)&t=(\d+)/.exec(location.hash);
    if (match && data.scenarios[+match[1]]) choose(+match[1], +match[2]);
    else if (order.length && !(location.hash === "#coverage" && data.coverage)) choose(order[0], null);
    """#
}
