import Testing

@testable import WorkbenchCore
@testable import WorkbenchModuleAPI

/// A live source of events (a device: a switch at the wall) is applied where its session takes
/// changes in: in a host, as the `live` command or a line's start takes them; in a module
/// process's session, only when the host hands an event back, so an event that comes between
/// two looks is sent, never applied unrecorded (explore found a replay that differed from its
/// recording when the device wrote just as the module ran a command).
@MainActor
struct LiveEventTests {
  /// A device with one event waiting, and how many events were applied.
  @MainActor final class Device {
    var waiting: [FrameValue] = []
    var applied: [FrameValue] = []
    /// How many times the session read the device.
    var reads = 0

    func attach(to services: SessionServices) {
      services.addLiveSource(
        named: "wall", descriptor: { nil },
        read: { [self] in
          reads += 1
          defer { waiting = [] }
          return waiting
        },
        apply: { [self] in applied.append($0) })
    }
  }

  /// A session on the virtual clock with a device attached that has one event waiting; a module
  /// process's session when `applyingEvents` is false.
  static func session(applyingEvents: Bool = true) throws -> (host: Host, device: Device) {
    let host = try Host(modules: [CounterModule()], clock: .virtual)
    host.services.appliesLiveEventsWhenTaken = applyingEvents
    let device = Device()
    device.attach(to: host.services)
    device.waiting = [1]
    return (host, device)
  }

  @Test func aHostAppliesAnEventAsALineBegins() throws {
    let (host, device) = try Self.session()
    _ = try host.run(line: "windows")
    #expect(device.applied == [1])
  }

  /// A driver that takes changes in itself between lines (explore) runs a line without the
  /// `live` in front: what came stays until it takes it.
  @Test func aLineRunWithoutTakingLiveChangesLeavesThemWaiting() throws {
    let (host, device) = try Self.session()
    try host.run(line: "windows", in: nil, takingLiveChanges: false, continuingAfter: nil) { _ in }
    #expect(device.applied.isEmpty)
    host.services.takeWaitingLiveChanges()
    #expect(device.applied == [1])
  }

  @Test func aModuleProcessSessionLeavesEveryEventToBeSent() throws {
    let (host, device) = try Self.session(applyingEvents: false)
    // Neither a line's start nor the `live` command applies it, nor does asking what waits.
    _ = try host.run(line: "windows")
    _ = try host.run(line: "live")
    #expect(!host.services.liveChangesWaitWhenAsked())
    host.services.takeLiveChanges()
    #expect(device.applied.isEmpty)
    // It is still there to send, once, and applied when handed back. A device keeps what it
    // saw until it is read (`read` gives the events since the last read): one more comes.
    device.waiting.append(2)
    let events = host.services.takeLiveEvents()
    #expect(events.map(\.value) == [1, 2])
    #expect(host.services.takeLiveEvents().isEmpty)
    for event in events { host.services.applyLiveEvent(source: event.source, value: event.value) }
    #expect(device.applied == [1, 2])
  }

  /// A module process asks after every request whether changes wait, and takes the events: the
  /// device is read where its events are taken, once a request, not again where nothing is
  /// applied (it was a second `read` on the device's pipe for every request). What it wrote
  /// meanwhile waits in it for the next take, in order.
  @Test func aModuleProcessSessionReadsItsDeviceOnlyToTakeItsEvents() throws {
    let (host, device) = try Self.session(applyingEvents: false)
    #expect(!host.services.liveChangesWait)
    #expect(device.reads == 0, "asking what waits read the device")
    #expect(host.services.takeLiveEvents().map(\.value) == [1])
    #expect(device.reads == 1)
    // In a host, asking is what reads it (and what it read is then applied).
    let shell = try Self.session()
    #expect(shell.host.services.liveChangesWait)
    #expect(shell.device.reads == 1)
  }
}
