import Testing
import WorkbenchSQLiteFaults
import WorkbenchTestSupport

@testable import WorkbenchStore

/// The store under injected faults: the disk fills, fails or turns read-only in the middle of a
/// save (at every write of the save in turn). Each failure is reported with a clear message,
/// nothing the store acknowledged is lost, and the store keeps working once the fault is gone.
@MainActor
@Suite struct StoreFaultTests {
  init() { #expect(wb_faults_register() == 0) }

  private func body(_ number: Int) -> String {
    #"{"n":\#(number),"text":""# + String(repeating: "z", count: 40_000 + number) + #""}"#
  }

  @Test(arguments: [
    (Int32(WB_FAULT_DISK_FULL.rawValue), StoreError.Kind.full, "is full; nothing was saved"),
    // SQLite keeps no error number for failures at COMMIT, so these two read alike.
    (Int32(WB_FAULT_IO_ERROR.rawValue), .ioError, "could not be written (disk I/O error), so nothing was saved"),
    (Int32(WB_FAULT_READ_ONLY.rawValue), .ioError, "could not be written (disk I/O error), so nothing was saved"),
  ])
  func aFaultInTheMiddleOfASaveLosesNothingAcknowledged(kind: Int32, expected: StoreError.Kind, message: String) throws
  {
    let path = makeTemporaryFolder() + "/workspace.sqlite"
    let store = try WorkspaceStore(path: "file:\(path)?vfs=workbench-faults")
    var acknowledged = 0
    for number in 1...5 {
      guard
        case .saved(let revision) = try store.saveDocument(
          name: "d", kind: "k", body: body(number), baseRevision: acknowledged)
      else { throw StoreError(.other, "a setup save conflicted") }
      acknowledged = revision
    }
    var failures = 0
    // Let 0, 1, 2, ... writes through before the fault, so it lands at each point of a save.
    for allowed in 0..<16 {
      wb_faults_arm(path, kind, Int64(allowed))
      do {
        let outcome = try store.saveDocument(
          name: "d", kind: "k", body: body(100 + allowed), baseRevision: acknowledged)
        if case .saved(let revision) = outcome { acknowledged = revision }  // the fault came after the commit
      } catch {
        failures += 1
        #expect(error.kind == expected, "after \(allowed) writes: \(error.message)")
        #expect(error.message.contains(message), "after \(allowed) writes: \(error.message)")
      }
      wb_faults_arm(path, Int32(WB_FAULT_NONE.rawValue), 0)
      // The store carries on once the fault is gone.
      guard
        case .saved(let revision) = try store.saveDocument(
          name: "d", kind: "k", body: body(200 + allowed), baseRevision: acknowledged)
      else {
        Issue.record("a save after the fault conflicted")
        return
      }
      acknowledged = revision
    }
    #expect(failures >= 8, "the fault hit too few saves to test anything (\(failures))")
    let reopened = try WorkspaceStore(path: path)
    #expect(try reopened.integrityCheck() == "ok")
    let stored = try #require(try reopened.documents().first)
    #expect(stored.revision == acknowledged)
    #expect(stored.body == body(215))
  }

  @Test func aDiskFullAtTheFirstOpenLeavesNothingBehind() throws {
    let folder = makeTemporaryFolder()
    let path = folder + "/new.sqlite"
    wb_faults_arm(path, Int32(WB_FAULT_DISK_FULL.rawValue), 0)
    defer { wb_faults_arm(path, Int32(WB_FAULT_NONE.rawValue), 0) }
    do {
      _ = try WorkspaceStore(path: "file:\(path)?vfs=workbench-faults")
      Issue.record("created a workspace on a full disk")
    } catch {
      #expect(error.kind == .full)
      #expect(
        error.message == "the disk holding file:\(path)?vfs=workbench-faults is full; nothing was saved: "
          + "free some space and try again")
    }
    #expect(folderEntries(folder).isEmpty, "left behind: \(folderEntries(folder))")
  }
}
