/// A regular expression for `$matches`, `fails: /…/` and `--filter`, matched by simulating its
/// automaton over every position at once (Thompson's construction), so the time a match takes
/// grows with the text times the pattern and never exponentially: `(a+)+$` against forty `a`s
/// and a `b` takes microseconds, where a backtracking engine takes minutes.
///
/// The syntax is the common one: literals and `\`-escaped punctuation; `.` (any character but a
/// newline); classes `[a-z]`, `[^…]` with `\d \w \s` inside; `\d \D \w \W \s \S`, `\b \B`,
/// `\n \t \r`; anchors `^` and `$` (the start and end of the text); groups `(…)`, `(?:…)` and
/// `(?<name>…)`; alternation `|`; quantifiers `* + ? {n} {n,} {n,m}` and their lazy forms
/// (`*?`: the same answer here, since a pattern only says whether the text matches); `(?i)` at
/// the start for case-insensitive matching. `\b` is the simple boundary between a word character
/// (a letter, a digit or `_`) and anything else, as in most engines (Swift's `Regex` follows
/// Unicode's word rules instead, where `e.g` is one word). Backreferences, lookaround and possessive
/// quantifiers need backtracking and are refused with a message saying so. The text is matched
/// a `Character` (grapheme cluster) at a time, as Swift's own `Regex` does by default.
public struct TextPattern: Sendable {
  /// The compiled program.
  let program: [Instruction]
  let ignoresCase: Bool

  /// The most instructions a pattern may compile to once its counted repetitions are expanded
  /// (`(a{100}){100}` is 10,000 copies of `a`).
  public static let maximumProgram = 20_000

  /// Compiles `pattern`; the error says what is wrong and where (a column of the pattern).
  public init(_ pattern: String) throws(RegexProblem) {
    var parser = PatternParser(pattern)
    let node = try parser.parse()
    var compiler = PatternCompiler(foldsCase: parser.ignoresCase)
    try compiler.emit(node)
    compiler.program.append(.match)
    program = compiler.program
    ignoresCase = parser.ignoresCase
  }

  /// Whether the pattern matches somewhere in `text`.
  ///
  /// - Complexity: O(n × m) for a text of n characters and a program of m instructions.
  public func matches(in text: String) -> Bool {
    var steps = 0
    return matches(in: text, steps: &steps)
  }

  /// `matches(in:)`, counting the instructions the automaton visited (for the tests that check
  /// the work stays within the text's length times the program's).
  func matches(in text: String, steps: inout Int) -> Bool {
    let characters = ignoresCase ? Array(text.lowercased()) : Array(text)
    var simulation = Simulation(program: program, text: characters, ignoresCase: ignoresCase)
    defer { steps = simulation.steps }
    return simulation.run()
  }
}

/// Why a pattern was refused.
public struct RegexProblem: Error, Sendable {
  /// What is wrong and what to do.
  public let message: String
}

// MARK: - The program

/// One step of the automaton.
enum Instruction: Sendable {
  /// Consumes this character.
  case character(Character)
  /// Consumes any character but a newline.
  case any
  /// Consumes a character of the class.
  case set(CharacterClass)
  /// Goes on at both targets.
  case split(Int, Int)
  /// Goes on at the target.
  case jump(Int)
  /// Goes on only at the start of the text.
  case textStart
  /// Goes on only at the end of the text.
  case textEnd
  /// Goes on only at a word boundary (`true`) or away from one (`false`).
  case wordBoundary(Bool)
  /// The pattern matched.
  case match
}

/// A bracketed class, or one of the `\d \w \s` shorthands.
struct CharacterClass: Sendable {
  enum Item: Sendable {
    case character(Character)
    case range(Unicode.Scalar, Unicode.Scalar)
    case digit(Bool)
    case word(Bool)
    case space(Bool)
  }
  var items: [Item]
  var negated: Bool

  func contains(_ character: Character, ignoringCase: Bool) -> Bool {
    if includes(character) { return !negated }
    if ignoringCase {
      // The text is lowercased already; an uppercase range or letter in the class still counts.
      let upper = character.uppercased()
      if upper.count == 1, let variant = upper.first, variant != character, includes(variant) { return !negated }
    }
    return negated
  }

  private func includes(_ character: Character) -> Bool {
    for item in items {
      switch item {
      case .character(let member): if member == character { return true }
      case .range(let low, let high):
        if character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first,
          scalar.value >= low.value, scalar.value <= high.value
        {
          return true
        }
      case .digit(let positive): if CharacterClass.isDigit(character) == positive { return true }
      case .word(let positive): if CharacterClass.isWord(character) == positive { return true }
      case .space(let positive): if character.isWhitespace == positive { return true }
      }
    }
    return false
  }

