/// A window's view state at one moment, compared by the state's own equality (not encoded):
/// whether a command moved it.
package struct ViewStateSnapshot: Equatable {
  package let value: Any
  package let matches: (Any) -> Bool

  package static func == (lhs: ViewStateSnapshot, rhs: ViewStateSnapshot) -> Bool { lhs.matches(rhs.value) }
}

/// What a command did to the timers of its window (the host's `TimerChanges`), kept with the
/// view-history step it made: undone and redone with it, around the screen's `restore` (which
/// it runs), unless the screen sets its timers from the view state itself.
@MainActor
package protocol StepTimers: AnyObject {
  func undo(restoring restore: () -> Void)
  func redo(restoring restore: () -> Void)
}

/// A window's screen model behind a non-generic face, with the window's view-state history.
@MainActor
package protocol WindowContent: AnyObject {
  var model: AnyObject { get }
  /// The model's unsaved work (see `ScreenModel.unsavedWork`).
  var unsavedWork: (any UnsavedWork)? { get }
  var frame: FrameValue { get }
  /// The screen's frame stamp (see `ScreenModel.frameStamp`).
  var frameStamp: Int? { get }
  /// The frame projected now, never the kept one (for tests of the stamps).
  var projectedFrame: FrameValue { get }
  /// The view state as JSON with sorted keys, for `state` and persistence.
  func viewStateJSON() throws -> String
  /// The view state as a versioned record.
  func viewStateRecord() throws -> ViewStateRecord
  /// Restores a stored view state; returns why it could not, leaving the default in place.
  func restoreViewState(from record: ViewStateRecord) -> String?
  func documentReplaced(_ document: any DocumentBody)
  func documentRevisionChanged(_ revision: Int)
  func windowClosed()
  /// Remembers the view state before a command so `finishCommand` can record a change.
  func beginCommand()
  /// Records the view state as an undoable step if the command changed it, with what the
  /// command did to the window's timers; whether it recorded one.
  @discardableResult
  func finishCommand(recordViewChange: Bool, timers: (any StepTimers)?) -> Bool
  /// Throws away a command's view-state change (the command failed).
  func abandonCommand()
  func undoViewState() -> Bool
  func redoViewState() -> Bool
  var canUndoViewState: Bool { get }
  var canRedoViewState: Bool { get }
  /// The view state as it is now, to compare with another taken later (no encoding).
  var viewStateSnapshot: ViewStateSnapshot { get }
  /// Takes the view-state history of the content this one replaces (a window opened again in
  /// place keeps the host's history of it).
  func takeHistory(from other: any WindowContent)
}

@MainActor
package final class ScreenBox<Model: ScreenModel>: WindowContent {
  package let typedModel: Model
  private var pending: Model.State?
  /// A view-history step: the state on the other side, and what the step did to timers.
  private typealias Step = (state: Model.State, timers: (any StepTimers)?)
  private var undoStack: [Step] = []
  private var redoStack: [Step] = []
  package var viewStateSnapshot: ViewStateSnapshot {
    let state = typedModel.viewState
    return ViewStateSnapshot(value: state) { ($0 as? Model.State) == state }
  }
  /// How many view-state steps each window keeps.
  package static var historyLimit: Int { 200 }

  package init(model: Model) {
    self.typedModel = model
  }

  package var model: AnyObject { typedModel }
  package var unsavedWork: (any UnsavedWork)? { typedModel.unsavedWork }
  /// The last frame and the stamp it was projected at.
  private var kept: (stamp: Int, frame: FrameValue)?

  package var frame: FrameValue {
    guard let stamp = typedModel.frameStamp else { return typedModel.frame }
    if let kept, kept.stamp == stamp { return kept.frame }
    let frame = typedModel.frame
    kept = (stamp, frame)
    return frame
  }
  package var frameStamp: Int? { typedModel.frameStamp }
  package var projectedFrame: FrameValue { typedModel.frame }
  /// The view state last encoded and its JSON: a view state equal to it (by its own `==`,
  /// which undo trusts too) is not encoded again.
  private var encoded: (state: Model.State, json: String)?

  package func viewStateJSON() throws -> String {
    let state = typedModel.viewState
    if let encoded, encoded.state == state { return encoded.json }
    let json = try FrameValueEncoder(sortsKeys: true).json(state)
    encoded = (state, json)
    return json
  }

  package func viewStateRecord() throws -> ViewStateRecord {
    ViewStateRecord(version: Model.State.version, state: try viewStateJSON())
  }

  package func restoreViewState(from record: ViewStateRecord) -> String? {
    guard record.version <= Model.State.version else {
      return "its view state was written by a newer version (\(record.version) > \(Model.State.version))"
    }
    do {
      var value = try FrameValueDecoder().decode(FrameValue.self, fromJSON: Array(record.state.utf8))
      if record.version < Model.State.version {
        for version in record.version..<Model.State.version {
          guard let migrated = Model.State.migrate(value, from: version) else {
            return "its view state is version \(record.version), and there is no way from version \(version) "
              + "to \(version + 1)"
          }
          value = migrated
        }
      }
      let state = try FrameValueDecoder().decode(Model.State.self, from: value)
      typedModel.restore(state)
      return nil
    } catch let error as DecodingError {
      return "its view state is unreadable (\(DecodingErrorText.describe(error)))"
    } catch {
      return "its view state is unreadable (\(error))"
    }
  }

  package func documentReplaced(_ document: any DocumentBody) {
    guard let document = document as? Model.Document else { return }
    typedModel.documentReplaced(document)
  }

  package func documentRevisionChanged(_ revision: Int) {
    typedModel.documentRevisionChanged(revision)
  }

  package func windowClosed() {
    typedModel.windowClosed()
  }

  package func beginCommand() { pending = typedModel.viewState }

  @discardableResult
  package func finishCommand(recordViewChange: Bool, timers: (any StepTimers)?) -> Bool {
    defer { pending = nil }
    guard recordViewChange, let before = pending, before != typedModel.viewState else { return false }
    undoStack.append((before, timers))
    if undoStack.count > Self.historyLimit { undoStack.removeFirst() }
    redoStack.removeAll()
    return true
  }

  package func abandonCommand() {
    if let before = pending, before != typedModel.viewState {
      typedModel.restore(typedModel.viewStateAfterFailure(before: before, attempted: typedModel.viewState))
    }
    pending = nil
  }

  package func undoViewState() -> Bool { step(from: &undoStack, onto: &redoStack, undoing: true) }

  package func redoViewState() -> Bool { step(from: &redoStack, onto: &undoStack, undoing: false) }

  /// Takes the last step of one history, keeps the state it leaves on the other, and restores
  /// the step's state with what it did to the window's timers.
  private func step(
    from history: inout [Step], onto other: inout [Step], undoing: Bool
  ) -> Bool {
    guard let step = history.popLast() else { return false }
    other.append((typedModel.viewState, step.timers))
    let model = typedModel
    guard let timers = step.timers else {
      model.restore(step.state)
      return true
    }
    if undoing {
      timers.undo { model.restore(step.state) }
    } else {
      timers.redo { model.restore(step.state) }
    }
    return true
  }

  package var canUndoViewState: Bool { !undoStack.isEmpty }

  package func takeHistory(from other: any WindowContent) {
    guard let other = other as? ScreenBox<Model> else { return }
    // The states, not the timers: those of the model replaced went with it, and the new model's
    // are its own.
    undoStack = other.undoStack.map { ($0.state, nil) }
    redoStack = other.redoStack.map { ($0.state, nil) }
  }
  package var canRedoViewState: Bool { !redoStack.isEmpty }
}
