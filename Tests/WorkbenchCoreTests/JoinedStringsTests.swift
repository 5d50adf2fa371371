import Testing
import WorkbenchCore
import WorkbenchModuleAPI

/// The workbench's `joined(separator:)` for arrays of strings gives what the standard library's
/// generic one gives.
@Suite struct JoinedStringsTests {
  /// The standard library's version, reached through the generic protocol.
  static func standard(_ strings: some BidirectionalCollection<String>, _ separator: String) -> String {
    strings.joined(separator: separator)
  }

  @Test func joiningGivesWhatTheStandardLibraryGives() {
    let cases: [[String]] = [[], [""], ["a"], ["a", "b"], ["", "", ""], ["é", "🐘", "line\nbreak"], ["x", "", "y"]]
    for strings in cases {
      for separator in ["", ", ", "\n", "→"] {
        #expect(strings.joined(separator: separator) == Self.standard(strings, separator), "\(strings) \(separator)")
      }
      #expect(strings.joined() == Self.standard(strings, ""))
    }
    #expect(["a", "b", "c"].joined(separator: ", ") == "a, b, c")
  }
}
