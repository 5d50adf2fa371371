import WorkbenchCore

/// The ledger module: a transaction feed as one state machine, loads as effects on the session
/// clock, navigation as a value with deep links, app session state, and exact money.
public struct LedgerModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "ledger", version: "1.0.0", summary: "A transaction feed: MVVM with one state machine")
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
  }
}
