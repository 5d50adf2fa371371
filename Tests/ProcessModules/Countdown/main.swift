// The countdown of Examples/countdown (countdown.py, countdown.js) on the Swift kit, for the
// tests that hold the three kits to one behaviour: `start` counts down the document's seconds,
// a timer a second that sets the next; `pause` keeps what was left to the millisecond; a
// finished countdown is saved in the document by the timer's work (`services.work`); `press`
// plays the button on the device, whose events a live source reads from a pipe.
import WorkbenchModuleKit

#if canImport(Glibc)
  import Glibc
#endif

struct CountdownDocument: DocumentBody {
  var seconds: Int
  var finished: Int
}

struct CountdownViewState: ViewStateValue {}

/// A countdown of one document in a session: where it is, and the button on its device.
@MainActor
final class Counting {
  var state = "idle"
  var left: Int?
  var since = 0
  var presses = 0
  let document: String
  let services: SessionServices
  private var tick: Cancellation?
  private var button: [Int32] = [-1, -1]

  init(document: String, services: SessionServices) {
    self.document = document
    self.services = services
    if pipe(&button) == 0 { _ = fcntl(button[0], F_SETFL, fcntl(button[0], F_GETFL) | O_NONBLOCK) }
    let readEnd = button[0]
    services.addLiveSource(
      named: "button", descriptor: { readEnd },
      read: { [document] in
        var events: [FrameValue] = []
        var bytes = [UInt8](repeating: 0, count: 64)
        while case let count = read(readEnd, &bytes, bytes.count), count > 0 {
          events += Array(repeating: ["document": .string(document)], count: count)
        }
        return events
      },
      apply: { [weak self] event in
        // The button: it pauses a running countdown and starts a paused one again.
        guard let self, event["document"]?.stringValue == self.document else { return }
        self.presses += 1
        if self.state == "running" {
          self.pause()
        } else if self.state == "paused" {
          self.run()
        }
      })
  }

  static func of(_ document: String, in services: SessionServices) -> Counting {
    services.shared(Counting.self, named: document) { Counting(document: document, services: services) }
  }

  var now: Int { Int(services.clock.now.wholeMilliseconds) }

  /// Counts on from now: the next tick is at the next whole second left (or the end).
  func run() {
    state = "running"
    since = now
    let left = self.left ?? 0
    schedule(min(left, left % 1000 == 0 ? 1000 : left % 1000))
  }

  private func schedule(_ milliseconds: Int) {
    tick?.cancel()
    tick = services.clock.schedule(after: .milliseconds(milliseconds)) { [weak self] in self?.ticked() }
  }

  private func ticked() {
    left = max(0, (left ?? 0) - (now - since))
    since = now
    if let left, left > 0 { return schedule(min(1000, left)) }
    state = "done"
    // The timer's work saves it: committed like a command's change, from the revision it had.
    guard let work = services.work, let snapshot = work.document(named: document),
      let body = snapshot.body as? CountdownDocument
    else { return }
    var finished = body
    finished.finished += 1
    try? work.commit(finished, toDocument: document, ifAt: snapshot.revision, summary: "countdown finished")
  }

  func pause() {
    left = max(0, (left ?? 0) - (now - since))
    state = "paused"
    tick?.cancel()
    tick = nil
  }

  func reset() {
    state = "idle"
    left = nil
    tick?.cancel()
    tick = nil
  }

  /// The device's side: the button pressed, as its event arrives on the pipe.
  func press() {
    var byte: UInt8 = 1
    _ = write(button[1], &byte, 1)
  }
}

/// Everything a user can do to a countdown window.
enum CountdownAction: Equatable, Sendable {
  case started, paused, reset, pressed
  /// The document's seconds are this from now on.
  case secondsChosen(Int)
}

@MainActor
final class CountdownScreen: ActionHandling, FramedScreen {
  private(set) var document: CountdownDocument
  private(set) var viewState: CountdownViewState
  let counting: Counting

