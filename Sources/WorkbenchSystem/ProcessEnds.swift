import CSystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// Seeing the other side go without a signal or a system call more than needed: a write to a
/// reader that has gone fails with EPIPE, and a child that ended makes a descriptor readable,
/// so one `poll` can ask for it beside a pipe.
public enum ProcessEnds {
  /// Makes a write to a pipe whose reader has gone fail with EPIPE instead of ending this
  /// process, without changing what the programs it starts inherit: SIGPIPE at its default is
  /// caught by a handler that does nothing (exec sets a caught signal back to its default,
  /// where an ignored one would stay ignored in every child).
  ///
  /// - Returns: whether such a write now fails with EPIPE (caught here, or ignored already);
  ///   `false` when the program handles SIGPIPE itself, which is left as it is.
  public static func makeBrokenPipesErrors() -> Bool { workbench_catch_broken_pipes() == 1 }

  /// A descriptor that becomes readable when the process `pid` (a child of this one) ends,
  /// close-on-exec; `nil` where the kernel has none to give (`pidfd_open`, Linux 5.3).
  public static func descriptor(of pid: pid_t) -> Int32? {
    let descriptor = workbench_process_descriptor(pid)
    return descriptor >= 0 ? descriptor : nil
  }
}
