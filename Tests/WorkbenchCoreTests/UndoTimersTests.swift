import Testing
import WorkbenchCore
import WorkbenchModuleAPI

/// An undo (and redo) in a window's view history puts back what the command it takes back did
/// to the timers its window started: a draft's autosave cancelled by `discard` waits again after
/// `undo view`, due when it was, and the handle its screen kept cancels it again.
@MainActor
struct UndoTimersTests {
  /// Notes with a draft that saves itself five seconds after the last typing.
  struct Drafts: FeatureModule {
    struct Note: DocumentBody { var text = "" }
    struct Draft: ViewStateValue {
      var draft = ""
      /// When the pending autosave is due, in milliseconds of session time.
      var autosave: Int?
    }
    static let words = Argument<String>.rest("words")

    final class Screen: ScreenModel {
      private(set) var document: Note
      private(set) var viewState: Draft
      let clock: any SessionTime
      let work: (any SessionWork)?
      let documentName: String
      /// The autosave's handle, kept once cancelled: an undo may put the timer back.
      var autosave: Cancellation?

      init(document: Note, viewState: Draft, environment: ScreenEnvironment) {
        self.document = document
        self.viewState = viewState
        self.clock = environment.services.clock
        self.work = environment.services.work
        self.documentName = environment.documentName ?? ""
      }
      func documentReplaced(_ document: Note) { self.document = document }
      func restore(_ viewState: Draft) { self.viewState = viewState }
      var frame: FrameValue {
        [
          "text": .string(document.text), "draft": .string(viewState.draft),
          "autosave": viewState.autosave.map { .integer($0) } ?? .null,
        ]
      }

      func type(_ words: String) {
        viewState.draft += words
        autosave?.cancel()
        let delay = Duration.seconds(5)
        viewState.autosave = Int((clock.now + delay).components.seconds * 1000)
        autosave = clock.schedule(after: delay) { [weak self] in self?.save() }
      }

      func discard() {
        viewState.draft = ""
        viewState.autosave = nil
        autosave?.cancel()
      }

      func save() {
        guard let work else { return }
        let saved = Note(text: document.text + viewState.draft)
        let revision = work.document(named: documentName)?.revision ?? 0
        try? work.commit(saved, toDocument: documentName, ifAt: revision, summary: "autosave")
        viewState.draft = ""
        viewState.autosave = nil
      }
    }

    var manifest: ModuleManifest { ModuleManifest(name: "drafts", version: "1", summary: "notes with an autosave") }

    func register(into registrar: Registrar) {
      registrar.documentKind(Note.self, name: "note", summary: "a note", samples: ["memo": Note()])
      registrar.screen(Screen.self, name: "note", documentKind: "note", summary: "a note and its draft")
      registrar.command(
        CommandSpec("type", arguments: [Self.words], summary: "type into the draft", scope: .window(screens: ["note"]))
        {
          context in
          try context.model(Screen.self).type(context.arguments[Self.words])
          return .frame(try context.requireWindow().id)
        })
      registrar.command(
        CommandSpec("discard", summary: "drop the draft", scope: .window(screens: ["note"])) { context in
          try context.model(Screen.self).discard()
          return .frame(try context.requireWindow().id)
        })
    }
  }

  func host() throws -> Host {
    let host = try Host(modules: [Drafts()], clock: .virtual)
    _ = try host.run(line: "open note memo n")
    return host
  }

  func frame(_ host: Host, _ window: String = "n") -> FrameValue? { host.window(named: window)?.frame }

  @Test func undoingADiscardPutsItsAutosaveBackDueWhenItWas() throws {
    let host = try host()
    _ = try host.run(line: "type a")
    _ = try host.run(line: "clock advance 1s")
    _ = try host.run(line: "discard")
    #expect(host.clock.pendingTimers == 0)
    _ = try host.run(line: "undo view")
    #expect(frame(host)?["draft"] == "a")
    #expect(host.clock.untilNextTimer == .seconds(4))
    // Redo takes it away again; undo puts it back once more.
    _ = try host.run(line: "redo view")
    #expect(host.clock.pendingTimers == 0)
    _ = try host.run(line: "undo view")
    #expect(host.clock.untilNextTimer == .seconds(4))
    _ = try host.run(line: "clock advance 4s")
    #expect(frame(host)?["text"] == "a")
    #expect(frame(host)?["draft"] == "")
  }

  @Test func theHandleItsScreenKeptCancelsTheTimerPutBack() throws {
    let host = try host()
    _ = try host.run(line: "type a; discard; undo view; discard")
    #expect(host.clock.pendingTimers == 0)
    _ = try host.run(line: "clock advance 10s")
    #expect(frame(host)?["text"] == "")
  }

  @Test func undoingATypeTakesAwayTheAutosaveItSet() throws {
    let host = try host()
    _ = try host.run(line: "type a; clock advance 2s; type b")
    #expect(host.clock.untilNextTimer == .seconds(5))
    // `type b` replaced the autosave: its undo puts back the one `type a` set.
    _ = try host.run(line: "undo view")
    #expect(host.clock.pendingTimers == 1)
    #expect(host.clock.untilNextTimer == .seconds(3))
    _ = try host.run(line: "undo view")
    #expect(host.clock.pendingTimers == 0)
    _ = try host.run(line: "redo view; redo view")
    #expect(host.clock.untilNextTimer == .seconds(5))
    _ = try host.run(line: "clock advance 5s")
    #expect(frame(host)?["text"] == "ab")
  }

  /// Only the window's own timers: an undo in one window leaves another's autosave as it is.
  @Test func anotherWindowsTimersStayAsTheyAre() throws {
    let host = try host()
    _ = try host.run(line: "open note memo m; @n type a; @m type b; @m discard")
    #expect(host.clock.pendingTimers == 1)
    _ = try host.run(line: "@n undo view")
    #expect(host.clock.pendingTimers == 0)
    _ = try host.run(line: "@m undo view")
    #expect(host.clock.pendingTimers == 1)
    _ = try host.run(line: "clock advance 5s")
    #expect(frame(host, "m")?["draft"] == "")
    #expect(frame(host, "m")?["text"] == "b")
  }
}
