import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel

/// Compares an expected frame (from YAML) with an actual one, as a subset:
/// - an expected object's keys must be in the actual object (other keys are ignored);
/// - lists compare in order and must have the same length;
/// - `null` means a field that is null (a key the frame does not have is a mismatch, with the
///   closest field suggested: a misspelt key never passes);
/// - a single value stands for an object with that `id` (`rows: [1, 2]`);
/// - a number or `true` written plainly also matches the same text (a title `1984`).
public enum FrameMatcher {
  /// `1 item`, `2 items`.
  static func items(_ count: Int) -> String { count == 1 ? "1 item" : "\(count) items" }

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
    if case .object(let object) = expected, let matcher = Matcher(object) {
      if let problem = matcher.problem(with: actual) {
        mismatches.append(Mismatch(path: path, expected: problem.expected, actual: problem.actual))
      }
      return
    }
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
        // A key the frame does not have is a misspelt expectation, whatever its value: `null`
        // means a field that is null, not a field that is not there.
        guard let actualValue = actualObject[member.key] else {
          let keys = actualObject.keys
          let hint = Suggestions.didYouMean(member.key, in: keys, separator: "; ")
          mismatches.append(
            Mismatch(
              path: join(path, member.key), expected: brief(member.value),
              actual: "no such field\(hint) (the fields: \(keys.joined(separator: ", ")))"))
          continue
        }
        compare(expected: member.value, actual: actualValue, path: join(path, member.key), into: &mismatches)
      }
    case .list(let expectedItems):
      guard case .list(let actualItems)? = actual else {
        mismatches.append(Mismatch(path: path, expected: brief(expected), actual: actual.map(brief) ?? "absent"))
        return
      }
      if expectedItems.count != actualItems.count {
        mismatches.append(
          Mismatch(
            path: path, expected: "\(Self.items(expectedItems.count)): \(brief(expected))",
            actual: "\(Self.items(actualItems.count)): \(brief(.list(actualItems)))"))
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
    guard case .object(let object) = expected, Matcher(object) == nil else { return [prefix] }
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

/// A value written as a matcher instead of a value: an object with one key starting with `$`.
///
/// - `{$any: true}`: the field is there and not null;
/// - `{$matches: PATTERN}`: the field's text (a string, or a number or bool as written) matches
///   the regular expression;
/// - `{$between: [LOW, HIGH]}`: the field is a number from LOW to HIGH, both included;
/// - `{$contains: [ITEMS]}`: the field is a list holding each item (as a subset, in any order);
/// - `{$anyOf: [CHOICES]}`: the field matches one of the choices, each a value or a matcher
///   (`[null, {$between: [0, 100]}]`: null until something happens, then in range).
enum Matcher {
  case any
  case matches(String)
  case between(Double, Double)
  case contains([FrameValue])
  case anyOf([FrameValue])
  case unknown(String)

  static let names = ["$any", "$matches", "$between", "$contains", "$anyOf"]

  init?(_ object: FrameObject) {
    guard object.members.count == 1, let member = object.members.first, member.key.hasPrefix("$") else { return nil }
    switch (member.key, member.value) {
    case ("$any", _): self = .any
    case ("$matches", .string(let pattern)): self = .matches(pattern)
    case ("$between", .list(let bounds)) where bounds.count == 2:
      guard let low = Self.number(bounds[0]), let high = Self.number(bounds[1]) else {
        self = .unknown("$between takes two numbers, [LOW, HIGH]")
        return
      }
      self = .between(low, high)
    case ("$contains", .list(let items)): self = .contains(items)
    case ("$anyOf", .list(let choices)) where !choices.isEmpty: self = .anyOf(choices)
    default:
      self = .unknown(
        "'\(member.key)' is not a matcher with that value (matchers: \(MatcherSyntax.summary))")
    }
  }

  static func number(_ value: FrameValue) -> Double? {
    switch value {
    case .integer(let number): return Double(number)
    case .number(let number): return number
    default: return nil
    }
  }

  /// Why `actual` does not match, as expected and actual texts; `nil` when it matches.
  func problem(with actual: FrameValue?) -> (expected: String, actual: String)? {
    let shown = actual.map(FrameMatcher.brief) ?? "absent"
    switch self {
    case .unknown(let message):
      return (message, shown)
    case .any:
      guard let actual, actual != .null else { return ("any value", shown) }
      return nil
    case .matches(let pattern):
      let text: String?
      switch actual {
      case .string(let string)?: text = string
      // A number or a boolean as written (`false`, not the `no` a window shows).
      case .integer?, .number?, .bool?: text = actual?.jsonText
      default: text = nil
      }
      switch RegexLimits.compile(pattern) {
      case .failure(let error):
        return ("a match for /\(pattern)/, which is not a usable pattern: \(error.message)", shown)
      case .success(let regex):
        guard let text, regex.matches(in: text) else { return ("a match for /\(pattern)/", shown) }
        return nil
      }
    case .between(let low, let high):
      guard let value = actual.flatMap(Self.number), value >= low, value <= high else {
        return ("a number from \(FrameValue.number(low).jsonText) to \(FrameValue.number(high).jsonText)", shown)
      }
      return nil
    case .anyOf(let choices):
      for choice in choices {
        var mismatches: [FrameMatcher.Mismatch] = []
        FrameMatcher.compare(expected: choice, actual: actual, path: "", into: &mismatches)
        if mismatches.isEmpty { return nil }
      }
      return ("one of \(FrameMatcher.brief(.list(choices)))", shown)
    case .contains(let items):
      guard case .list(let elements)? = actual else {
        return ("a list containing \(FrameMatcher.brief(.list(items)))", shown)
      }
      for item in items {
        let found = elements.contains { element in
          var mismatches: [FrameMatcher.Mismatch] = []
          FrameMatcher.compare(expected: item, actual: element, path: "", into: &mismatches)
          return mismatches.isEmpty
        }
        if !found { return ("a list containing \(FrameMatcher.brief(item))", shown) }
      }
      return nil
    }
  }
}
