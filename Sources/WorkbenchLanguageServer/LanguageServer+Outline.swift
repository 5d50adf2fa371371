import WorkbenchCore
import WorkbenchScenarioFormat
import WorkbenchScenarioModel

/// The file as the loader reads it: the one model of a scenario the runner also runs, read once
/// per text. Windows, their screens and where they are declared, and each step's commands with
/// their places, come from here, not from the text read again word by word.
extension LanguageServer {
  /// The file loaded as far as it loads (the problems aside), with its problems; kept while the
  /// text stays the same, so diagnostics, completion, hover and navigation load it once.
  func loaded(_ lines: [String], uri: String) -> LoadedText {
    let path = Self.path(of: uri)
    let text = lines.joined(separator: "\n")
    if let kept = loadedText, kept.path == path, kept.text == text { return kept }
    let read = loader.loadKeepingShape(bytes: Array(text.utf8), path: path)
    var loaded = LoadedText(path: path, text: text, file: read.file, problem: read.problem)
    // Mid-edit, a file can stop being YAML (an unclosed brace, a key without its colon): its
    // shape is read without the lines the YAML parser stops at, else it is the last one read.
    if loaded.file == nil, let problem = loaded.problem {
      loaded.file = loadWithoutBrokenLines(lines, path: path, first: problem)
    }
    if let file = loaded.file {
      lastFile = (uri, file)
    } else if let last = lastFile, last.uri == uri {
      loaded.file = last.file
      loaded.isStale = true
    }
    loadedText = loaded
    return loaded
  }

  /// The file loaded with the lines its YAML problems are on blanked, a few times over (where the
  /// parser stops past the text, the line it names as where the construct began); `nil` when it
  /// still does not read.
  private func loadWithoutBrokenLines(_ lines: [String], path: String, first: ScenarioFileError) -> ScenarioFile? {
    var text = lines
    var problem = first
    for _ in 0..<8 {
      guard problem.location.file == path else { return nil }
      let isBlank = { (line: Int) in line < 1 || line > text.count || text[line - 1].allSatisfy { $0 == " " } }
      var broken = problem.location.line
      if isBlank(broken), let begun = problem.message.firstMatch(of: /\(line (\d+)\)/).flatMap({ Int($0.1) }) {
        broken = begun
      }
      guard !isBlank(broken) else { return nil }
      text[broken - 1] = ""
      let read = loader.loadKeepingShape(bytes: Array(text.joined(separator: "\n").utf8), path: path)
      if let file = read.file { return file }
      guard let next = read.problem else { return nil }
      problem = next
    }
    return nil
  }

  /// The scenario that holds `line` (0-based): the last one starting at or above it.
  func scenario(in lines: [String], uri: String, line: Int) -> Scenario? {
    guard let file = loaded(lines, uri: uri).file else { return nil }
    return file.scenarios.last { $0.location.line <= line + 1 } ?? file.scenarios.first
  }

  /// The windows the scenario holding `line` declares or opens, by label.
  func windows(in lines: [String], uri: String, line: Int) -> [String: DeclaredWindow] {
    var windows: [String: DeclaredWindow] = [:]
    for window in scenario(in: lines, uri: uri, line: line)?.declaredWindows ?? [] where windows[window.name] == nil {
      windows[window.name] = window
    }
    return windows
  }

  /// The command of a step whose words cover the cursor, with the step.
  func command(in lines: [String], uri: String, at position: (line: Int, character: Int)) -> (Step, StepCommand)? {
    guard position.line < lines.count, let scenario = scenario(in: lines, uri: uri, line: position.line) else {
      return nil
    }
    let path = Self.path(of: uri)
    let column = Self.prefix(of: lines[position.line], utf16: position.character).unicodeScalars.count + 1
    for step in scenario.steps {
      for command in step.commands
      where command.lineStart.file == path && command.lineStart.line == position.line + 1
        && (command.columns.contains(column) || command.columns.upperBound == column)
      {
        return (step, command)
      }
    }
    return nil
  }
}

/// A file's text and what the loader made of it.
struct LoadedText {
  var path: String
  var text: String
  /// The scenarios as far as they load; `nil` when the text has never been YAML.
  var file: ScenarioFile?
  /// The file's problems, as `check` says them; `nil` when it has none.
  var problem: ScenarioFileError? = nil
  /// Whether `file` is an earlier text's (this one is not YAML).
  var isStale = false
}
