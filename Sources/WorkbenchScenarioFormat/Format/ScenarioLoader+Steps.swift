import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchScenarioModel
import WorkbenchSystem

/// What the loader knows while it reads steps: the parameters in scope, the windows open at
/// this point (so a step naming a window that does not exist yet is caught before running),
/// and the includes and repeats around the step.
struct StepContext {
  var parameters: Substitution.Parameters
  var origin: [String]
  /// The windows open at this point, followed through each step's window changes.
  var windows = PlannedWindows()
}

extension ScenarioLoader {
  public static let stepKinds = ["do", "expect", "snapshot", "include", "repeat"]
  static let maximumIncludeDepth = 16
  static let maximumRepeat = 1000

  func buildSteps(_ node: YAMLNode, context: inout StepContext, includes: [String]) throws(ScenarioFileError) -> [Step]
  {
    guard let items = node.items else {
      throw ScenarioFileError("steps is a list such as `- left: select 2`", at: node.location)
    }
    var steps: [Step] = []
    for item in items {
      let built: [Step]
      do {
        built = try buildStep(item, context: &context, includes: includes)
      } catch {
        // A wrong step is reported with the others; the steps after it are still checked (it
        // opens or closes no window for them).
        try note(error)
        continue
      }
      if case .mapping(let pairs) = item.content, pairs.contains(where: { $0.key == "repeat" || $0.key == "include" }) {
        // Expanded steps were counted as they were built.
      } else {
        expandedSteps += built.count
      }
      guard expandedSteps <= Self.maximumSteps else {
        throw ScenarioFileError(
          "the scenario expands to more than \(Self.maximumSteps) steps (repeats inside repeats?): make it smaller",
          at: item.location)
      }
      steps += built
    }
    return steps
  }

