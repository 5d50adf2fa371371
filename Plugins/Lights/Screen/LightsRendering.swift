import WorkbenchCore

/// Terminal text for lights frames.
enum LightsRendering {
  /// "1 light", "3 lights".
  static func lights(_ count: Int) -> String { count == 1 ? "1 light" : "\(count) lights" }

  static func home(_ frame: FrameValue) -> String {
    var lines = ["home (\(frame["container"]?.stringValue ?? "")) · bridge \(frame["bridge"]?.stringValue ?? "")"]
    for room in frame["rooms"]?.elements ?? [] {
      lines.append(
        "  \(room["id"]?.stringValue ?? "")  \(room["name"]?.stringValue ?? "") · "
          + Self.lights(room["lights"]?.integerValue ?? 0)
      )
    }
    lines.append("`enter ROOM` opens a room")
    return lines.joined(separator: "\n")
  }

  static func room(_ frame: FrameValue) -> String {
    guard let name = frame["name"]?.stringValue else { return "no room chosen: `room ROOM`" }
    var header = "\(name) (\(frame["container"]?.stringValue ?? "")) · bridge \(frame["bridge"]?.stringValue ?? "")"
    if frame["detecting"]?.boolValue == true { header += " · detecting lights..." }
    if frame["exists"]?.boolValue == false { header += " · the room is gone" }
    var lines = [header]
    for light in frame["lights"]?.elements ?? [] {
      let on = light["on"]?.boolValue == true ? "on " : "off"
      lines.append(
        "  \(light["id"]?.integerValue ?? 0)  [\(on)] \(light["name"]?.stringValue ?? "") · \(light["brightness"]?.integerValue ?? 0)%"
      )
    }
    if (frame["lights"]?.elements ?? []).isEmpty { lines.append("  (no lights)") }
    let shown = frame["lights"]?.elements?.count ?? 0
    let count = frame["count"]?.integerValue ?? shown
    if shown < count, let first = frame["firstRow"]?.integerValue {
      lines.append("  lights \(first)-\(first + shown - 1) of \(count): `page next` and `page previous` move")
    }
    return lines.joined(separator: "\n")
  }
}
