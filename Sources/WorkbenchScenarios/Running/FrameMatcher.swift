import WorkbenchCore

/// Compares an expected frame (from YAML) with an actual one, as a subset:
/// - an expected object's keys must be in the actual object (other keys are ignored);
/// - lists compare in order and must have the same length;
/// - `null` means absent or null;
/// - a single value stands for an object with that `id` (`rows: [1, 2]`);
/// - a number or `true` written plainly also matches the same text (a title `1984`).
public enum FrameMatcher {
  /// Where `actual` differs from `expected`, as `path: expected ≠ actual` lines; empty when it
  /// matches. The runner's own comparison, for tools and fuzzers.
  public static func differences(expected: FrameValue, actual: FrameValue) -> [String] {
    var mismatches: [Mismatch] = []
    compare(expected: expected, actual: actual, path: "", into: &mismatches)
    return mismatches.map { "\($0.path): \($0.expected) ≠ \($0.actual)" }
  }

  struct Mismatch: Equatable {
    var path: String
    var expected: String
    var actual: String
  }

  static func compare(expected: FrameValue, actual: FrameValue?, path: String, into mismatches: inout [Mismatch]) {
    switch expected {
    case .null:
      if let actual, actual != .null {
        mismatches.append(Mismatch(path: path, expected: "null", actual: brief(actual)))
      }
    case .object(let expectedObject):
      guard case .object(let actualObject)? = actual else {
        mismatches.append(Mismatch(path: path, expected: brief(expected), actual: actual.map(brief) ?? "absent"))
        return
      }
      for member in expectedObject.members {
        compare(
          expected: member.value, actual: actualObject[member.key], path: join(path, member.key), into: &mismatches)
      }
    case .list(let expectedItems):
      guard case .list(let actualItems)? = actual else {
        mismatches.append(Mismatch(path: path, expected: brief(expected), actual: actual.map(brief) ?? "absent"))
        return
      }
      if expectedItems.count != actualItems.count {
        mismatches.append(
          Mismatch(
            path: path, expected: "\(expectedItems.count) items: \(brief(expected))",
            actual: "\(actualItems.count) items: \(brief(.list(actualItems)))"))
        return
      }
      for (index, item) in expectedItems.enumerated() {
        compare(expected: item, actual: actualItems[index], path: "\(path)[\(index)]", into: &mismatches)
      }
    default:
      guard let actual else {
        mismatches.append(Mismatch(path: path, expected: brief(expected), actual: "absent"))
        return
      }
      if case .object(let object) = actual, let id = object["id"] {
        if !scalarsMatch(expected, id) {
          mismatches.append(Mismatch(path: path + ".id", expected: brief(expected), actual: brief(id)))
        }
      } else if !scalarsMatch(expected, actual) {
        mismatches.append(Mismatch(path: path, expected: brief(expected), actual: brief(actual)))
      }
    }
  }

  static func scalarsMatch(_ expected: FrameValue, _ actual: FrameValue) -> Bool {
    switch (expected, actual) {
    case (.integer(let a), .number(let b)): return Double(a) == b
    case (.number(let a), .integer(let b)): return a == Double(b)
    case (.integer, .string(let text)), (.number, .string(let text)), (.bool, .string(let text)):
      return expected.inlineText == text || (expected.boolValue.map { $0 ? "true" : "false" } == text)
    default: return expected == actual
    }
  }

  /// The paths an expectation asserts on, for exhaustive mode.
  static func paths(of expected: FrameValue, prefix: String) -> [String] {
    guard case .object(let object) = expected else { return [prefix] }
    var result: [String] = []
    for member in object.members { result += paths(of: member.value, prefix: join(prefix, member.key)) }
    return result.isEmpty ? [prefix] : result
  }

  /// The paths whose values differ between two frames, with before and after.
  static func changes(from before: FrameValue?, to after: FrameValue?, path: String, into changes: inout [Mismatch]) {
    if before == after { return }
    switch (before, after) {
    case (.object(let old)?, .object(let new)?):
      var keys = old.keys
      for key in new.keys where !keys.contains(key) { keys.append(key) }
      for key in keys { Self.changes(from: old[key], to: new[key], path: join(path, key), into: &changes) }
    case (.list(let old)?, .list(let new)?) where old.count == new.count:
      for index in old.indices {
        Self.changes(from: old[index], to: new[index], path: "\(path)[\(index)]", into: &changes)
      }
    default:
      changes.append(
        Mismatch(path: path, expected: before.map(brief) ?? "absent", actual: after.map(brief) ?? "absent"))
    }
  }

  static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

  /// A value on one line, shortened when long.
  static func brief(_ value: FrameValue) -> String {
    let text: String
    switch value {
    case .string(let string): text = FrameValue.string(string).jsonText
    default: text = value.jsonText
    }
    return text.count > 160 ? String(text.prefix(157)) + "..." : text
  }
}