  private func buildStep(_ node: YAMLNode, context: inout StepContext, includes: [String])
    throws(ScenarioFileError) -> [Step]
  {
    guard var pairs = node.pairs, !pairs.isEmpty else {
      throw ScenarioFileError(
        "a step is a mapping such as `left: select 2`, `do: relaunch` or `expect: {...}`", at: node.location)
    }
    // A window can be a parameter (`${window}: select 2`, in a flow).
    for index in pairs.indices where pairs[index].key.contains("$") {
      pairs[index].key = try Substitution.replace(
        in: pairs[index].key, context.parameters, at: pairs[index].keyLocation)
    }
    let kinds = pairs.filter { !["fails", "with", "steps"].contains($0.key) }
    guard kinds.count == 1, let main = kinds.first else {
      if kinds.isEmpty {
        throw ScenarioFileError("this step has no action: add `WINDOW: command` or `do: command`", at: node.location)
      }
      throw ScenarioFileError(
        "a step does one thing; this one has \(kinds.map { "`\($0.key)`" }.joined(separator: " and ")): "
          + "split it into separate steps",
        at: kinds[1].keyLocation)
    }
    let failure = try failureMatcher(pairs.first { $0.key == "fails" }?.value, context: context)
    func allow(_ modifiers: [String]) throws(ScenarioFileError) {
      for pair in pairs where pair.key != main.key && !modifiers.contains(pair.key) {
        throw ScenarioFileError("`\(pair.key)` does not go with `\(main.key)`", at: pair.keyLocation)
      }
    }
    switch main.key {
    case "do":
      try allow(["fails"])
      let line = try commandLine(main.value, context: context)
      let commands = try checkLine(
        line, at: contentStart(main.value), window: nil, expectsFailure: failure != nil, context: &context)
      return [
        Step(
          action: .host(line: line), location: contentStart(main.value), failure: failure, origin: context.origin,
          commands: commands)
      ]
    case "expect":
      try allow([])
      guard let windows = main.value.pairs, !windows.isEmpty else {
        throw ScenarioFileError(
          "expect is a mapping of windows to frames, such as `left: {selected: 2}`", at: main.value.location)
      }
      var expectations: [(window: String, expected: YAMLNode)] = []
      for window in windows {
        let label = try Substitution.replace(in: window.key, context.parameters, at: window.keyLocation)
        try checkWindow(label, at: window.keyLocation, context: context)
        let expected = try Substitution.apply(context.parameters, to: window.value)
        if let screen = context.windows.findWindow(named: label)?.screen {
          try checkFields(of: expected, window: label, screen: screen)
        }
        // A matcher written wrong is the file's error, here, not a frame that "does not match".
        if let problem = MatcherSyntax.problem(in: expected) { throw problem }
        expectations.append((label, expected))
      }
      return [Step(action: .expect(expectations), location: main.keyLocation, failure: nil, origin: context.origin)]
    case "snapshot":
      try allow([])
      var names: [String] = []
      let value = try Substitution.apply(context.parameters, to: main.value)
      if let single = value.scalarText {
        names = [single]
      } else if let items = value.items {
        for item in items { names.append(try text(item, what: "a window")) }
      }
      guard !names.isEmpty else {
        throw ScenarioFileError("snapshot names a window, or a list of windows", at: main.value.location)
      }
      for name in names { try checkWindow(name, at: main.value.location, context: context) }
      return [Step(action: .snapshot(windows: names), location: main.keyLocation, failure: nil, origin: context.origin)]
    case "include":
      try allow(["with"])
      return try include(
        main.value, with: pairs.first { $0.key == "with" }?.value, context: &context, includes: includes)
    case "repeat":
      try allow(["steps"])
      return try repeatSteps(
        main.value, body: pairs.first { $0.key == "steps" }?.value, context: &context, includes: includes)
    default:
      guard context.windows.findWindow(named: main.key) != nil else {
        let labels = context.windows.labels
        let hint = Suggestions.didYouMean(main.key, in: Self.stepKinds + labels)
        let open = labels.isEmpty ? "none" : labels.joined(separator: ", ")
        throw ScenarioFileError(
          "unknown window or step kind '\(main.key)'\(hint) (windows open here: \(open); "
            + "step kinds: \(Self.stepKinds.joined(separator: ", ")))",
          at: main.keyLocation)
      }
      try allow(["fails"])
      let line = try commandLine(main.value, context: context)
      let commands = try checkLine(
        line, at: contentStart(main.value), window: main.key, expectsFailure: failure != nil, context: &context)
      return [
        Step(
          action: .command(window: main.key, line: line), location: contentStart(main.value), failure: failure,
          origin: context.origin, commands: commands)
      ]
    }
  }

  private func commandLine(_ node: YAMLNode, context: StepContext) throws(ScenarioFileError) -> String {
    guard let line = node.scalarText else {
      throw ScenarioFileError("a command is one line of text, such as `select 2`", at: node.location)
    }
    return try Substitution.replace(in: line, context.parameters, at: node.location)
  }

  private func failureMatcher(_ node: YAMLNode?, context: StepContext) throws(ScenarioFileError) -> FailureMatcher? {
    guard let node else { return nil }
    let raw = try text(node, what: "fails")
    let text = try Substitution.replace(in: raw, context.parameters, at: node.location)
    if text.count >= 2, text.hasPrefix("/"), text.hasSuffix("/") {
      let pattern = String(text.dropFirst().dropLast())
      if case .failure(let problem) = RegexLimits.compile(pattern) {
        let shown = pattern.count > 60 ? String(pattern.prefix(60)) + "…" : pattern
        throw ScenarioFileError("fails: /\(shown)/ cannot be used: \(problem.message)", at: node.location)
      }
      return .pattern(pattern)
    }
    return .substring(text)
  }

  /// Checks that an expectation names only fields the window's screen declares (a misspelt
  /// key would otherwise fail only when the step runs, or pass with `null`).
  private func checkFields(of expected: YAMLNode, window: String, screen: String) throws(ScenarioFileError) {
    guard let fields = registry.frameFields(ofScreen: screen), let pairs = expected.pairs else { return }
    for pair in pairs where !fields.contains(pair.key) && !pair.key.hasPrefix("$") {
      let hint = Suggestions.didYouMean(pair.key, in: fields)
      throw ScenarioFileError(
        "\(window) shows \(screen), whose frame has no field '\(pair.key)'\(hint) "
          + "(its fields: \(fields.joined(separator: ", ")))",
        at: pair.keyLocation)
    }
  }