  static func isDigit(_ character: Character) -> Bool {
    guard let scalar = character.unicodeScalars.first else { return false }
    return scalar.properties.generalCategory == .decimalNumber
  }

  static func isWord(_ character: Character) -> Bool {
    character.isLetter || character.isNumber || character == "_"
  }
}

// MARK: - Parsing

/// A pattern's syntax tree.
indirect enum PatternNode {
  case empty
  case character(Character)
  case any
  case set(CharacterClass)
  case textStart
  case textEnd
  case wordBoundary(Bool)
  case sequence([PatternNode])
  case alternation([PatternNode])
  case repetition(PatternNode, minimum: Int, maximum: Int?)
}

/// A recursive-descent parser; `RegexLimits` has bounded the nesting before it gets here.
struct PatternParser {
  private let characters: [Character]
  private var position = 0
  private(set) var ignoresCase = false

  init(_ pattern: String) {
    characters = Array(pattern)
  }

  mutating func parse() throws(RegexProblem) -> PatternNode {
    if characters.starts(with: Array("(?i)")) {
      ignoresCase = true
      position = 4
    }
    let node = try alternation()
    if position < characters.count {
      // Only an unopened `)` stops the parse early.
      throw problem("a `)` closes a group that was never opened")
    }
    return node
  }

  private func problem(_ what: String) -> RegexProblem {
    RegexProblem(message: "it is not a valid regular expression (\(what), at column \(position + 1))")
  }

  private func unsupported(_ what: String) -> RegexProblem {
    RegexProblem(
      message: "it uses \(what) (column \(position + 1)), which patterns here do not support: they are matched in "
        + "time proportional to the text, which these would need backtracking for; rewrite it without")
  }

  private var next: Character? { position < characters.count ? characters[position] : nil }

  private func peek(_ offset: Int) -> Character? {
    position + offset < characters.count ? characters[position + offset] : nil
  }

  private mutating func alternation() throws(RegexProblem) -> PatternNode {
    var branches = [try sequence()]
    while next == "|" {
      position += 1
      branches.append(try sequence())
    }
    return branches.count == 1 ? branches[0] : .alternation(branches)
  }

