import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchExternalModules
import WorkbenchModuleAPI
import WorkbenchSession
import WorkbenchStore
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The program's version.
public enum WorkbenchVersion {
  /// The version `--version` prints.
  public static let current = "0.1.0"
}

/// The shell front end: picks interactive or batch mode and runs it.
@MainActor
public enum Shell {
  /// Runs the shell with the given options on a host with `modules`; returns the exit code.
  public static func run(options: ShellOptions, modules: [any FeatureModule]) -> ExitCode {
    let (interactive, output) = frontEnd(options)
    let session: WorkbenchSession
    var modules = modules
    do {
      // An in-memory workspace is nobody else's and ends with the process: the session starts
      // without one and makes it only if something needs it (a relaunch), as a scenario's does.
      let store = options.workspace == ":memory:" ? nil : try Workspace.openStore(path: options.workspace)
      if let store, let mode = store.tightenedMode {
        // The mode said is the one set: a file its owner made read-only stays so (0400).
        StandardStreams.error(
          "note: the workspace \(store.path) could be read by other users; it is now readable by you only "
            + "(\(String(mode, radix: 8).leftPadded(to: 4, with: "0")))\n")
      }
      // A module the workspace remembers may have gone away: say so and carry on. One named on
      // this command line is what the user asked for: if it cannot start, nothing runs.
      let remembered = ExternalModules.load(try store?.modulePaths() ?? [])
      for problem in remembered.errors { output.writeError(problem, place: nil) }
      let named = ExternalModules.load(options.modulePaths)
      modules += remembered.modules + named.modules
      if !named.errors.isEmpty {
        for problem in named.errors { output.writeError(problem, place: nil) }
        ExternalModules.shutdown(modules)
        return .usage
      }
      // The workspace remembers the modules it has seen, so their documents and windows can
      // say whose they are when the module is not loaded.
      for case let module as ExternalModule in modules { try? store?.rememberModule(module.known) }
      session = try Workspace.session(
        store: store, modules: modules, environment: ScreenEnvironment(viewportRows: options.viewportRows),
        restoringWindows: interactive)
      // Said once, not at every start: a note, not an error.
      if let note = DormantNote.text(for: session.host), (try? store?.noteOnce(note)) == true {
        StandardStreams.error("note: \(note)\n")
      }
    } catch let error as StoreError {
      output.writeError(error.message, place: nil)
      ExternalModules.shutdown(modules)
      return .failure
    } catch let error as CommandError {
      output.writeError(error.message, place: nil)
      ExternalModules.shutdown(modules)
      return .failure
    } catch {
      output.writeError(String(describing: error), place: nil)
      ExternalModules.shutdown(modules)
      return .failure
    }
    for warning in session.host.restorationWarnings { output.writeError(warning.message, place: nil) }
    // A session of lines typed or piped keeps its steps, for `back` and `forward`; a one-shot
    // `-c` line has no steps to go back to and does not pay for them.
    if options.commands == nil {
      do {
        session.journal = try SessionJournal(startingAt: session)
      } catch {
        output.writeError("time travel is off in this session: its start could not be kept (\(error))", place: nil)
      }
    }
    defer { ExternalModules.shutdown(modules) }
    return drive(session, options: options, output: output, interactive: interactive, modules: modules)
  }

  /// Runs the shell on a session opened elsewhere (`workbench run FILE:LINE --shell`), after
  /// printing `introduction`; returns the exit code. The caller ends the module processes.
  public static func run(session: WorkbenchSession, introduction: String, options: ShellOptions) -> ExitCode {
    let (interactive, output) = frontEnd(options)
    output.write(.text(introduction), host: session.host)
    return drive(session, options: options, output: output, interactive: interactive, modules: [])
  }

  /// Whether the shell is at a terminal (no `-c`, both ends a terminal), and its output.
  private static func frontEnd(_ options: ShellOptions) -> (interactive: Bool, output: OutputWriter) {
    let interactive = options.commands == nil && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    let output = OutputWriter(
      json: options.json,
      color: OutputWriter.colorWanted(on: STDOUT_FILENO, allowed: options.colorAllowed && !options.json),
      mode: options.output.flatMap(OutputWriter.Mode.init(rawValue:)))
    return (interactive, output)
  }

  /// The shell on `session`: a line, a script or the prompt, until the end.
  private static func drive(
    _ session: WorkbenchSession, options: ShellOptions, output: OutputWriter, interactive: Bool,
    modules: [any FeatureModule]
  ) -> ExitCode {
    let controller = ShellController(session: session, options: options, output: output)
    // The session's windows end properly (module processes are ended after).
    defer {
      controller.finishRecording(because: "the session ends")
      session.end()
      // Module processes are told the session ended; one that stops as it is told says so.
      for incident in session.finish() { output.writeError(incident, place: nil) }
    }
    if options.watch, !interactive {
      output.writeError("--watch works in the interactive shell (`workbench run --watch` for scenarios)", place: nil)
      return .usage
    }
    if let commands = options.commands {
      return BatchSession(controller: controller).run(commands: commands)
    }
    if interactive {
      controller.canAsk = true
      controller.canWatch = true
      controller.savesSessionAfterEachLine = true
      session.remindsOfUnwrittenSteps = true
      output.pager = Pager.fromEnvironment()
      let watcher = options.watch ? ModuleWatcher(modules: modules) : nil
      let status = InteractiveSession(controller: controller, watcher: watcher).run()
      return controller.saveSession() ? status : .failure
    }
    return BatchSession(controller: controller).runStandardInput()
  }

  /// The commands the shell brings to a session beside the host's and the modules' (`record`,
  /// `history`, `quit`...), for a session made elsewhere that the shell will run.
  public static var commands: [CommandSpec] { ShellCommands.all }

  /// The command reference in Markdown (docs/commands.md): the host's commands, the shell's
  /// and the modules'.
  package static func reference(modules: [any FeatureModule]) throws(RegistrationError) -> String {
    CommandReference.markdown(for: Host(registry: try ShellCommands.registry(modules: modules)))
  }

  /// Prints the command reference in Markdown.
  public static func printReference(modules: [any FeatureModule]) -> ExitCode {
    do {
      StandardStreams.out(try reference(modules: modules))
      return .success
    } catch {
      StandardStreams.error("error: \(error.message)\n")
      return .failure
    }
  }
}

extension String {
  /// The string with `pad` in front until it is `width` characters long.
  fileprivate func leftPadded(to width: Int, with pad: Character) -> String {
    String(repeating: String(pad), count: max(0, width - count)) + self
  }
}
