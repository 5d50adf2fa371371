// The habits module as a process of its own: `workbench --module .build/debug/habits-module`.
import Habits
import WorkbenchModuleKit

ModuleMain.run(HabitsModule())
