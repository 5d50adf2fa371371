import Catalog
import Editor
import Goal
import Ledger
import Lights
import WorkbenchModuleAPI

/// The feature modules built into the `workbench` binary, in the order they load. The
/// executable, the benchmarks and the tests all take the list from here.
public let builtInModules: [any FeatureModule] = [
  CatalogModule(), GoalModule(), EditorModule(), LightsModule(), LedgerModule(),
]
