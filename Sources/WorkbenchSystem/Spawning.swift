#if canImport(Glibc)
  import Glibc
#endif

/// What every child the workbench starts gets: signals this process ignores or catches
/// (SIGPIPE above all) back at their defaults, as a login shell would start it, so a child
/// that writes to a closed pipe dies of it instead of hiding the error; and no signal blocked.
/// A child inherits the mask of the thread that spawns it, and a worker thread (Dispatch's, a
/// test runner's) blocks nearly every signal: a child started there would never hear SIGTERM,
/// SIGINT or SIGPIPE.
public enum Spawning {
  /// Calls `body` with spawn attributes that reset `signals` to their defaults, and, when
  /// `newProcessGroup`, put the child in a group of its own.
  public static func withDefaultSignals<Result>(
    _ signals: [Int32] = [SIGPIPE], newProcessGroup: Bool = false,
    _ body: (inout posix_spawnattr_t) -> Result
  ) -> Result {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in signals { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    posix_spawnattr_setsigmask(&attributes, &unblocked)
    var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
    if newProcessGroup {
      posix_spawnattr_setpgroup(&attributes, 0)
      flags |= Int32(POSIX_SPAWN_SETPGROUP)
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))
    return body(&attributes)
  }
}
