/// A diagram a module draws from its own code (a state machine from its transition table), or
/// the host draws from the registry: nodes and labelled edges, printed as Mermaid or Graphviz.
public struct Diagram: Equatable, Sendable {
  /// An edge from one node to another, with a label.
  public struct Edge: Equatable, Sendable {
    public var from: String
    public var to: String
    public var label: String

    public init(from: String, to: String, label: String = "") {
      self.from = from
      self.to = to
      self.label = label
    }
  }

  /// What it shows, in a few words.
  public var title: String
  /// Whether it is a state machine (drawn as one in Mermaid).
  public var isStateMachine: Bool
  /// The node a state machine starts in.
  public var start: String?
  public var nodes: [String]
  public var edges: [Edge]

  public init(title: String, isStateMachine: Bool = false, start: String? = nil, nodes: [String], edges: [Edge]) {
    self.title = title
    self.isStateMachine = isStateMachine
    self.start = start
    self.nodes = nodes
    self.edges = edges
  }

  /// Mermaid, which GitHub and most Markdown viewers draw.
  package var mermaid: String {
    var lines: [String] = []
    if isStateMachine {
      lines.append("stateDiagram-v2")
      if let start { lines.append("  [*] --> \(identifier(start))") }
      for node in nodes where identifier(node) != node { lines.append("  state \"\(node)\" as \(identifier(node))") }
      for edge in edges {
        lines.append(
          "  \(identifier(edge.from)) --> \(identifier(edge.to))" + (edge.label.isEmpty ? "" : ": \(edge.label)"))
      }
    } else {
      lines.append("flowchart LR")
      // Mermaid ends a quoted label at a quote: it is written as an entity.
      for node in nodes { lines.append("  \(identifier(node))[\"\(node.replacing("\"", with: "#quot;"))\"]") }
      for edge in edges {
        let label = edge.label.isEmpty ? "" : "|\(edge.label)|"
        lines.append("  \(identifier(edge.from)) -->\(label) \(identifier(edge.to))")
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Graphviz DOT, for `dot -Tsvg`.
  package var dot: String { dot(nodeAttributes: { _ in [] }, edgeAttributes: { _ in [] }) }

  /// Graphviz DOT with attributes of the caller's on each node and edge (`color=red`), as a
  /// coverage page marks what was reached and what was not.
  package func dot(nodeAttributes: (String) -> [String], edgeAttributes: (Edge) -> [String]) -> String {
    func quoted(_ text: String) -> String {
      "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }
    func list(_ attributes: [String]) -> String {
      attributes.isEmpty ? "" : " [" + attributes.joined(separator: ", ") + "]"
    }
    var lines = [
      "digraph \(quoted(title)) {", "  rankdir=LR;", "  node [shape=\(isStateMachine ? "ellipse" : "box")];",
    ]
    if let start {
      lines.append("  __start [shape=point];")
      lines.append("  __start -> \(quoted(start));")
    }
    for node in nodes { lines.append("  \(quoted(node))\(list(nodeAttributes(node)));") }
    for edge in edges {
      let label = edge.label.isEmpty ? [] : ["label=\(quoted(edge.label))"]
      lines.append("  \(quoted(edge.from)) -> \(quoted(edge.to))" + list(label + edgeAttributes(edge)) + ";")
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  /// A Mermaid-safe identifier for a node name.
  private func identifier(_ name: String) -> String {
    let safe = String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    return safe.first?.isLetter == true ? safe : "n_" + safe
  }
}
