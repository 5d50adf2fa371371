import WorkbenchCore
import WorkbenchModuleAPI
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
    // The same lines are most often the same array (nothing edited since): compared at once.
    if let kept = loadedText, kept.path == path, kept.lines == lines { return kept }
    let text = lines.joined(separator: "\n")
    // Mid-edit, a file can stop being YAML (an unclosed brace, a key without its colon): the
    // loader reads it without the lines the parser stops at, else it is the last one read.
    let read = loader.loadKeepingShape(bytes: Array(text.utf8), path: path)
    var loaded = LoadedText(path: path, lines: lines, problem: read.problem, shape: read)
    if read.file != nil {
      lastFile = (uri, read)
    } else if let last = lastFile, last.uri == uri {
      loaded.shape = last.shape
      loaded.isStale = true
    }
    loadedText = loaded
    return loaded
  }

  /// Where the file declares names and writes its steps, as the loader read it.
  func outline(_ lines: [String], uri: String) -> ScenarioOutline {
    loaded(lines, uri: uri).shape.outline
  }

  /// Whether `line` (0-based) is inside an `expect:` step: the innermost step holding it is one.
  func isInExpectation(_ lines: [String], uri: String, line: Int) -> Bool {
    outline(lines, uri: uri).steps(holding: line + 1).last?.key == "expect"
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
  var lines: [String]
  /// The file's problems, as `check` says them; `nil` when it has none.
  var problem: ScenarioFileError? = nil
  /// What the loader read (an earlier text's, when this one is not YAML), the outline's YAML
  /// with it.
  var shape: ShapedFile
  /// The scenarios as far as they load; `nil` when the text has never been YAML.
  var file: ScenarioFile? { shape.file }
  /// Whether `file` is an earlier text's (this one is not YAML).
  var isStale = false
}