  private func checkWindow(_ label: String, at location: SourceLocation, context: StepContext) throws(ScenarioFileError)
  {
    guard context.windows.findWindow(named: label) == nil else { return }
    throw ScenarioFileError(context.windows.missingWindowMessage(label), at: location)
  }

  /// Reads and resolves the commands of a line, against the windows open at this step, and
  /// follows the windows they open and close (as their specs declare), so later steps are
  /// checked against the windows that will exist. A step expected to fail changes no windows,
  /// and may hold a command that does not resolve.
  ///
  /// - Returns: each command, located and, where it resolves, resolved.
  private func checkLine(
    _ line: String, at location: SourceLocation, window: String?, expectsFailure: Bool, context: inout StepContext
  ) throws(ScenarioFileError) -> [StepCommand] {
    let commands: [[CommandToken]]
    do {
      commands = try CommandTokenizer.commands(in: line)
    } catch {
      throw ScenarioFileError(error.message, at: shifted(location, by: error.column))
    }
    guard !commands.isEmpty else { throw ScenarioFileError("the command is empty", at: location) }
    let resolver = CommandResolver(registry: registry)
    var located: [StepCommand] = []
    for tokens in commands {
      var command = StepCommand(tokens: tokens, lineStart: location)
      defer { located.append(command) }
      // The same resolution a run makes, against the windows open at this step.
      // The step's window is given to the resolver by its label (no window is in front).
      let planned = context.windows
      let bound: BoundCommand
      do throws(CommandError) {
        // The step's window is the command's unless it names one: kept with the command as how
        // it names its window, so the run finds the same window.
        let named = tokens.first?.windowReference == nil ? window : nil
        let resolved = try resolver.resolve(tokens, in: planned, window: named)
        do throws(CommandError) {
          bound = try resolver.bind(resolved, in: planned)
        } catch {
          // What the words name is kept for what reads the step (coverage, an editor).
          command.unbound = resolved
          throw error
        }
      } catch {
        // A step expected to fail may fail here (that may be what it tests): the run compares
        // the message. It changes no windows either way.
        if expectsFailure { continue }
        throw ScenarioFileError(error.message, at: shifted(location, by: error.column ?? 1))
      }
      let change = resolver.windowChange(of: bound)
      command.resolution = StepCommand.Resolution(bound, windowChange: change)
      guard !expectsFailure else { continue }
      guard let change else { continue }
      context.windows.apply(change)
      if case .opens(let screen, _) = change, let opened = context.windows.openWindows.last,
        !declaredWindows.contains(where: { $0.name == opened.label })
      {
        // Where the name is written (`open catalog shelf left`), else the command's name.
        let nameToken = tokens.last { $0.text == opened.label } ?? bound.resolved.nameToken
        declaredWindows.append(
          DeclaredWindow(name: opened.label, screen: screen, location: command.location(of: nameToken)))
      }
    }
    return located
  }

  /// Where a command's text starts: inside the quote of a quoted scalar, so that a column in
  /// the command lands on the character it names.
  private func contentStart(_ node: YAMLNode) -> SourceLocation {
    var location = node.location
    if case .scalar(_, let isPlain) = node.content, !isPlain { location.column += 1 }
    return location
  }

  /// A location moved right to a column inside a one-line value.
  private func shifted(_ location: SourceLocation, by column: Int) -> SourceLocation {
    var result = location
    result.column += column - 1
    return result
  }

  // MARK: Include and repeat

