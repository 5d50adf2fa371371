import WorkbenchModuleAPI

/// The ledger module: a transaction feed as one state machine, loads as effects on the session
/// clock, navigation as a value with deep links, app session state, and exact money.
public struct LedgerModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "ledger", version: "1.0.0", summary: "A transaction feed: MVVM with one state machine")
  }

  // The names it registers, so a start registers the module only when one is first needed.
  // Written out, not read from the command specs: making them costs a start that never uses the
  // module more than all its other work (the registry refuses a registration that differs, and
  // a test registers every built-in).
  public var declaredIndex: ModuleIndex? {
    ModuleIndex(
      screens: [("feed", "ledger")], documentKinds: [("ledger", ["account"])],
      commands: [
        "back", "debounce", "detail", "dispute", "link", "network", "refresh", "retry", "search", "send", "session",
      ])
  }

  @MainActor public func register(into registrar: Registrar) {
    registrar.diagram("feed") { FeedMachine.diagram }
    registrar.diagram("routes") { DeepLink.diagram }
    registrar.register(
      document: LedgerDocument.self, kind: "ledger", summary: "an account's balance, transactions and recipients",
      samples: ["account": .sample],
      screens: [
        .screen(LedgerScreen.self, name: "feed", summary: "the transaction feed", render: LedgerRendering.text)
      ],
      commands: LedgerCommands.all)
    let count = FactType.integer(0...Int.max)
    registrar.fact(
      "network.state",
      .object([("online", .boolean), ("latency", .duration), ("failuresToCome", count), ("requests", count)]),
      summary: "the simulated network when recording started")
    registrar.fact("network.latency", .duration, summary: "how long a load took")
    registrar.fact(
      "network.answer", .oneOf([.object([("rows", .list(.idRun))]), .object([("failure", .text)])]),
      summary: "the server's answer to a load: the transactions' ids, or why it failed")
    let admitted = FactType.oneOf([.null, .text])
    registrar.fact("network.send", admitted, summary: "whether a payment went through (null), or why not")
    registrar.fact("network.dispute", admitted, summary: "whether a dispute went through (null), or why not")
  }
}