  private mutating func sequence() throws(RegexProblem) -> PatternNode {
    var items: [PatternNode] = []
    while let character = next, character != "|", character != ")" {
      let atom = try self.atom()
      items.append(try quantified(atom))
    }
    return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .sequence(items))
  }

  private mutating func quantified(_ atom: PatternNode) throws(RegexProblem) -> PatternNode {
    var node = atom
    while let character = next {
      var minimum = 0
      var maximum: Int?
      switch character {
      case "*": position += 1
      case "+":
        minimum = 1
        position += 1
      case "?":
        maximum = 1
        position += 1
      case "{":
        guard let counted = try countedRepetition() else { return node }
        (minimum, maximum) = counted
      default: return node
      }
      if case .textStart = node { throw problem("a quantifier after an anchor repeats nothing") }
      if next == "?" {
        position += 1  // lazy: the same answer to "does it match"
      } else if next == "+" {
        throw unsupported("a possessive quantifier")
      }
      node = .repetition(node, minimum: minimum, maximum: maximum)
    }
    return node
  }

  /// `{n}`, `{n,}` or `{n,m}` at the current position, consumed; `nil` (nothing consumed) when
  /// the brace does not start one, and it is then a literal `{`.
  private mutating func countedRepetition() throws(RegexProblem) -> (Int, Int?)? {
    var index = position + 1
    func number() -> Int? {
      var digits = ""
      while index < characters.count, let digit = characters[index].wholeNumberValue, characters[index].isASCII {
        digits.append(characters[index])
        index += 1
        if digits.count > 6 { return nil }
        _ = digit
      }
      return Int(digits)
    }
    // `{,m}` is `{0,m}`, as Swift's `Regex` reads it.
    let leadingComma = index < characters.count && characters[index] == ","
    guard let minimum = leadingComma ? 0 : number() else { return nil }
    var maximum: Int? = minimum
    if index < characters.count, characters[index] == "," {
      index += 1
      maximum = number()
      if leadingComma && maximum == nil { return nil }
    }
    guard index < characters.count, characters[index] == "}" else { return nil }
    if let maximum, maximum < minimum {
      throw problem("the count {\(minimum),\(maximum)} is out of order")
    }
    position = index + 1
    return (minimum, maximum)
  }

  private mutating func atom() throws(RegexProblem) -> PatternNode {
    guard let character = next else { throw problem("the pattern ends too early") }
    switch character {
    case "(":
      position += 1
      if next == "?" {
        switch peek(1) {
        case ":": position += 2
        case "<" where peek(2) != "=" && peek(2) != "!":
          // A named group: its name is skipped (nothing here reads captures).
          guard let close = characters[position...].firstIndex(of: ">") else {
            throw problem("a group name is not closed with `>`")
          }
          position = close + 1
        case "=", "!", "<": throw unsupported("lookaround")
        case "i" where peek(2) == ")": throw problem("`(?i)` is only understood at the very start")
        default: throw unsupported("a group option")
        }
      }
      let inner = try alternation()
      guard next == ")" else { throw problem("a group is not closed with `)`") }
      position += 1
      return inner
    case "[":
      return .set(try bracketClass())
    case ".":
      position += 1
      return .any
    case "^":
      position += 1
      return .textStart
    case "$":
      position += 1
      return .textEnd
    case "*", "+", "?":
      throw problem("`\(character)` has nothing before it to repeat")
    case "\\":
      position += 1
      return try escape(inClass: false).node
    default:
      position += 1
      return .character(character)
    }
  }

  /// After a `\`: what it stands for.
  private mutating func escape(inClass: Bool) throws(RegexProblem) -> (node: PatternNode, item: CharacterClass.Item?) {
    guard let character = next else { throw problem("the pattern ends with a lone `\\`") }
    position += 1
    switch character {
    case "d": return (.set(CharacterClass(items: [.digit(true)], negated: false)), .digit(true))
    case "D": return (.set(CharacterClass(items: [.digit(false)], negated: false)), .digit(false))
    case "w": return (.set(CharacterClass(items: [.word(true)], negated: false)), .word(true))
    case "W": return (.set(CharacterClass(items: [.word(false)], negated: false)), .word(false))
    case "s": return (.set(CharacterClass(items: [.space(true)], negated: false)), .space(true))
    case "S": return (.set(CharacterClass(items: [.space(false)], negated: false)), .space(false))
    case "b" where !inClass: return (.wordBoundary(true), nil)
    case "B" where !inClass: return (.wordBoundary(false), nil)
    case "n": return (.character("\n"), .character("\n"))
    case "t": return (.character("\t"), .character("\t"))
    case "r": return (.character("\r"), .character("\r"))
    case "1"..."9" where !inClass:
      position -= 1
      throw unsupported("a backreference")
    default:
      guard !character.isLetter, !character.isNumber else {
        position -= 1
        throw problem("`\\\(character)` is not an escape this pattern syntax knows")
      }
      return (.character(character), .character(character))
    }
  }

  /// `[…]`, the opening bracket next.
  private mutating func bracketClass() throws(RegexProblem) -> CharacterClass {
    let opening = position
    position += 1
    var result = CharacterClass(items: [], negated: false)
    if next == "^" {
      result.negated = true
      position += 1
    }
    var first = true
    while true {
      guard let character = next else {
        position = opening
        throw problem("a class `[` is not closed with `]`")
      }
      if character == "]" && !first {
        position += 1
        return result
      }
      first = false
      if character == "[" {
        throw unsupported("a nested class or class operation")
      }
      var low: Character
      if character == "\\" {
        position += 1
        guard let item = try escape(inClass: true).item else { throw problem("an escape that is not a character") }
        guard case .character(let single) = item else {
          result.items.append(item)
          continue
        }
        low = single
      } else {
        low = character
        position += 1
      }
      // A range `a-z`, unless the `-` is last (`[a-]`).
      if next == "-", let after = peek(1), after != "]" {
        position += 1
        var high: Character
        if after == "\\" {
          position += 1
          guard case .character(let single)? = try escape(inClass: true).item else {
            throw problem("a range ends in a class shorthand")
          }
          high = single
        } else {
          high = after
          position += 1
        }
        guard low.unicodeScalars.count == 1, high.unicodeScalars.count == 1,
          let lowScalar = low.unicodeScalars.first, let highScalar = high.unicodeScalars.first,
          lowScalar.value <= highScalar.value
        else { throw problem("the range \(low)-\(high) is out of order") }
        result.items.append(.range(lowScalar, highScalar))
        continue
      }
      result.items.append(.character(low))
    }
  }
}

// MARK: - Compiling

struct PatternCompiler {
  /// Whether literals are lowercased, as the text is (`(?i)`).
  let foldsCase: Bool
  var program: [Instruction] = []

