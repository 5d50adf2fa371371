/// The shape of a recorded fact, declared by the module whose effects use it
/// (`Registrar.fact(_:_:summary:)`), so a recording is checked where it is loaded: a value of the
/// wrong type (`latency: abc`, `online: yes`) is an error at its `file:line:column`, naming the
/// source and what it wants, instead of a replay that passes with nonsense or fails far away.
public struct FactType: Sendable {
  /// What the type is; the types it is made of are in `parts` (a list's element, an object's
  /// fields in order, the alternatives of `oneOf`). A struct with an array rather than an
  /// indirect enum: the boxes of a recursive enum whose payload held tuples of itself leaked
  /// (LeakSanitizer, Swift 6.3), and registries are made per run and per worker.
  package enum Kind: Sendable {
    case text, boolean, duration, idRun, null, list, oneOf
    case integer(ClosedRange<Int>)
    case object([String])
  }

  package let kind: Kind
  package let parts: [FactType]

  public static let text = FactType(kind: .text, parts: [])
  public static let boolean = FactType(kind: .boolean, parts: [])
  /// A duration as the clock writes one (`300ms`, `2s`).
  public static let duration = FactType(kind: .duration, parts: [])
  /// An id, or a run of ids written `FIRST-LAST`.
  public static let idRun = FactType(kind: .idRun, parts: [])
  public static let null = FactType(kind: .null, parts: [])
  /// A whole number in the range.
  public static func integer(_ range: ClosedRange<Int>) -> FactType { FactType(kind: .integer(range), parts: []) }
  public static func list(_ element: FactType) -> FactType { FactType(kind: .list, parts: [element]) }
  /// An object with exactly these fields, in any order.
  public static func object(_ fields: [(name: String, type: FactType)]) -> FactType {
    FactType(kind: .object(fields.map(\.name)), parts: fields.map(\.type))
  }
  /// The first of these that fits.
  public static func oneOf(_ types: [FactType]) -> FactType { FactType(kind: .oneOf, parts: types) }

  /// What a value of this type looks like, for messages.
  public var description: String {
    switch kind {
    case .text: "text"
    case .boolean: "true or false"
    case .integer(let range):
      range.upperBound == .max
        ? "a whole number from \(range.lowerBound)" : "a whole number from \(range.lowerBound) to \(range.upperBound)"
    case .duration: "a duration such as 300ms"
    case .idRun: "an id, or a run of ids such as 41-48"
    case .null: "null"
    case .list: "a list of \(parts[0].description)"
    case .object(let names): "{" + names.joined(separator: ", ") + "}"
    case .oneOf: parts.map(\.description).joined(separator: ", or ")
    }
  }

  /// Where in a value a problem is: the keys and list positions leading to it.
  package enum PathElement: Sendable, Equatable {
    case key(String)
    case index(Int)
  }

  /// Why a value does not fit: where, what was wanted there, and what was found.
  package struct Problem: Sendable, Equatable {
    package var path: [PathElement]
    package var wanted: String
    package var found: String

    /// `.online`, `[2].lights[0].id`, or empty for the value itself.
    package var pathText: String {
      path.map { element in
        switch element {
        case .key(let key): "." + key
        case .index(let index): "[\(index)]"
        }
      }.joined()
    }
  }

  /// The first place `value` does not fit this type, or `nil` when it fits.
  package func problem(with value: FrameValue) -> Problem? {
    problem(with: value, at: [])
  }

  private func problem(with value: FrameValue, at path: [PathElement]) -> Problem? {
    func mismatch() -> Problem { Problem(path: path, wanted: description, found: Self.brief(value)) }
    switch kind {
    case .text: return value.stringValue == nil ? mismatch() : nil
    case .boolean: return value.boolValue == nil ? mismatch() : nil
    case .integer(let range):
      guard let number = value.integerValue, range.contains(number) else { return mismatch() }
      return nil
    case .duration:
      guard let text = value.stringValue, DurationText.parse(text) != nil else { return mismatch() }
      return nil
    case .idRun:
      if value.integerValue != nil { return nil }
      guard let text = value.stringValue, let dash = text.firstIndex(of: "-"), dash != text.startIndex,
        let first = Int(text[..<dash]), let last = Int(text[text.index(after: dash)...]), first <= last
      else { return mismatch() }
      return nil
    case .null: return value == .null ? nil : mismatch()
    case .list:
      guard let items = value.elements else { return mismatch() }
      for (index, item) in items.enumerated() {
        if let problem = parts[0].problem(with: item, at: path + [.index(index)]) { return problem }
      }
      return nil
    case .object(let names):
      guard case .object(let object) = value else { return mismatch() }
      for (name, type) in zip(names, parts) {
        guard let member = object[name] else {
          return Problem(path: path + [.key(name)], wanted: type.description, found: "nothing")
        }
        if let problem = type.problem(with: member, at: path + [.key(name)]) { return problem }
      }
      if let extra = object.keys.first(where: { !names.contains($0) }) {
        return Problem(
          path: path + [.key(extra)], wanted: "no field '\(extra)' (fields: \(names.joined(separator: ", ")))",
          found: Self.brief(object[extra] ?? .null))
      }
      return nil
    case .oneOf:
      // The alternative that got furthest into the value says what is wrong.
      var best: Problem?
      for type in parts {
        guard let problem = type.problem(with: value, at: path) else { return nil }
        if best == nil || problem.path.count > best!.path.count { best = problem }
      }
      guard let best, best.path.count > path.count else { return mismatch() }
      return best
    }
  }

  package static func brief(_ value: FrameValue) -> String {
    let text = value.jsonText
    return text.count > 60 ? String(text.prefix(60)) + "…" : text
  }
}
