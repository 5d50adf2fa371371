import CYAML
import WorkbenchScenarioModel

/// Parses YAML text into `YAMLNode` documents with libyaml's event parser, keeping the line and
/// column of every node.
///
/// Built to take hostile input without crashing, hanging or eating memory:
/// - duplicate keys are errors, with both places;
/// - aliases are expanded, but the whole document may expand to at most `maximumNodes` nodes,
///   so an alias bomb fails at once;
/// - nesting deeper than `maximumDepth` is an error (the builder is iterative, so depth cannot
///   overflow the stack either way);
/// - invalid UTF-8, tabs used for indentation and unclosed quotes come back as libyaml's own
///   messages with their place.
public struct YAMLParser {
  /// The deepest nesting accepted.
  public var maximumDepth = 200
  /// The most nodes aliases may add when they are expanded (an alias bomb stops here).
  public var maximumAliasNodes = 200_000
  /// The most nodes a file may hold as written (a 100,000-step scenario needs about 400,000;
  /// the 8 MB file limit keeps any file under about 2,000,000).
  public var maximumNodes = 1_000_000

  /// A parser with the default limits.
  public init() {}

  /// A sequence or mapping being built. A class, so appending to the innermost container
  /// mutates it in place instead of copying its children.
  private final class Container {
    let isMapping: Bool
    let location: SourceLocation
    let anchor: String?
    var items: [YAMLNode] = []
    var pairs: [YAMLPair] = []
    var keys: [String: SourceLocation] = [:]
    var pendingKey: (String, SourceLocation)?
    var size = 1

    init(isMapping: Bool, location: SourceLocation, anchor: String?) {
      self.isMapping = isMapping
      self.location = location
      self.anchor = anchor
    }

    var node: YAMLNode {
      YAMLNode(content: isMapping ? .mapping(pairs) : .sequence(items), location: location)
    }
  }

  private final class Builder {
    var stack: [Container] = []
    var documents: [YAMLNode] = []
    var anchors: [String: (node: YAMLNode, size: Int)] = [:]
    var totalNodes = 0
    var aliasNodes = 0
  }

  /// Runs libyaml's parser over `bytes` and only counts its events, building nothing: the
  /// baseline the scenario benchmark compares the runner with.
  public static func countEvents(_ bytes: [UInt8]) -> Int? {
    var parser = yaml_parser_t()
    guard yaml_parser_initialize(&parser) == 1 else { return nil }
    defer { yaml_parser_delete(&parser) }
    return bytes.withUnsafeBufferPointer { buffer -> Int? in
      yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
      var count = 0
      while true {
        var event = yaml_event_t()
        guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
        defer { yaml_event_delete(&event) }
        count += 1
        if event.type == YAML_STREAM_END_EVENT { return count }
      }
    }
  }

  /// Parses every document in `bytes`.
  ///
  /// - Parameter file: the name used in locations.
  /// - Throws: `ScenarioFileError` with the place of the first problem.
  public func parse(_ bytes: [UInt8], file: String) throws(ScenarioFileError) -> [YAMLNode] {
    var parser = yaml_parser_t()
    guard yaml_parser_initialize(&parser) == 1 else {
      throw ScenarioFileError("could not start the YAML parser", at: SourceLocation(file: file, line: 1, column: 1))
    }
    defer { yaml_parser_delete(&parser) }
    return try bytes.withUnsafeBufferPointer { buffer throws(ScenarioFileError) -> [YAMLNode] in
      yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
      let builder = Builder()
      while true {
        var event = yaml_event_t()
        guard yaml_parser_parse(&parser, &event) == 1 else {
          throw parserError(parser, bytes: buffer, file: file)
        }
        defer { yaml_event_delete(&event) }
        let location = SourceLocation(
          file: file, line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        switch event.type {
        case YAML_STREAM_END_EVENT:
          return builder.documents
        case YAML_SCALAR_EVENT:
          let scalar = event.data.scalar
          let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
          let isPlain = scalar.style == YAML_PLAIN_SCALAR_STYLE && scalar.tag == nil
          let node = YAMLNode(content: .scalar(text, isPlain: isPlain), location: location)
          try add(node, size: 1, counted: 1, anchor: string(scalar.anchor), to: builder)
        case YAML_ALIAS_EVENT:
          let name = string(event.data.alias.anchor) ?? ""
          guard let anchored = builder.anchors[name] else {
            throw ScenarioFileError("unknown alias *\(name): define the anchor &\(name) before using it", at: location)
          }
          var node = anchored.node
          node.location = location  // report problems where the alias is, not where its anchor was
          builder.aliasNodes += anchored.size
          guard builder.aliasNodes <= maximumAliasNodes else {
            throw ScenarioFileError(
              "aliases in this file expand to more than \(maximumAliasNodes) YAML nodes (aliases repeating "
                + "aliases?): write the repeated part out, or use `repeat:` or `include:`",
              at: node.location)
          }
          try add(node, size: anchored.size, counted: anchored.size, anchor: nil, to: builder)
        case YAML_SEQUENCE_START_EVENT:
          try push(
            Container(isMapping: false, location: location, anchor: string(event.data.sequence_start.anchor)),
            to: builder)
        case YAML_MAPPING_START_EVENT:
          try push(
            Container(isMapping: true, location: location, anchor: string(event.data.mapping_start.anchor)),
            to: builder)
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
          guard let container = builder.stack.popLast() else { continue }
          try add(container.node, size: container.size, counted: 1, anchor: container.anchor, to: builder)
        default:
          continue
        }
      }
    }
  }

  private func push(_ container: Container, to builder: Builder) throws(ScenarioFileError) {
    guard builder.stack.count < maximumDepth else {
      throw ScenarioFileError(
        "the YAML nests deeper than \(maximumDepth) levels; a scenario never needs that many", at: container.location)
    }
    builder.stack.append(container)
  }

  /// Adds a finished node to the container being built.
  ///
  /// - Parameters:
  ///   - size: the node's size with aliases expanded, kept for anchors.
  ///   - counted: how many nodes this adds to the file's total (a container's children were
  ///     counted as they came; an alias adds everything it stands for).
  private func add(_ node: YAMLNode, size: Int, counted: Int, anchor: String?, to builder: Builder)
    throws(ScenarioFileError)
  {
    builder.totalNodes += counted
    guard builder.totalNodes <= maximumNodes else {
      throw ScenarioFileError(
        "the file holds more than \(maximumNodes) YAML nodes: split it into files joined with include",
        at: node.location)
    }
    if let anchor { builder.anchors[anchor] = (node, size) }
    guard let top = builder.stack.last else {
      builder.documents.append(node)
      return
    }
    top.size += size
    guard top.isMapping else {
      top.items.append(node)
      return
    }
    if let (key, keyLocation) = top.pendingKey {
      top.pairs.append(YAMLPair(key: key, keyLocation: keyLocation, value: node))
      top.pendingKey = nil
      return
    }
    guard let key = node.scalarText else {
      throw ScenarioFileError("a mapping key must be a single value, not \(node.kindDescription)", at: node.location)
    }
    if let earlier = top.keys[key] {
      throw ScenarioFileError(
        "duplicate key '\(key)' (first at line \(earlier.line)): each key may appear once", at: node.location)
    }
    top.keys[key] = node.location
    top.pendingKey = (key, node.location)
  }

  private func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
    guard let pointer else { return nil }
    return String(cString: pointer)
  }

