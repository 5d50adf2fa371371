import WorkbenchCommandLine
import WorkbenchCore
import WorkbenchExternalModules
import WorkbenchModuleAPI
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Watches the executables of external modules (`--watch`): when one changes (a rebuild) and
/// has stopped changing, the module is started again in place and its windows reopen with
/// their documents and view states. A build that does not start keeps the old process, and
/// the next change tries again. In the background (the language server's), a new build is
/// started and looked at again at each `check` until it has introduced itself, so nothing waits
/// for it meanwhile.
@MainActor
public final class ModuleWatcher {
  struct Stamp: Equatable {
    var modified: Int
    var size: Int
    var inode: UInt
  }

  private var watched: [(module: ExternalModule, stamp: Stamp?, pending: Stamp?)]
  /// Every module of the session, built in and external, to register again when a rebuilt one
  /// registers other commands, screens or document kinds.
  private let modules: [any FeatureModule]
  /// Whether a new build is taken in without waiting for its handshake.
  private let inTheBackground: Bool
  /// New builds started and not yet introduced, by the index of their module in `watched`,
  /// with when each was started (for the line said when it is taken in).
  private var starting: [Int: (reload: PendingReload, since: Int)] = [:]

  /// - Parameter inTheBackground: whether a new build is started and taken in once it has
  ///   introduced itself, over later `check`s, rather than waited for (the language server,
  ///   which answers the editor meanwhile from the registration before it).
  public init(modules: [any FeatureModule], inTheBackground: Bool = false) {
    self.modules = modules
    self.inTheBackground = inTheBackground
    watched = modules.compactMap { $0 as? ExternalModule }.map { ($0, Self.stamp($0.path), nil) }
  }

  /// The descriptors new builds' handshakes arrive on, while any is awaited.
  public var awaitedDescriptors: [Int32] { starting.keys.sorted().compactMap { starting[$0]?.reload.descriptor } }

  /// Whether the last `check` reloaded a module whose registration changed: the session's
  /// registry must be made again (`registry()`).
  public private(set) var registrationChanged = false

  /// The modules registered again, with the rebuilt ones' new commands, screens and kinds.
  package func registry() throws(RegistrationError) -> ModuleRegistry { try ShellCommands.registry(modules: modules) }

  static func stamp(_ path: String) -> Stamp? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Stamp(
      modified: Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec), size: Int(info.st_size),
      inode: UInt(info.st_ino))
  }

  /// What happened since the last look: a line for each module started again (or not).
  @discardableResult
  public func check() -> [String] {
    var lines: [String] = []
    registrationChanged = false
    for (index, awaited) in starting.sorted(by: { $0.key < $1.key }) {
      guard let outcome = awaited.reload.poll() else { continue }
      starting[index] = nil
      lines.append(said(outcome, of: index, elapsed: monotonicMilliseconds() - awaited.since))
    }
    for index in watched.indices {
      let path = watched[index].module.path
      let now = Self.stamp(path)
      guard now != watched[index].stamp else {
        watched[index].pending = nil
        continue
      }
      // A build writes the file in steps: act once two looks in a row agree.
      guard let now, watched[index].pending == now else {
        watched[index].pending = now
        continue
      }
      let previous = watched[index].stamp
      watched[index].stamp = now
      watched[index].pending = nil
      let start = monotonicMilliseconds()
      // A newer build replaces one still starting.
      starting.removeValue(forKey: index)?.reload.abandon()
      let outcome: Result<(reopened: Int, needsRestart: String?), CommandError>
      do {
        if inTheBackground {
          let reload = try watched[index].module.beginReload()
          guard let done = reload.poll() else {
            starting[index] = (reload, start)
            continue
          }
          outcome = done
        } else {
          outcome = .success(try watched[index].module.reload())
        }
      } catch {
        // Still open for writing somewhere (ETXTBSY): the same build is tried at the next look.
        if error.message.contains("Text file busy") {
          watched[index].stamp = previous
          continue
        }
        outcome = .failure(error)
      }
      lines.append(said(outcome, of: index, elapsed: monotonicMilliseconds() - start))
    }
    return lines
  }

  /// The line for a reload's outcome, noting a registration that changed.
  private func said(
    _ outcome: Result<(reopened: Int, needsRestart: String?), CommandError>, of index: Int, elapsed: Int
  ) -> String {
    let path = watched[index].module.path
    switch outcome {
    case .success(let (reopened, changes)):
      if changes != nil { registrationChanged = true }
      return "reloaded \(watched[index].module.manifest.name.split(separator: " ").first ?? "") from \(path) in "
        + "\(elapsed) ms: \(reopened) window\(reopened == 1 ? "" : "s") opened again"
        + (changes.map { "; \($0), taken in (help and completion know them now)" } ?? "")
    case .failure(let error):
      return "the new build of \(path) did not start (\(error.message)); its windows keep the last good one"
    }
  }

  private func monotonicMilliseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int(now.tv_sec) * 1000 + Int(now.tv_nsec) / 1_000_000
  }
}

/// `workbench run --watch`: runs the scenarios, then again whenever a scenario file under the
/// paths or the executable of a module (`--module`) changes; a changed module is started again
/// first. Ctrl-C ends it.
@MainActor
public enum WatchLoop {
  public static func run(paths: [String], modules: [any FeatureModule], body: () -> ExitCode) -> Never {
    let external = modules.compactMap { $0 as? ExternalModule }
    let watcher = ModuleWatcher(modules: external)
    _ = body()
    var files = stamps(paths)
    StandardStreams.out(
      "\nwatching \(files.count) scenario file\(files.count == 1 ? "" : "s")"
        + (external.isEmpty ? "" : " and \(external.count) module\(external.count == 1 ? "" : "s")")
        + " (Ctrl-C stops)\n")
    while true {
      usleep(150_000)
      let reloads = watcher.check()
      let now = stamps(paths)
      guard now != files || !reloads.isEmpty else { continue }
      let changed = now.keys.filter { now[$0] != files[$0] }.sorted() + files.keys.filter { now[$0] == nil }.sorted()
      files = now
      for line in reloads { StandardStreams.out(line + "\n") }
      if reloads.contains(where: { $0.contains("did not start") }), changed.isEmpty { continue }
      let what = changed.isEmpty ? "the module" : changed.prefix(3).joined(separator: ", ")
      StandardStreams.out("\n--- \(what) changed: running again\n")
      _ = body()
    }
  }

  /// The scenario files under `paths` with their stamps.
  static func stamps(_ paths: [String]) -> [String: ModuleWatcher.Stamp] {
    var result: [String: ModuleWatcher.Stamp] = [:]
    for path in paths {
      let files = FileSystem.isDirectory(path) ? FileSystem.files(under: path) : [path]
      for file in files where file.hasSuffix(".yaml") || file.hasSuffix(".yml") {
        result[file] = ModuleWatcher.stamp(file)
      }
    }
    return result
  }
}
