import Testing
import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchTestSupport

@testable import WorkbenchStore

/// What a user typed is data: a query holding the words of the store's secret marker is stored
/// as it was typed (it made saving the whole session fail, and after `quit keep` every window
/// was gone). A real secret in one window's view state costs that window its place, never the
/// others'.
@MainActor
struct SessionSecretsTests {
  let path = makeTemporaryFolder() + "/workspace.db"

  static func window(_ number: Int, state: String) -> SessionRecord.Window {
    SessionRecord.Window(
      number: number, name: "w\(number)", screen: "catalog", document: "library",
      viewState: ViewStateRecord(version: 1, state: state))
  }

  @Test func textThatLooksLikeTheMarkerIsData() {
    let typed = [
      #"{"query":"workbench:secret:not-storable"}"#,
      #"{"query":"\\u0001workbench:secret:not-storable\\u0001"}"#,
      #"{"query":"\\\\u0001workbench:secret:not-storable\\\\u0001"}"#,
    ]
    for text in typed { #expect(!Secrets.containsSecret(text), "\(text)") }
    let encoded = FrameValue.object(FrameObject(["token": .string(Secrets.marker)])).jsonText
    #expect(Secrets.containsSecret(encoded), "\(encoded)")
    #expect(
      Secrets.containsSecret(
        #"{"a":"\\\u0001workbench:secret:not-storable\u0001"}"#.replacing("\u{1}", with: #"\u0001"#)))
    #expect(Secrets.containsSecret("raw \u{1}workbench:secret:not-storable\u{1}"))
  }

  @Test func aSecretInOneWindowLeavesTheOthersSaved() throws {
    let store = try WorkspaceStore(path: path)
    let secret = FrameValue.object(FrameObject(["token": .string(Secrets.marker)])).jsonText
    let record = SessionRecord(
      documents: [],
      windows: [
        Self.window(1, state: #"{"query":"workbench:secret:not-storable"}"#), Self.window(2, state: secret),
        Self.window(3, state: "{}"),
      ], focusedWindow: 3, nextWindowNumber: 4)
    #expect(throws: StoreError.self) { try store.saveSession(record) }
    let loaded = try store.loadSession(includingWindows: true, includingBodies: false)
    #expect(loaded.windows.map(\.number) == [1, 3])
    #expect(loaded.windows.first?.viewState.state == #"{"query":"workbench:secret:not-storable"}"#)
    // Saved again with window 2 as it was before: the secret costs it only its new state.
    var earlier = record
    earlier.windows[1].viewState.state = #"{"query":"before"}"#
    try store.saveSession(earlier)
    #expect(throws: StoreError.self) { try store.saveSession(record) }
    let again = try store.loadSession(includingWindows: true, includingBodies: false)
    #expect(again.windows.map(\.number) == [1, 2, 3])
    #expect(again.windows[1].viewState.state == #"{"query":"before"}"#)
  }
}