  private func parserError(_ parser: yaml_parser_t, bytes: UnsafeBufferPointer<UInt8>, file: String)
    -> ScenarioFileError
  {
    let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
    if parser.error == YAML_READER_ERROR {
      var location = Self.location(ofByte: parser.problem_offset, in: bytes, file: file)
      if problem.contains("UTF-8") || problem.contains("utf-8") {
        // libyaml points at the byte where it noticed; point at the character that is broken.
        if let offset = Self.firstInvalidUTF8(in: bytes) {
          location = Self.location(ofByte: offset, in: bytes, file: file)
        }
        return ScenarioFileError("the file is not valid UTF-8 (\(problem)); save it as UTF-8", at: location)
      }
      return ScenarioFileError(problem, at: location)
    }
    let mark = parser.problem_mark
    let location = SourceLocation(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    var message = problem
    if let context = parser.context.map({ String(cString: $0) }) {
      message = "\(problem) \(context) (line \(parser.context_mark.line + 1))"
    }
    // A tab where indentation goes: said in those words, at the tab (libyaml's own text names
    // two lines, or a token that cannot start).
    let atTab = problem.contains("cannot start any token") && mark.index < bytes.count && bytes[Int(mark.index)] == 0x09
    if atTab || problem.contains("tab character") {
      var index = min(Int(mark.index), bytes.count)
      while index > 0, bytes[index - 1] != 0x0A { index -= 1 }
      var tab = index
      while tab < bytes.count, bytes[tab] != 0x0A, bytes[tab] != 0x09 { tab += 1 }
      let at = tab < bytes.count && bytes[tab] == 0x09 ? tab : Int(mark.index)
      return ScenarioFileError(
        "tabs cannot indent YAML: use spaces", at: Self.location(ofByte: at, in: bytes, file: file))
    }
    // `- do: @left done 1`: `@` and `` ` `` are reserved in YAML and cannot start a value
    // left unquoted. Said in those words, with the two forms that run.
    if problem.contains("cannot start any token"), mark.index < bytes.count,
      [0x40, 0x60].contains(bytes[Int(mark.index)])
    {
      var end = Int(mark.index)
      while end < bytes.count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
      let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[Int(mark.index)..<end]), as: UTF8.self)
      let character = bytes[Int(mark.index)] == 0x40 ? "@" : "`"
      var advice = "quote the value ('\(value.replacing("'", with: "''"))')"
      if character == "@", let space = value.firstIndex(of: " ") {
        advice +=
          ", or run the command as a step of that window (`- \(value[value.index(after: value.startIndex)..<space]): "
          + "\(value[value.index(after: space)...])`)"
      }
      return ScenarioFileError(
        "`\(character)` cannot start a YAML value that is not quoted: \(advice)", at: location)
    }
    if let context = parser.context.map({ String(cString: $0) }), context.contains("quoted scalar") {
      let start = parser.context_mark
      return ScenarioFileError(
        "unclosed quote: the quoted text that starts here never ends; add the closing quote",
        at: SourceLocation(file: file, line: Int(start.line) + 1, column: Int(start.column) + 1))
    }
    return ScenarioFileError(message, at: location)
  }

  /// The offset of the first byte that does not start a valid UTF-8 character.
  static func firstInvalidUTF8(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = 0
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded): offset += encoded.count
      case .error: return offset
      case .emptyInput: return nil
      }
    }
  }

  /// The line and column of byte `offset`.
  static func location(ofByte offset: Int, in bytes: UnsafeBufferPointer<UInt8>, file: String) -> SourceLocation {
    var line = 1
    var column = 1
    for index in 0..<min(offset, bytes.count) {
      if bytes[index] == 0x0A {
        line += 1
        column = 1
      } else if bytes[index] & 0xC0 != 0x80 {
        column += 1
      }
    }
    return SourceLocation(file: file, line: line, column: column)
  }
}
