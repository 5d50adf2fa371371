/// Splits a command line into words. The shell and the scenario runner both use it, so a
/// command means the same thing typed or scripted.
///
/// - Words are separated by spaces or tabs.
/// - `"..."` and `'...'` group words with spaces. Inside double quotes a backslash escapes the
///   next character; inside single quotes everything is literal.
/// - Outside quotes a backslash escapes the next character (`\ ` is a space inside a word).
/// - `#` at the start of a word comments out the rest of the line.
/// - `;` outside quotes ends one command and starts the next.
public enum CommandTokenizer {
  /// The commands on one line, each a list of words. Empty commands are dropped.
  ///
  /// - Complexity: O(n) in the length of the line.
  public static func commands(in line: String) throws(CommandSyntaxError) -> [[CommandToken]] {
    var commands: [[CommandToken]] = []
    var current: [CommandToken] = []
    var word = ""
    var wordColumn = 0
    var inWord = false
    var wasQuoted = false
    var quote: Character? = nil
    var quoteColumn = 0
    var escaping = false
    var column = 0

    func finishWord() {
      if inWord {
        current.append(CommandToken(text: word, column: wordColumn, wasQuoted: wasQuoted))
      }
      word = ""
      inWord = false
      wasQuoted = false
    }
    func startWord() {
      if !inWord {
        inWord = true
        wordColumn = column
      }
    }

    scan: for character in line {
      column += 1
      if escaping {
        word.append(character)
        escaping = false
        continue
      }
      if let open = quote {
        if character == open {
          quote = nil
        } else if character == "\\" && open == "\"" {
          escaping = true
        } else {
          word.append(character)
        }
        continue
      }
      switch character {
      case " ", "\t", "\r", "\n":
        finishWord()
      case "\\":
        startWord()
        escaping = true
      case "\"", "'":
        startWord()
        wasQuoted = true
        quote = character
        quoteColumn = column
      case "#" where !inWord:
        break scan
      case ";":
        finishWord()
        if !current.isEmpty { commands.append(current) }
        current = []
      default:
        startWord()
        word.append(character)
      }
    }
    if quote != nil {
      throw CommandSyntaxError(
        message: "unclosed quote: add the closing \(quote!) or escape the opening one",
        column: quoteColumn)
    }
    if escaping {
      throw CommandSyntaxError(
        message: "the line ends with a backslash: remove it or escape it as \\\\", column: column)
    }
    finishWord()
    if !current.isEmpty { commands.append(current) }
    return commands
  }

  /// Quotes `word` so that the tokenizer reads it back as one word with the same text.
  public static func quoted(_ word: String) -> String {
    let plain = !word.isEmpty && word.allSatisfy { !" \t\"'\\#;".contains($0) }
    if plain { return word }
    var result = "\""
    for character in word {
      if character == "\"" || character == "\\" { result.append("\\") }
      result.append(character)
    }
    return result + "\""
  }
}