  private func include(_ node: YAMLNode, with arguments: YAMLNode?, context: inout StepContext, includes: [String])
    throws(ScenarioFileError) -> [Step]
  {
    let relative = try Substitution.replace(in: try text(node, what: "include"), context.parameters, at: node.location)
    let path = FileSystem.resolve(relative, from: FileSystem.folder(of: node.location.file))
    guard includes.count < Self.maximumIncludeDepth else {
      throw ScenarioFileError("includes nest more than \(Self.maximumIncludeDepth) deep", at: node.location)
    }
    guard !includes.contains(path) else {
      throw ScenarioFileError(
        "\(relative) includes itself (through \(includes.joined(separator: " → ")))", at: node.location)
    }
    let flow: YAMLNode
    if let cached = flowCache[path] {
      flow = cached
    } else {
      // A link that leads nowhere, or round in a loop, is said as such by the read below.
      guard FileSystem.exists(path) || FileSystem.isSymbolicLink(path) else {
        throw ScenarioFileError(
          "no such file: \(relative) (paths are relative to the including file)", at: node.location)
      }
      let documents = try parseFile(path, at: node.location)
      guard documents.count == 1, let document = documents.first, document["flow"] != nil else {
        throw ScenarioFileError(
          "\(relative) is not a flow: an included file starts with `flow: NAME`", at: node.location)
      }
      try checkKeys(document, allowed: Self.flowKeys, what: "a flow")
      flowCache[path] = document
      flow = document
    }
    var declared: [String] = []
    if let params = flow["params"] {
      guard let items = params.items else {
        throw ScenarioFileError("params is a list of parameter names", at: params.location)
      }
      for item in items { declared.append(try text(item, what: "a parameter")) }
    }
    var given: Substitution.Parameters = [:]
    if let arguments {
      guard let pairs = arguments.pairs else {
        throw ScenarioFileError("with is a mapping of parameters, such as `{id: 2}`", at: arguments.location)
      }
      for pair in pairs {
        guard declared.contains(pair.key) else {
          let hint = Suggestions.didYouMean(pair.key, in: declared)
          throw ScenarioFileError("\(relative) has no parameter '\(pair.key)'\(hint)", at: pair.keyLocation)
        }
        given[pair.key] = try Substitution.apply(context.parameters, to: pair.value)
      }
    }
    if let missing = declared.first(where: { given[$0] == nil }) {
      throw ScenarioFileError("\(relative) needs `\(missing)`: add it under `with:`", at: node.location)
    }
    guard let body = flow["steps"] else {
      throw ScenarioFileError("\(relative) has no `steps:`", at: flow.location)
    }
    var inner = context
    inner.parameters.merge(given) { $1 }
    inner.origin.append("included from \(node.location)")
    let steps = try buildSteps(body, context: &inner, includes: includes + [path])
    context.windows = inner.windows
    return steps
  }

  private func repeatSteps(_ node: YAMLNode, body: YAMLNode?, context: inout StepContext, includes: [String])
    throws(ScenarioFileError) -> [Step]
  {
    // A parameter (`repeat: ${count}`) counts as the number it stands for, as in any text.
    var value = node.frameValue
    if let text = node.scalarText, text.contains("${") {
      let replaced = try Substitution.replace(in: text, context.parameters, at: node.location)
      value = Int(replaced).map(FrameValue.integer) ?? .string(replaced)
    }
    guard case .integer(let count) = value, (1...Self.maximumRepeat).contains(count) else {
      let given = value.stringValue.map { ", not '\($0)'" } ?? ""
      throw ScenarioFileError("repeat is a count from 1 to \(Self.maximumRepeat)\(given)", at: node.location)
    }
    guard let body else {
      throw ScenarioFileError("repeat needs `steps:` beside it, the steps to repeat", at: node.location)
    }
    var steps: [Step] = []
    for iteration in 1...count {
      var inner = context
      inner.parameters["iteration"] = YAMLNode(
        content: .scalar(String(iteration), isPlain: true), location: node.location)
      inner.origin.append("repeat \(iteration) of \(count) at \(node.location)")
      steps += try buildSteps(body, context: &inner, includes: includes)
      context.windows = inner.windows
    }
    return steps
  }
}
