import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol
import WorkbenchSystem
import WorkbenchTestSupport

@testable import WorkbenchExternalModules

#if canImport(Glibc)
  import Glibc
#endif

/// Before each request the host asks whether the module's own process has ended since the last
/// one (§9), in the same `poll` that looks for messages nobody asked for. A process that exited
/// is stopped there, even when a child it forked holds its pipes and would answer for it.
@MainActor struct EndedBetweenRequestsTests {
  @Test func aModuleThatExitedIsStoppedAtTheNextRequestThoughAChildHoldsItsPipes() throws {
    let folder = makeTemporaryFolder()
    let script = folder + "/kettle-that-forks"
    // The kettle forks after its hello and the process the host started exits.
    let kettle = repositoryRoot() + "/Tests/ProcessModules/Kettle/kettle.pl"
    #expect(FileSystem.write("#!/bin/sh\nKETTLE_MODE=fork-exit exec perl '\(kettle)'\n", to: script, mode: 0o755))
    let process = try ModuleProcess(path: script)
    defer { process.shutdown() }
    let pid = process.pid
    try #require(pid > 0)
    // Until the kernel has it as ended (a zombie, not reaped yet).
    for _ in 0..<400 where !Self.isZombie(pid) { usleep(5_000) }
    try #require(Self.isZombie(pid))
    #expect(throws: CommandError.self) { try process.call(.sync(SessionRequest())) }
    #expect(process.stopReason == "it ended between requests (it exited with status 0)", "\(process.stopReason ?? "")")
  }

  /// Whether `/proc` has the process as ended and not yet reaped.
  static func isZombie(_ pid: pid_t) -> Bool {
    guard let bytes = try? FileSystem.read("/proc/\(pid)/stat") else { return false }
    let stat = String(decoding: bytes, as: UTF8.self)
    guard let close = stat.lastIndex(of: ")") else { return false }
    return stat[close...].hasPrefix(") Z")
  }
}
