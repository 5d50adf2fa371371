import Lights
import WorkbenchCore
import WorkbenchModuleAPI

/// A home of 10,000 lights (10 rooms of 1,000) with 10 windows open: the time from a change at
/// the bridge to every affected window's frame being projected again.
@MainActor
enum LightsBenchmark {
  static func run(changes: Int) -> [String] {
    var rooms: [String] = []
    var nextID = 1
    for room in 0..<10 {
      var lights: [String] = []
      for _ in 0..<1000 {
        lights.append(#"{"id":\#(nextID),"name":"Light \#(nextID)","on":false,"brightness":50}"#)
        nextID += 1
      }
      rooms.append(#"{"id":"r\#(room)","name":"Room \#(room)","lights":[\#(lights.joined(separator: ","))]}"#)
    }
    let json = #"{"rooms":[\#(rooms.joined(separator: ","))]}"#
    do {
      let host = try Host(modules: [LightsModule()], clock: .virtual)
      try host.seedDocument(named: "big", kind: "home", json: Array(json.utf8))
      _ = try host.run(line: "open home big house")
      // Ten room windows: five on room 0, the others on rooms 1 to 5.
      let setup = (0..<5).map { "@house enter r0 same\($0)" } + (1...5).map { "@house enter r\($0) other\($0)" }
      for line in setup { _ = try host.run(line: line) }
      let windows = host.windows.filter { $0.name != "house" }
      var total = 0
      let resolveTime = measure { for window in windows { total += window.frame["lights"]?.elements?.count ?? 0 } }
      let affected = windows.filter { $0.name?.hasPrefix("same") == true }
      var samples: [Double] = []
      for index in 0..<changes {
        let light = 1 + (index * 37) % 1000
        let line = "@house bridge switch \(light) \(index % 2 == 0 ? "on" : "off")"
        let start = now()
        _ = try host.run(line: line)
        for window in affected { _ = window.frame }
        samples.append(now() - start)
      }
      let projectionOnly = bestOf(20) { measure { for window in affected { _ = window.frame } } }
      // Check that the change really arrived.
      let arrived = affected.allSatisfy { window in
        window.frame["lights"]?.elements?.first { $0["id"]?.integerValue == 1 }?["on"] == true
      }
      return [
        "lights: 10,000 lights in 10 rooms, 10 room windows (\(total) light rows), 5 windows on the changed room:",
        "  first frames of all 10 windows (resolving \(total) light scopes)   \(format(resolveTime * 1000, 1)) ms",
        "  bridge change to 5 affected frames projected again: p50 \(format(percentile(samples, 50) * 1000, 2)) ms"
          + "   p99 \(format(percentile(samples, 99) * 1000, 2)) ms  (change visible everywhere: \(arrived))",
        "  of which projecting the 5 frames (a page of lights each) alone, with no change: \(format(projectionOnly * 1000, 2)) ms",
      ]
    } catch {
      return ["lights: \(error)"]
    }
  }
}
