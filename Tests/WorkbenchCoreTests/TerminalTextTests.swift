import Testing
import WorkbenchCore
import WorkbenchModuleAPI

/// Text from outside reaches the terminal shown, not obeyed.
@Suite struct TerminalTextTests {
  @Test func controlCharactersAreShownNotSent() {
    #expect(TerminalText.visible("a\u{1B}]52;c;aGk=\u{07}b") == "a^[]52;c;aGk=^Gb")
    #expect(TerminalText.visible("\u{1B}[2Jcleared") == "^[[2Jcleared")
    #expect(TerminalText.visible("over\rwrite\u{7F}") == "over^Mwrite^?")
    #expect(TerminalText.visible("\u{0}nul") == "^@nul")
    #expect(TerminalText.visible("c1 \u{9B}31m") == "c1 <U+009B>31m")
    #expect(TerminalText.visible("evil\u{202E}txt.exe") == "evil<U+202E>txt.exe")
    #expect(TerminalText.visible("isolate\u{2066}x\u{2069}") == "isolate<U+2066>x<U+2069>")
  }

  @Test func ordinaryTextIsLeftAsItIs() {
    for text in [
      "lines\nand\ttabs", "[1 left] catalog library · revision 1", "↓ 25 more … ▸ ✔ ✘ —", "Война и мир",
      "Gödel, Escher, Bach", "日本語", "emoji 📚", "nbsp\u{A0}and ©", "",
    ] {
      #expect(TerminalText.visible(text) == text)
      #expect(TerminalText.controlCharacter(in: text) == nil || text.contains("\n") || text.contains("\t"))
    }
  }

  @Test func namesAreCheckedForAnyControlCharacter() {
    #expect(TerminalText.controlCharacter(in: "left") == nil)
    #expect(TerminalText.controlCharacter(in: "a\u{1B}b") == "\u{1B}")
    #expect(TerminalText.controlCharacter(in: "two\nlines") == "\n")
    #expect(TerminalText.controlCharacter(in: "x\u{202E}") == "\u{202E}")
  }
}
