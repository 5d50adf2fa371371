import WorkbenchCore
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The diagrams a report draws beside windows: a module's state machine named as a screen
/// (the ledger's `feed`) goes beside that screen's windows, with the node the frame's `state`
/// field names marked. Drawn as SVG by Graphviz's `dot` where it is installed and the diagram
/// is small enough to lay out in a moment, else given as Mermaid text. `make` gives the Graphviz source; the report's data draws it
/// (`HTMLReport.PageData.drawDiagrams()`).
public enum ReportDiagrams {
  /// The largest diagram given to Graphviz: its layout time grows steeply with size (measured
  /// with `dot -Tsvg` here: 40 nodes and 100 labelled edges 0.1 s, 60 and 200 2 s, 100 and 400
  /// over 30 s). A larger one (an external module's handshake may declare any state machine) is
  /// shown as Mermaid text.
  public static let maximumNodes = 40
  public static let maximumEdges = 100
  /// The most bytes of DOT source (long labels cost layout time too).
  public static let maximumSource = 64 * 1024
  /// How long `dot` may take before it is ended and the diagram shown as Mermaid text.
  public static let timeLimitMilliseconds = 5_000

  @MainActor
  public static func make(registry: ModuleRegistry) -> [HTMLReport.ScreenDiagram] {
    let screens = Set(registry.screens.map(\.name))
    var result: [HTMLReport.ScreenDiagram] = []
    // Only the diagrams named as screens are drawn.
    for name in registry.moduleDiagramNames where screens.contains(name) {
      guard let diagram = registry.diagram(named: name), diagram.isStateMachine else { continue }
      let source = diagram.dot
      let drawable =
        diagram.nodes.count <= maximumNodes && diagram.edges.count <= maximumEdges
        && source.utf8.count <= maximumSource
      result.append(
        HTMLReport.ScreenDiagram(
          screen: name, field: "state", mermaid: diagram.mermaid, svg: nil, dot: drawable ? source : nil))
    }
    return result
  }

  /// The SVG `dot -Tsvg` makes of `source`, or `nil` when Graphviz is not installed, fails, or
  /// takes longer than `timeLimit` milliseconds (it is then ended).
  ///
  /// The source goes to `dot` on a pipe and the SVG comes back on another: no temporary files
  /// to leave behind. `dot` stays in this process's group, so Ctrl-C at the terminal ends it
  /// with the run; a runner killed alone leaves it at most the layout of a bounded diagram,
  /// after which its write to the closed pipe ends it.
  static func svg(fromDOT source: String, program: String = "dot", timeLimit: Int = timeLimitMilliseconds)
    -> String?
  {
    var toChild: [Int32] = [0, 0]
    var fromChild: [Int32] = [0, 0]
    guard pipe(&toChild) == 0 else { return nil }
    guard pipe(&fromChild) == 0 else {
      toChild.forEach { close($0) }
      return nil
    }
    for descriptor in toChild + fromChild { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = [strdup(program), strdup("-Tsvg"), nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = Spawning.withDefaultSignals { attributes in
      posix_spawnp(&pid, program, &actions, &attributes, argv, environ)
    }
    close(toChild[0])
    close(fromChild[1])
    let input = toChild[1]
    let output = fromChild[0]
    guard spawned == 0 else {
      close(input)
      close(output)
      return nil
    }
    _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
    let bytes = Array(source.utf8)
    var written = 0
    var inputOpen = true
    var svg: [UInt8] = []
    var finished = false
    let deadline = monotonicMilliseconds() + timeLimit
    while !finished {
      let left = deadline - monotonicMilliseconds()
      guard left > 0 else { break }
      var polled = [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
      if inputOpen { polled.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0)) }
      let ready = poll(&polled, nfds_t(polled.count), Int32(min(left, 1000)))
      if ready < 0 && errno != EINTR { break }
      if inputOpen, polled.count > 1, polled[1].revents != 0 {
        let count = bytes.withUnsafeBytes { write(input, $0.baseAddress! + written, bytes.count - written) }
        if count > 0 { written += count }
        if written == bytes.count || (count < 0 && errno != EAGAIN && errno != EINTR) {
          close(input)
          inputOpen = false
        }
      }
      if polled[0].revents != 0 {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = read(output, &chunk, chunk.count)
        if count > 0 {
          svg += chunk[..<count]
        } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
          finished = true
        }
      }
    }
    if inputOpen { close(input) }
    close(output)
    var status: Int32 = 0
    if !finished { kill(pid, SIGKILL) }
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    guard finished, status == 0 else { return nil }
    let text = String(decoding: svg, as: UTF8.self)
    // The SVG element itself, without the XML prologue and doctype.
    guard let start = text.firstRange(of: "<svg") else { return nil }
    return String(text[start.lowerBound...])
  }

  private static func monotonicMilliseconds() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
  }
}
