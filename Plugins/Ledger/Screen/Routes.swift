import WorkbenchModuleAPI

/// Where the user can go from the feed: navigation as a value.
public enum Route: Codable, Equatable, Hashable, Sendable, CustomStringConvertible {
  case detail(Int)
  case dispute(Int)

  public var description: String {
    switch self {
    case .detail(let id): "detail(\(id))"
    case .dispute(let id): "dispute(\(id))"
    }
  }
}

/// Deep links: `ledger://transaction/42` and `ledger://transaction/42/dispute`.
public enum DeepLink {
  /// The path a link stands for.
  public static func routes(for link: String) throws(LedgerLinkError) -> [Route] {
    let prefix = "ledger://"
    guard link.hasPrefix(prefix) else {
      throw LedgerLinkError("'\(link)' is not a ledger link: links start with ledger://")
    }
    let parts = link.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
    if parts == [""] { return [] }
    guard parts.count >= 2, parts[0] == "transaction", let id = Int(parts[1]), id > 0 else {
      throw LedgerLinkError("'\(link)' does not name a transaction: write ledger://transaction/ID[/dispute]")
    }
    switch parts.count {
    case 2: return [.detail(id)]
    case 3 where parts[2] == "dispute": return [.detail(id), .dispute(id)]
    default: throw LedgerLinkError("'\(link)' has an unknown part '\(parts.dropFirst(2).joined(separator: "/"))'")
    }
  }

  /// The link that stands for a path.
  public static func link(for path: [Route]) -> String {
    switch path.last {
    case nil: return "ledger://"
    case .detail(let id): return "ledger://transaction/\(id)"
    case .dispute(let id): return "ledger://transaction/\(id)/dispute"
    }
  }
}

/// A link that could not be followed.
public struct LedgerLinkError: Error, Equatable, Sendable {
  public let message: String
  init(_ message: String) { self.message = message }
}

/// A dispute of one charge, with its own small state machine.
public struct DisputeFlow: Codable, Equatable, Sendable {
  public enum Step: String, Codable, Sendable {
    case choosingReason = "choosing reason"
    case reviewing, submitted
  }
  public var transactionID: Int
  public var step: Step
  public var reason: String?
}

extension DeepLink {
  /// The routes and the links that lead to them, for `workbench diagram routes`: each link's
  /// path comes from `routes(for:)` itself, so the diagram follows the parser.
  static var diagram: Diagram {
    let id = 7
    func node(_ route: Route?) -> String {
      guard let route else { return "feed" }
      return route.description.replacing(String(id), with: "ID")
    }
    var nodes = ["feed", node(.detail(id)), node(.dispute(id))]
    var edges: [Diagram.Edge] = [
      .init(from: "feed", to: node(.detail(id)), label: "detail ID"),
      .init(from: node(.detail(id)), to: node(.dispute(id)), label: "dispute start"),
      .init(from: node(.dispute(id)), to: node(.detail(id)), label: "back"),
      .init(from: node(.detail(id)), to: "feed", label: "back, or signing out"),
    ]
    for path in [[], [Route.detail(id)], [.detail(id), .dispute(id)]] {
      let link = self.link(for: path)
      let parsed = (try? routes(for: link)) ?? []
      let shown = link.replacing(String(id), with: "ID")
      nodes.append(shown)
      edges.append(
        .init(from: shown, to: node(parsed.last), label: "path [" + parsed.map(node).joined(separator: ", ") + "]"))
    }
    return Diagram(title: "the feed's routes and the deep links to them", nodes: nodes, edges: edges)
  }
}
