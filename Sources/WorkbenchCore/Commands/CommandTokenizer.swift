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
    let result = line.withUTF8 { bytes in
      Result { () throws(CommandSyntaxError) -> [[CommandToken]] in try commands(in: bytes) }
    }
    return try result.get()
  }

  private static func commands(in bytes: UnsafeBufferPointer<UInt8>) throws(CommandSyntaxError) -> [[CommandToken]] {
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
        break scan
      case semicolon:
        finishWord()
        if !current.isEmpty { commands.append(current) }
        current = []
      default:
        startWord()
        word.append(byte)
      }
    }
    if let quote {
      throw CommandSyntaxError(
        message: "unclosed quote: add the closing \(Character(Unicode.Scalar(quote))) or escape the opening one",
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
