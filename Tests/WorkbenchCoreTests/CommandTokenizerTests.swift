import Testing
import WorkbenchCore
import WorkbenchModuleAPI

@Suite struct CommandTokenizerTests {
  private func words(_ line: String) throws -> [[String]] {
    try CommandTokenizer.commands(in: line).map { $0.map(\.text) }
  }

  @Test func splitsOnSpacesAndTabs() throws {
    #expect(try words("select  2\tnow") == [["select", "2", "now"]])
  }

  @Test func quotesGroupWords() throws {
    #expect(try words(#"rename 2 "Intro to Algorithms" 'it''s'"#) == [["rename", "2", "Intro to Algorithms", "its"]])
  }

  @Test func backslashEscapesOutsideAndInsideDoubleQuotes() throws {
    #expect(try words(#"add a\ b "say \"hi\"" 'no\escape'"#) == [["add", "a b", #"say "hi""#, #"no\escape"#]])
  }

  @Test func hashStartsACommentOnlyAtAWordStart() throws {
    #expect(try words("query c# # the rest") == [["query", "c#"]])
  }

  @Test func semicolonsSeparateCommands() throws {
    #expect(try words("select 1; query x ;; deselect") == [["select", "1"], ["query", "x"], ["deselect"]])
    #expect(try words(#"add "a; b""#) == [["add", "a; b"]])
  }

  @Test func columnsPointAtEachWord() throws {
    let tokens = try CommandTokenizer.commands(in: "  @left  select 2")[0]
    #expect(tokens.map(\.column) == [3, 10, 17])
  }

  @Test func quotedAtSignIsText() throws {
    let tokens = try CommandTokenizer.commands(in: #"query "@left""#)[0]
    #expect(tokens[1].wasQuoted)
  }

  @Test func unclosedQuoteIsAnErrorAtTheQuote() {
    #expect(throws: CommandSyntaxError.self) { try CommandTokenizer.commands(in: #"add "never closed"#) }
    do {
      _ = try CommandTokenizer.commands(in: #"add "never closed"#)
    } catch {
      #expect(error.column == 5)
      #expect(error.message.contains("unclosed quote"))
    }
  }

  @Test func trailingBackslashIsAnError() {
    #expect(throws: CommandSyntaxError.self) { try CommandTokenizer.commands(in: #"add x\"#) }
  }

  @Test func quotedRoundTripsThroughTheTokenizer() throws {
    for word in ["plain", "two words", #"a "quoted" \ word"#, "semi;colon", "#hash", ""] {
      let line = "add " + CommandTokenizer.quoted(word)
      let parsed = try words(line)
      #expect(parsed == [["add", word]] || (word.isEmpty && parsed == [["add", ""]]))
    }
  }

  @Test func emptyAndCommentLinesHaveNoCommands() throws {
    #expect(try words("") == [])
    #expect(try words("   # only a comment") == [])
  }
}

/// A line read as far as it is typed, for completion: the word at the end is the one the
/// tokenizer is in the middle of, quotes and `;` read as a whole line reads them.
@Suite struct TypedLineTests {
  @Test func theWordBeingTypedIsTheTokenizers() {
    func typing(_ line: String) -> (words: [String], typing: String, inQuote: Bool, inComment: Bool) {
      let typed = CommandTokenizer.typing(line)
      return (typed.words.map(\.text), typed.typing.text, typed.inQuote, typed.inComment)
    }
    #expect(typing("sel") == ([], "sel", false, false))
    #expect(typing("select ") == (["select"], "", false, false))
    #expect(typing("rename 4 \"a; sel") == (["rename", "4"], "a; sel", true, false))
    #expect(typing("rename 4 'a b") == (["rename", "4"], "a b", true, false))
    #expect(typing("rename 4 \"a\"; sel") == ([], "sel", false, false))
    #expect(typing("select 2;") == ([], "", false, false))
    #expect(typing("select 2;  ") == ([], "", false, false))
    #expect(typing("select 2 # sel") == (["select", "2"], "", false, true))
    #expect(typing("a\\; b") == (["a;"], "b", false, false))
    #expect(CommandTokenizer.typing("@left sel").typing.column == 7)
    #expect(CommandTokenizer.typing("").typing.column == 1)
  }
}

@Suite struct SuggestionTests {
  @Test func suggestsTheClosestName() {
    #expect(Suggestions.closest(to: "selct", in: ["select", "deselect", "scroll"]) == "select")
    #expect(Suggestions.closest(to: "qeury", in: ["query", "quit"]) == "query")
  }

  @Test func suggestsNothingForUnrelatedWords() {
    #expect(Suggestions.closest(to: "xyzzy", in: ["select", "query"]) == nil)
    // A one-character name suggests nothing every character of which differs.
    #expect(Suggestions.closest(to: "a", in: ["1", "2"]) == nil)
    #expect(Suggestions.closest(to: "lft", in: ["left", "right"]) == "left")
    #expect(Suggestions.closest(to: "w", in: ["w1", "w2"]) == "w1")
  }

  /// The one reading of a command's `@WINDOW` prefix: unquoted and first only.
  @Test func theWindowPrefixIsAnUnquotedFirstWord() throws {
    let named = try CommandTokenizer.commands(in: "@left select 2")[0].windowPrefix
    #expect(named.window == "left")
    #expect(named.token?.column == 1)
    #expect(named.rest.map(\.text) == ["select", "2"])
    let quoted = try CommandTokenizer.commands(in: "\"@left\" select")[0].windowPrefix
    #expect(quoted.window == nil)
    #expect(quoted.rest.map(\.text) == ["@left", "select"])
    let later = try CommandTokenizer.commands(in: "rename 1 @home")[0].windowPrefix
    #expect(later.window == nil && later.rest.count == 3)
    #expect([CommandToken]().windowPrefix.window == nil)
  }
}