  init(document: CountdownDocument, viewState: CountdownViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
    counting = Counting.of(environment.documentName ?? "", in: environment.services)
  }

  func documentReplaced(_ document: CountdownDocument) { self.document = document }
  func restore(_ viewState: CountdownViewState) { self.viewState = viewState }

  @discardableResult
  func send(_ action: CountdownAction) throws(CommandError) -> DocumentChange<CountdownDocument>? {
    switch action {
    case .started:
      if counting.state == "running" { throw CommandError("the countdown is running already (pause it, or reset it)") }
      if counting.state == "idle" || counting.state == "done" { counting.left = document.seconds * 1000 }
      counting.run()
    case .paused:
      guard counting.state == "running" else { throw CommandError("the countdown is not running") }
      counting.pause()
    case .reset:
      counting.reset()
    case .pressed:
      counting.press()
    case .secondsChosen(let seconds):
      var body = document
      body.seconds = seconds
      return DocumentChange(body, summary: "set the seconds")
    }
    return nil
  }

  var typedFrame: CountdownFrame {
    CountdownFrame(
      state: counting.state, left: counting.left ?? document.seconds * 1000, finished: document.finished,
      presses: counting.presses)
  }
}

/// What a countdown window shows.
struct CountdownFrame: FrameRecord {
  var state = "idle"
  /// Milliseconds left.
  var left = 0
  /// How many times the countdown reached zero (the document's count).
  var finished = 0
  /// How many times the device's button was pressed.
  var presses = 0

  static let fields: FrameFields<CountdownFrame> = [
    FrameField("state", \.state, "idle, running, paused or done"),
    FrameField("left", \.left, "milliseconds left"),
    FrameField("finished", \.finished, "how many times the countdown reached zero"),
    FrameField("presses", \.presses, "how many times the device's button was pressed"),
  ]
}

/// The terminal text of a countdown window.
enum CountdownRendering {
  static func text(_ frame: CountdownFrame) -> String {
    "\(frame.state): \(frame.left) ms left (finished \(frame.finished), presses \(frame.presses))"
  }
}

/// The commands, each an action on the window's model.
enum CountdownCommands {
  static let screens = ["countdown"]
  static let seconds = Argument<Int>.integer("seconds", in: 1...3600)

  static let all = [
    ScreenCommands.sending(
      "start", to: CountdownScreen.self, screens: screens, summary: "start counting down, or go on after a pause"
    ) { _, _ in .started },
    ScreenCommands.sending(
      "pause", to: CountdownScreen.self, screens: screens, summary: "stop counting, keeping what is left"
    ) { _, _ in .paused },
    ScreenCommands.sending(
      "reset", to: CountdownScreen.self, screens: screens, summary: "stop, and start again from the document's seconds"
    ) { _, _ in .reset },
    ScreenCommands.sending(
      "seconds", to: CountdownScreen.self, screens: screens, arguments: [seconds],
      summary: "set how many seconds the countdown counts"
    ) { arguments, _ in .secondsChosen(arguments[seconds]) },
    ScreenCommands.sending(
      "press", to: CountdownScreen.self, screens: screens, summary: "press the button on the device (pauses or goes on)"
    ) { _, _ in .pressed },
  ]
}

struct CountdownModule: FeatureModule {
  var manifest: ModuleManifest {
    ModuleManifest(name: "countdown", version: "1.0", summary: "a countdown on the session's clock, with a button")
  }

  @MainActor func register(into registrar: Registrar) {
    registrar.liveSource("button")
    registrar.register(
      document: CountdownDocument.self, kind: "countdown", summary: "seconds to count",
      samples: ["egg": CountdownDocument(seconds: 5, finished: 0)],
      screens: [
        .screen(CountdownScreen.self, name: "countdown", summary: "a countdown", render: CountdownRendering.text)
      ],
      commands: CountdownCommands.all)
  }
}

ModuleMain.run(CountdownModule())
