import CSystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// The process groups of children that must not outlive this process (module processes, each
/// in a group of its own): a worker its parent ends (`explore --jobs` past the first failure, an
/// editor cancelling a run) ends them too, even when one is stuck in a request and would never
/// read the end of its input.
public enum ChildGroups {
  /// Notes a child's process group.
  public static func hold(_ group: pid_t) { workbench_hold_group(group) }
  /// Forgets a group that was ended.
  public static func release(_ group: pid_t) { workbench_release_group(group) }
  /// Notes a worker (this program started again), which ends its own groups when it is ended.
  public static func holdWorker(_ pid: pid_t) { workbench_hold_worker(pid) }
  /// Forgets a worker that ended.
  public static func releaseWorker(_ pid: pid_t) { workbench_release_worker(pid) }
  /// From now on SIGTERM, SIGHUP and SIGINT end every worker and group held, then this process,
  /// as the signal would have. The program installs it as it starts (whatever ends it, nothing
  /// it started runs on); the interactive shell then takes Ctrl-C for itself.
  public static func endOnTermination() { workbench_end_groups_on_termination() }
}
