/// The shape of a recorded fact, declared by the module whose effects use it
/// (`Registrar.fact(_:_:summary:)`), so a recording is checked where it is loaded: a value of the
/// wrong type (`latency: abc`, `online: yes`) is an error at its `file:line:column`, naming the
/// source and what it wants, instead of a replay that passes with nonsense or fails far away.
public indirect enum FactType: Sendable {
  case text
  case boolean
  /// A whole number in the range.
  case integer(ClosedRange<Int>)
  /// A duration as the clock writes one (`300ms`, `2s`).
  case duration
  /// An id, or a run of ids written `FIRST-LAST`.
  case idRun
  case null
  case list(FactType)
  /// An object with exactly these fields, in any order.
  case object([(name: String, type: FactType)])
  /// The first of these that fits.
  case oneOf([FactType])

  /// What a value of this type looks like, for messages.
  public var description: String {
    switch self {
    case .text: "text"
    case .boolean: "true or false"
    case .integer(let range):
      range.upperBound == .max
        ? "a whole number from \(range.lowerBound)" : "a whole number from \(range.lowerBound) to \(range.upperBound)"
    case .duration: "a duration such as 300ms"
    case .idRun: "an id, or a run of ids such as 41-48"
    case .null: "null"
    case .list(let element): "a list of \(element.description)"
    case .object(let fields): "{" + fields.map(\.name).joined(separator: ", ") + "}"
    case .oneOf(let types): types.map(\.description).joined(separator: ", or ")
    }
  }

  /// Where in a value a problem is: the keys and list positions leading to it.
  public enum PathElement: Sendable, Equatable {
    case key(String)
    case index(Int)
  }

  /// Why a value does not fit: where, what was wanted there, and what was found.
  public struct Problem: Sendable, Equatable {
    public var path: [PathElement]
    public var wanted: String
    public var found: String

    /// `.online`, `[2].lights[0].id`, or empty for the value itself.
    public var pathText: String {
      path.map { element in
        switch element {
        case .key(let key): "." + key
        case .index(let index): "[\(index)]"
        }
      }.joined()
    }
  }

  /// The first place `value` does not fit this type, or `nil` when it fits.
  public func problem(with value: FrameValue) -> Problem? {
    problem(with: value, at: [])
  }

  private func problem(with value: FrameValue, at path: [PathElement]) -> Problem? {
    func mismatch() -> Problem { Problem(path: path, wanted: description, found: Self.brief(value)) }
    switch self {
    case .text: return value.stringValue == nil ? mismatch() : nil
    case .boolean: return value.boolValue == nil ? mismatch() : nil
    case .integer(let range):
      guard let number = value.integerValue, range.contains(number) else { return mismatch() }
      return nil
    case .duration:
      guard let text = value.stringValue, SessionClock.parseDuration(text) != nil else { return mismatch() }
      return nil
    case .idRun:
      if value.integerValue != nil { return nil }
      guard let text = value.stringValue, let dash = text.firstIndex(of: "-"), dash != text.startIndex,
        let first = Int(text[..<dash]), let last = Int(text[text.index(after: dash)...]), first <= last
      else { return mismatch() }
      return nil
    case .null: return value == .null ? nil : mismatch()
    case .list(let element):
      guard let items = value.elements else { return mismatch() }
      for (index, item) in items.enumerated() {
        if let problem = element.problem(with: item, at: path + [.index(index)]) { return problem }
      }
      return nil
    case .object(let fields):
      guard case .object(let object) = value else { return mismatch() }
      for field in fields {
        guard let member = object[field.name] else {
          return Problem(path: path + [.key(field.name)], wanted: field.type.description, found: "nothing")
        }
        if let problem = field.type.problem(with: member, at: path + [.key(field.name)]) { return problem }
      }
      if let extra = object.keys.first(where: { key in !fields.contains { $0.name == key } }) {
        return Problem(
          path: path + [.key(extra)],
          wanted: "no field '\(extra)' (fields: \(fields.map(\.name).joined(separator: ", ")))",
          found: Self.brief(object[extra] ?? .null))
      }
      return nil
    case .oneOf(let types):
      // The alternative that got furthest into the value says what is wrong.
      var best: Problem?
      for type in types {
        guard let problem = type.problem(with: value, at: path) else { return nil }
        if best == nil || problem.path.count > best!.path.count { best = problem }
      }
      guard let best, best.path.count > path.count else { return mismatch() }
      return best
    }
  }

  static func brief(_ value: FrameValue) -> String {
    let text = value.jsonText
    return text.count > 60 ? String(text.prefix(60)) + "…" : text
  }
}
