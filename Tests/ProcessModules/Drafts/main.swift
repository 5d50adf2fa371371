// Notes with a draft that saves itself five seconds after the last typing, on the Swift kit:
// the same module as drafts.py and drafts.js beside it. `discard` drops the draft and cancels its
// autosave; `undo view` brings both back, the autosave due when it was (the host puts back the
// timers of the step it undoes, §18). The kits' tests hold the three to the same frames.
import WorkbenchModuleKit

struct Note: DocumentBody { var text = "" }

struct Draft: ViewStateValue {
  var draft = ""
  /// When the pending autosave is due, in milliseconds of session time; `nil` when none waits.
  var autosave: Int?
}

@MainActor
final class NoteScreen: ScreenModel {
  private(set) var document: Note
  private(set) var viewState: Draft
  private let clock: any SessionTime
  private let work: (any SessionWork)?
  private let documentName: String
  /// The autosave's handle, kept once cancelled: an undo may put the timer back, and this
  /// handle cancels it again.
  private var autosave: Cancellation?
  /// When the autosave this screen last set is due (a timer an undo puts back is due when it was).
  private var autosaveDue: Int?

  init(document: Note, viewState: Draft, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
    clock = environment.services.clock
    work = environment.services.work
    documentName = environment.documentName ?? ""
    // A window is its document and view state: one opened on a draft whose autosave waits sets
    // it again, due when the view state says.
    if let due = viewState.autosave { setAutosave(after: Self.delay(until: due, now: clock.now)) }
  }

  func windowClosed() { autosave?.cancel() }

  func documentReplaced(_ document: Note) { self.document = document }
  /// Given a view state back (`undo view`, a relaunch): the autosave it says waits, set if none
  /// does (an undo put back the one `discard` cancelled: its handle waits again), and none when
  /// it says none.
  func restore(_ viewState: Draft) {
    self.viewState = viewState
    if let due = viewState.autosave {
      if autosave?.isCancelled != false || autosaveDue != due {
        autosave?.cancel()
        setAutosave(after: Self.delay(until: due, now: clock.now))
      }
    } else {
      autosave?.cancel()
    }
  }
  var frame: FrameValue {
    [
      "text": .string(document.text), "draft": .string(viewState.draft),
      "autosave": viewState.autosave.map { .integer($0) } ?? .null,
    ]
  }
  static var frameFields: [String]? { ["text", "draft", "autosave"] }

  func type(_ words: String) {
    viewState.draft += words
    autosave?.cancel()
    setAutosave(after: .seconds(5))
    viewState.autosave = autosaveDue
  }

  /// How long until `due`, within the five seconds an autosave waits at most (a relaunched
  /// session's clock starts again at zero).
  static func delay(until due: Int, now: Duration) -> Duration {
    min(.seconds(5), max(.zero, .milliseconds(due) - now))
  }

  private func setAutosave(after delay: Duration) {
    let due = clock.now + delay
    autosaveDue = Int(due.components.seconds) * 1000 + Int(due.components.attoseconds / 1_000_000_000_000_000)
    autosave = clock.schedule(after: delay) { [weak self] in self?.save() }
  }

  func discard() {
    viewState.draft = ""
    viewState.autosave = nil
    autosave?.cancel()
  }

  private func save() {
    guard let work else { return }
    let revision = work.document(named: documentName)?.revision ?? 0
    try? work.commit(
      Note(text: document.text + viewState.draft), toDocument: documentName, ifAt: revision, summary: "autosave")
    viewState.draft = ""
    viewState.autosave = nil
  }
}

struct DraftsModule: FeatureModule {
  static let words = Argument<String>.rest("words")

  var manifest: ModuleManifest { ModuleManifest(name: "drafts", version: "1.0", summary: "notes with an autosave") }

  @MainActor func register(into registrar: Registrar) {
    registrar.documentKind(Note.self, name: "note", summary: "a note", samples: ["memo": Note()])
    registrar.screen(NoteScreen.self, name: "note", documentKind: "note", summary: "a note and its draft") { frame in
      "\(frame["text"]?.stringValue ?? "") | draft: \(frame["draft"]?.stringValue ?? "")"
    }
    registrar.command(
      CommandSpec("type", arguments: [Self.words], summary: "type into the draft", scope: .window(screens: ["note"])) {
        context in
        try context.model(NoteScreen.self).type(context.arguments[Self.words])
        return .frame(try context.requireWindow().id)
      })
    registrar.command(
      CommandSpec("discard", summary: "drop the draft and its autosave", scope: .window(screens: ["note"])) { context in
        try context.model(NoteScreen.self).discard()
        return .frame(try context.requireWindow().id)
      })
  }
}

ModuleMain.run(DraftsModule())
