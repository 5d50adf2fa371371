// The built-in lights, unchanged, as a module process through the Swift kit: its bridge,
// detections on timers and scopes run in the process, and a change that reaches several
// windows comes back as protocol 2 updates (`--without-builtin lights`).
import Lights
import WorkbenchModuleKit

ModuleMain.run(LightsModule())
