import Tasks
import WorkbenchModuleKit

ModuleMain.run(TasksModule())
