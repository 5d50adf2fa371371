import Documented
import WorkbenchModuleKit

ModuleMain.run(DocumentedModule())
