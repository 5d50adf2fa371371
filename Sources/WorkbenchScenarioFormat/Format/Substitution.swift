import WorkbenchScenarioModel

/// `${name}` parameters in scenario text, filled from an example row, an include's `with:`, or
/// a repeat's iteration. `$$` writes a literal `$`. A value that is exactly `${name}` takes the
/// parameter's value as written, list or mapping included (`rows: "${rows}"`; in a flow mapping
/// `{...}` the braces need the quotes).
enum Substitution {
  typealias Parameters = [String: YAMLNode]

  /// `node` with every `${name}` in its scalars replaced.
  ///
  /// - Throws: `ScenarioFileError` at the scalar that names an unknown parameter.
  static func apply(_ parameters: Parameters, to node: YAMLNode) throws(ScenarioFileError) -> YAMLNode {
    switch node.content {
    case .scalar(let text, let isPlain):
      guard text.contains("$") else { return node }
      if text.hasPrefix("${"), text.hasSuffix("}"), text.dropFirst(2).dropLast().allSatisfy({ $0 != "}" }),
        let value = parameters[String(text.dropFirst(2).dropLast())]
      {
        var replaced = value
        replaced.location = node.location
        return replaced
      }
      let replaced = try replace(in: text, parameters, at: node.location)
      return YAMLNode(content: .scalar(replaced, isPlain: isPlain), location: node.location)
    case .sequence(let items):
      var result: [YAMLNode] = []
      for item in items { result.append(try apply(parameters, to: item)) }
      return YAMLNode(content: .sequence(result), location: node.location)
    case .mapping(let pairs):
      var result: [YAMLPair] = []
      for pair in pairs {
        var copy = pair
        copy.value = try apply(parameters, to: pair.value)
        result.append(copy)
      }
      return YAMLNode(content: .mapping(result), location: node.location)
    }
  }

  static func replace(in text: String, _ parameters: Parameters, at location: SourceLocation)
    throws(ScenarioFileError) -> String
  {
    guard text.utf8.contains(UInt8(ascii: "$")) else { return text }
    var result = ""
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      let next = text.index(after: index)
      guard character == "$", next < text.endIndex else {
        result.append(character)
        index = next
        continue
      }
      if text[next] == "$" {
        result.append("$")
        index = text.index(after: next)
      } else if text[next] == "{", let close = text[next...].firstIndex(of: "}") {
        let name = String(text[text.index(after: next)..<close])
        guard let node = parameters[name] else {
          let known = parameters.keys.sorted()
          let hint = known.isEmpty ? "there are none here" : "known: " + known.joined(separator: ", ")
          throw ScenarioFileError("unknown parameter ${\(name)} (\(hint))", at: location)
        }
        guard let value = node.scalarText else {
          throw ScenarioFileError(
            "${\(name)} is \(node.kindDescription); inside text only single values fit (write the value alone)",
            at: location)
        }
        result += value
        index = text.index(after: close)
      } else {
        result.append(character)
        index = next
      }
    }
    return result
  }
}
