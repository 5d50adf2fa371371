import WorkbenchCore
import WorkbenchModuleAPI

/// A JSON Schema (draft-07) validator for the keywords docs/scenario.schema.json uses: type,
/// properties, required, additionalProperties, patternProperties, propertyNames, items,
/// minItems, minProperties, maxProperties, minimum, maximum, pattern, enum, oneOf, anyOf and
/// local $ref. Any other keyword is an error, so the schema cannot silently use one this
/// validator ignores.
public struct SchemaValidator {
  let root: FrameValue

  /// A validator for the schema `root`.
  public init(root: FrameValue) { self.root = root }

  static let known: Set<String> = [
    "$schema", "title", "description", "definitions", "type", "properties", "required", "additionalProperties",
    "patternProperties", "propertyNames", "items", "minItems", "maxItems", "minProperties", "maxProperties", "minimum",
    "maximum", "minLength", "pattern", "enum", "oneOf", "anyOf", "$ref",
  ]

  /// The problems with `value`, each as `path: what`; empty when it is valid.
  public func validate(_ value: FrameValue) -> [String] {
    var problems: [String] = []
    check(value, against: root, path: "$", problems: &problems)
    return problems
  }

  private func resolve(_ schema: FrameValue) -> FrameValue {
    guard let reference = schema["$ref"]?.stringValue, reference.hasPrefix("#/") else { return schema }
    var node = root
    for part in reference.dropFirst(2).split(separator: "/") { node = node[String(part)] ?? .null }
    return node
  }

  private func check(_ value: FrameValue, against rawSchema: FrameValue, path: String, problems: inout [String]) {
    let schema = resolve(rawSchema)
    guard case .object(let object) = schema else {
      if schema == .bool(false) { problems.append("\(path): not allowed") }
      return
    }
    for key in object.keys where !Self.known.contains(key) { problems.append("schema uses unsupported keyword \(key)") }
    if let type = schema["type"] {
      let allowed = type.elements?.compactMap(\.stringValue) ?? [type.stringValue ?? ""]
      if !allowed.contains(where: { Self.matchesType(value, $0) }) {
        problems.append("\(path): expected \(allowed.joined(separator: " or ")), got \(value.jsonText.prefix(60))")
        return
      }
    }
    if let choices = schema["enum"]?.elements, !choices.contains(value) {
      problems.append("\(path): not one of the allowed values")
    }
    if let pattern = schema["pattern"]?.stringValue, let text = value.stringValue,
      let regex = try? Regex(pattern), !text.contains(regex)
    {
      problems.append("\(path): '\(text)' does not match \(pattern)")
    }
    if let minimum = schema["minimum"]?.integerValue, let number = value.integerValue, number < minimum {
      problems.append("\(path): below \(minimum)")
    }
    if let minimum = schema["minLength"]?.integerValue, let text = value.stringValue, text.count < minimum {
      problems.append("\(path): shorter than \(minimum) characters")
    }
    if let maximum = schema["maximum"]?.integerValue, let number = value.integerValue, number > maximum {
      problems.append("\(path): above \(maximum)")
    }
    if let items = value.elements {
      if let minimum = schema["minItems"]?.integerValue, items.count < minimum {
        problems.append("\(path): fewer than \(minimum) items")
      }
      if let maximum = schema["maxItems"]?.integerValue, items.count > maximum {
        problems.append("\(path): more than \(maximum) items")
      }
      if let itemSchema = schema["items"] {
        for (index, item) in items.enumerated() {
          check(item, against: itemSchema, path: "\(path)[\(index)]", problems: &problems)
        }
      }
    }
    if case .object(let members) = value {
      checkObject(members, schema: schema, path: path, problems: &problems)
    }
    for keyword in ["oneOf", "anyOf"] {
      guard let options = schema[keyword]?.elements else { continue }
      let matching = options.filter { option in
        var nested: [String] = []
        check(value, against: option, path: path, problems: &nested)
        return nested.isEmpty
      }.count
      if keyword == "oneOf" && matching != 1 {
        problems.append("\(path): matches \(matching) of the oneOf choices, not exactly one")
      } else if keyword == "anyOf" && matching == 0 {
        problems.append("\(path): matches none of the anyOf choices")
      }
    }
  }

  private func checkObject(_ object: FrameObject, schema: FrameValue, path: String, problems: inout [String]) {
    for name in schema["required"]?.elements?.compactMap(\.stringValue) ?? [] where object[name] == nil {
      problems.append("\(path): missing \(name)")
    }
    if let minimum = schema["minProperties"]?.integerValue, object.keys.count < minimum {
      problems.append("\(path): fewer than \(minimum) keys")
    }
    if let maximum = schema["maxProperties"]?.integerValue, object.keys.count > maximum {
      problems.append("\(path): more than \(maximum) keys")
    }
    let properties = schema["properties"]
    let patterns: [(Regex<AnyRegexOutput>, FrameValue)] =
      schema["patternProperties"].flatMap { patterns -> [(Regex<AnyRegexOutput>, FrameValue)]? in
        guard case .object(let members) = patterns else { return nil }
        return members.members.compactMap { member in (try? Regex(member.key)).map { ($0, member.value) } }
      } ?? []
    for member in object.members {
      let memberPath = path + "." + member.key
      if let names = schema["propertyNames"] {
        check(.string(member.key), against: names, path: memberPath + " (name)", problems: &problems)
      }
      var matched = false
      if let propertySchema = properties?[member.key] {
        matched = true
        check(member.value, against: propertySchema, path: memberPath, problems: &problems)
      }
      for (regex, patternSchema) in patterns where member.key.contains(regex) {
        matched = true
        check(member.value, against: patternSchema, path: memberPath, problems: &problems)
      }
      if !matched, let additional = schema["additionalProperties"] {
        if additional == .bool(false) {
          problems.append("\(memberPath): not allowed here")
        } else {
          check(member.value, against: additional, path: memberPath, problems: &problems)
        }
      }
    }
  }

  static func matchesType(_ value: FrameValue, _ type: String) -> Bool {
    switch (type, value) {
    case ("string", .string), ("integer", .integer), ("boolean", .bool), ("null", .null), ("array", .list),
      ("object", .object):
      return true
    case ("number", .integer), ("number", .number):
      return true
    default:
      return false
    }
  }
}
