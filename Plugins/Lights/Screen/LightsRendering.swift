import WorkbenchModuleAPI

/// Terminal text for lights frames.
enum LightsRendering {
  /// "1 light", "3 lights".
  static func lights(_ count: Int) -> String { count == 1 ? "1 light" : "\(count) lights" }

  static func home(_ frame: HomeFrame) -> String {
    var lines = ["home (\(frame.container)) · bridge \(frame.bridge)"]
    for room in frame.rooms { lines.append("  \(room.id)  \(room.name) · " + Self.lights(room.lights)) }
    lines.append("`enter ROOM` opens a room")
    return lines.joined(separator: "\n")
  }

  static func room(_ frame: RoomFrame) -> String {
    guard let name = frame.name else { return "no room chosen: `room ROOM`" }
    var header = "\(name) (\(frame.container)) · bridge \(frame.bridge)"
    if frame.detecting == true { header += " · detecting lights..." }
    if frame.exists == false { header += " · the room is gone" }
    var lines = [header]
    for light in frame.lights {
      lines.append("  \(light.id)  [\(light.on ? "on " : "off")] \(light.name) · \(light.brightness)%")
    }
    if frame.lights.isEmpty { lines.append("  (no lights)") }
    let shown = frame.lights.count
    if shown < frame.count, let first = frame.firstRow {
      lines.append("  lights \(first)-\(first &+ shown &- 1) of \(frame.count): `page next` and `page previous` move")
    }
    return lines.joined(separator: "\n")
  }
}
