import WorkbenchModuleAPI

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
  /// Every character with a meaning here is ASCII, so the line is scanned as UTF-8 bytes and
  /// words are copied out as byte runs: a multi-megabyte word costs a few nanoseconds a byte.
  /// Columns count Unicode scalars from 1.
  ///
  /// - Complexity: O(n) in the length of the line.
  public static func commands(in line: String) throws(CommandSyntaxError) -> [[CommandToken]] {
    var line = line
    let scan = line.withUTF8 { bytes in self.scan(bytes) }
    if let (quote, column) = scan.openQuote {
      throw CommandSyntaxError(
        message: "unclosed quote: add the closing \(Character(Unicode.Scalar(quote))) or escape the opening one",
        column: column)
    }
    if scan.endsEscaping {
      throw CommandSyntaxError(
        message: "the line ends with a backslash: remove it or escape it as \\\\", column: scan.lastColumn)
    }
    return scan.commands
  }

  /// A line as far as it is typed: the last command's words before the one being typed, and that
  /// word (empty when the line ends between words or commands), read as the tokenizer reads a
  /// whole line, so a `;` or a space inside an open quote is part of the word being typed.
  public struct TypedLine: Sendable {
    /// The words of the command being typed before the word at the end.
    public var words: [CommandToken]
    /// The word being typed; its text is empty when the line ends after a space or a `;`.
    public var typing: CommandToken
    /// Whether the word being typed is inside a quote not closed yet.
    public var inQuote: Bool
    /// Whether the line ends in a comment (`# ...`), where nothing is completed.
    public var inComment: Bool
  }

  /// `line` read as far as it goes, for completing it (see `TypedLine`). Never fails: an open
  /// quote or a trailing backslash is a word still being typed.
  public static func typing(_ line: String) -> TypedLine {
    var line = line
    let scan = line.withUTF8 { bytes in self.scan(bytes) }
    var words = scan.commands.last ?? []
    guard scan.endsInWord, !scan.endsBetweenCommands, let last = words.popLast() else {
      let column = OutsideNumbers.saturatingSuccessor(of: scan.lastColumn)
      return TypedLine(
        words: scan.endsBetweenCommands ? [] : words, typing: CommandToken(text: "", column: column),
        inQuote: false, inComment: scan.endsInComment)
    }
    return TypedLine(words: words, typing: last, inQuote: scan.openQuote != nil, inComment: false)
  }

  /// What a scan of a line found: its commands (a word still open at the end finished as it
  /// stands), and how the line ends.
  private struct Scan {
    var commands: [[CommandToken]] = []
    /// The quote still open at the end, and its column.
    var openQuote: (UInt8, Int)?
    var endsEscaping = false
    var endsInComment = false
    /// Whether the last character belongs to a word (no space, `;` or comment after it).
    var endsInWord = false
    /// Whether the line ends with a `;` (and spaces): a new command, not yet begun.
    var endsBetweenCommands = false
    /// The column of the last character.
    var lastColumn = 0
  }

  private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Scan {
    var commands: [[CommandToken]] = []
    var current: [CommandToken] = []
    var word: [UInt8] = []
    var wordColumn = 0
    var inWord = false
    var wasQuoted = false
    var quote: UInt8? = nil
    var quoteColumn = 0
    var escaping = false
    var column = 0
    var inComment = false
    var betweenCommands = false

    func finishWord() {
      if inWord {
        current.append(
          CommandToken(text: String(decoding: word, as: UTF8.self), column: wordColumn, wasQuoted: wasQuoted))
      }
      word.removeAll(keepingCapacity: true)
      inWord = false
      wasQuoted = false
    }
    func startWord() {
      if !inWord {
        inWord = true
        wordColumn = column
        betweenCommands = false
      }
    }

    let space: UInt8 = 0x20
    let tab: UInt8 = 0x09
    let carriageReturn: UInt8 = 0x0D
    let newline: UInt8 = 0x0A
    let backslash: UInt8 = 0x5C
    let doubleQuote: UInt8 = 0x22
    let singleQuote: UInt8 = 0x27
    let hash: UInt8 = 0x23
    let semicolon: UInt8 = 0x3B
    var index = 0
    scan: while index < bytes.count {
      let byte = bytes[index]
      index += 1
      // A continuation byte belongs to the scalar already counted.
      let isContinuation = byte & 0xC0 == 0x80
      if !isContinuation { column += 1 }
      if escaping {
        word.append(byte)
        // The escape covers the whole scalar, continuation bytes included.
        if index >= bytes.count || bytes[index] & 0xC0 != 0x80 { escaping = false }
        continue
      }
      if let open = quote {
        if byte == open {
          quote = nil
        } else if byte == backslash && open == doubleQuote {
          escaping = true
        } else {
          // The run up to the next quote or backslash is copied at once.
          var end = index
          while end < bytes.count, bytes[end] != open, bytes[end] != backslash || open != doubleQuote { end += 1 }
          word.append(byte)
          if end > index {
            let run = UnsafeBufferPointer(rebasing: bytes[index..<end])
            word.append(contentsOf: run)
            for next in run where next & 0xC0 != 0x80 { column += 1 }
            index = end
          }
        }
        continue
      }
      switch byte {
      case space, tab, carriageReturn, newline:
        finishWord()
      case backslash:
        startWord()
        escaping = true
      case doubleQuote, singleQuote:
        startWord()
        wasQuoted = true
        quote = byte
        quoteColumn = column
      case hash where !inWord:
        inComment = true
        break scan
      case semicolon:
        finishWord()
        if !current.isEmpty { commands.append(current) }
        current = []
        betweenCommands = true
      default:
        startWord()
        word.append(byte)
      }
    }
    var result = Scan()
    result.openQuote = quote.map { ($0, quoteColumn) }
    result.endsEscaping = escaping
    result.endsInComment = inComment
    result.endsInWord = inWord
    result.lastColumn = column
    finishWord()
    if !current.isEmpty { commands.append(current) }
    result.endsBetweenCommands = betweenCommands && current.isEmpty
    result.commands = commands
    return result
  }

  /// Quotes `word` so that the tokenizer reads it back as one word with the same text.
  public static func quoted(_ word: String) -> String {
    // Bytes, not characters: a word is plain unless it holds a space, tab, line break, quote,
    // backslash, `#` or `;` (a character built on one of them is quoted too, which reads back
    // the same).
    let plain =
      !word.isEmpty
      && word.utf8.allSatisfy { byte in
        byte != 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D && byte != 0x22 && byte != 0x27 && byte != 0x5C
          && byte != 0x23 && byte != 0x3B
      }
    if plain { return word }
    var result = "\""
    for character in word {
      if character == "\"" || character == "\\" { result.append("\\") }
      result.append(character)
    }
    return result + "\""
  }
}