  mutating func emit(_ node: PatternNode) throws(RegexProblem) {
    guard program.count < TextPattern.maximumProgram else {
      throw RegexProblem(
        message: "it is too large once its counted repetitions are expanded (over \(TextPattern.maximumProgram) "
          + "steps): use smaller counts")
    }
    switch node {
    case .empty: break
    case .character(let character):
      guard foldsCase else {
        program.append(.character(character))
        break
      }
      // Lowercasing can give more than one character (as the text's does): each is one step.
      for folded in character.lowercased() { program.append(.character(folded)) }
    case .any: program.append(.any)
    case .set(let set): program.append(.set(set))
    case .textStart: program.append(.textStart)
    case .textEnd: program.append(.textEnd)
    case .wordBoundary(let at): program.append(.wordBoundary(at))
    case .sequence(let items):
      for item in items { try emit(item) }
    case .alternation(let branches):
      // split L1, next; L1: first; jump end; next: split L2, …
      var jumps: [Int] = []
      for (index, branch) in branches.enumerated() {
        if index < branches.count - 1 {
          let split = program.count
          program.append(.split(split + 1, 0))
          try emit(branch)
          jumps.append(program.count)
          program.append(.jump(0))
          program[split] = .split(split + 1, program.count)
        } else {
          try emit(branch)
        }
      }
      for jump in jumps { program[jump] = .jump(program.count) }
    case .repetition(let inner, let minimum, let maximum):
      for _ in 0..<minimum { try emit(inner) }
      if let maximum {
        // Each optional copy: split into it or past all that are left.
        var splits: [Int] = []
        for _ in minimum..<maximum {
          splits.append(program.count)
          program.append(.split(program.count + 1, 0))
          try emit(inner)
        }
        for split in splits { program[split] = .split(split + 1, program.count) }
      } else {
        // L: split body, end; body; jump L
        let loop = program.count
        program.append(.split(loop + 1, 0))
        try emit(inner)
        program.append(.jump(loop))
        program[loop] = .split(loop + 1, program.count)
      }
    }
  }
}

// MARK: - Matching

/// The automaton run over the text: the set of instructions alive at each position, each
/// added once (a generation mark per instruction), so no path is explored twice.
struct Simulation {
  let program: [Instruction]
  let text: [Character]
  let ignoresCase: Bool
  private var marks: [Int]
  private var generation = 0
  /// Instructions visited so far.
  private(set) var steps = 0

  init(program: [Instruction], text: [Character], ignoresCase: Bool) {
    self.program = program
    self.text = text
    self.ignoresCase = ignoresCase
    marks = Array(repeating: -1, count: program.count)
  }

  mutating func run() -> Bool {
    var current: [Int] = []
    var following: [Int] = []
    var stack: [Int] = []
    // Reused at every position (an array a character was measurable in the bomb benchmark).
    var alive: [Int] = []
    for position in 0...text.count {
      generation += 1
      // Threads carried over from the last character, then a new start here (the pattern may
      // match anywhere).
      alive.removeAll(keepingCapacity: true)
      for pc in current where add(pc, at: position, to: &alive, stack: &stack) { return true }
      if add(0, at: position, to: &alive, stack: &stack) { return true }
      guard position < text.count else { break }
      let character = text[position]
      following.removeAll(keepingCapacity: true)
      for pc in alive {
        switch program[pc] {
        case .character(let expected): if expected == character { following.append(pc + 1) }
        case .any: if character != "\n" { following.append(pc + 1) }
        case .set(let set): if set.contains(character, ignoringCase: ignoresCase) { following.append(pc + 1) }
        default: break
        }
      }
      swap(&current, &following)
    }
    return false
  }

  /// Adds `start` and everything reachable from it without consuming a character; `true` when
  /// that reaches the match.
  private mutating func add(_ start: Int, at position: Int, to list: inout [Int], stack: inout [Int]) -> Bool {
    stack.removeAll(keepingCapacity: true)
    stack.append(start)
    while let pc = stack.popLast() {
      steps += 1
      guard marks[pc] != generation else { continue }
      marks[pc] = generation
      switch program[pc] {
      case .match: return true
      case .jump(let target): stack.append(target)
      case .split(let first, let second):
        stack.append(second)
        stack.append(first)
      case .textStart: if position == 0 { stack.append(pc + 1) }
      case .textEnd: if position == text.count { stack.append(pc + 1) }
      case .wordBoundary(let wanted):
        let before = position > 0 && CharacterClass.isWord(text[position - 1])
        let after = position < text.count && CharacterClass.isWord(text[position])
        if (before != after) == wanted { stack.append(pc + 1) }
      case .character, .any, .set: list.append(pc)
      }
    }
    return false
  }
}
