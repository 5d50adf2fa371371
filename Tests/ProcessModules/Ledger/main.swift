// The built-in ledger, unchanged, as a module process through the Swift kit: with protocol 2
// its loads, debounce and retries run on the host's clock, so the ledger's own scenarios pass
// against it with the built-in module left out (`--without-builtin ledger`).
import Ledger
import WorkbenchModuleKit

ModuleMain.run(LedgerModule())
