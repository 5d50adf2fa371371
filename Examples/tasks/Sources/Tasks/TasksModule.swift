// A shared to-do list, written the one way docs/writing-a-module.md shows: a document of shared
// facts, a view state of one window's choices, a screen model that takes actions
// (`ActionHandling`) and projects a typed frame (`FramedScreen`), and commands made from
// actions (`ScreenCommands.sending`).
import WorkbenchModuleKit

/// One thing to do.
public struct TaskItem: Codable, Equatable, Sendable {
  public var id: Int
  public var text: String
  public var done: Bool

  public init(id: Int, text: String, done: Bool = false) {
    self.id = id
    self.text = text
    self.done = done
  }
}

/// A shared list of tasks. Texts are not empty and ids are unique.
public struct TaskList: DocumentBody {
  public private(set) var items: [TaskItem]

  public init(items: [TaskItem]) throws(CommandError) {
    var ids = Set<Int>()
    for (index, item) in items.enumerated() {
      guard ids.insert(item.id).inserted else {
        throw CommandError("items[\(index)]: the id \(item.id) is used twice; give each task an id of its own")
      }
      guard !item.text.allSatisfy(\.isWhitespace) else { throw CommandError("items[\(index)]: the text is empty") }
    }
    self.items = items
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(items: try container.decode([TaskItem].self, forKey: .items))
  }

  /// The sample every session starts with.
  static let todo = TaskList(unchecked: [TaskItem(id: 1, text: "Water the plants")])

  private init(unchecked items: [TaskItem]) { self.items = items }
  private enum CodingKeys: String, CodingKey { case items }
}

/// Which tasks a window shows.
public enum TaskFilter: String, Codable, CaseIterable, Sendable { case all, open, done }

/// A window's own choice of filter.
public struct TasksViewState: ViewStateValue {
  public var filter: TaskFilter = .all
  public init() {}
}

/// Everything a user can do to a tasks window.
public enum TasksAction: Equatable, Sendable {
  /// A task with this text was added.
  case added(String)
  /// The task with this id was done.
  case finished(Int)
  /// The window shows these tasks from now on.
  case filtered(TaskFilter)
}

/// A task as a window shows it.
public struct TaskRow: FrameRecord {
  public var id = 0
  public var text = ""
  public var done = false
  public init() {}

  public static let fields: FrameFields<TaskRow> = [
    FrameField("id", \.id, "the task's id, what `done` takes"),
    FrameField("text", \.text, "what is to be done"),
    FrameField("done", \.done, "whether it is done"),
  ]
}

/// What a tasks window shows.
public struct TasksFrame: FrameRecord {
  public var filter = TaskFilter.all.rawValue
  public var open = 0
  public var items: [TaskRow] = []
  public init() {}

  public static let fields: FrameFields<TasksFrame> = [
    FrameField("filter", \.filter, "which tasks this window shows: all, open or done"),
    FrameField("open", \.open, "how many tasks of the list are not done, whatever the filter"),
    FrameField("items", \.items, "the tasks shown"),
  ]
}

@MainActor
public final class TasksScreen: ActionHandling, FramedScreen {
  public private(set) var document: TaskList
  public private(set) var viewState: TasksViewState

  public init(document: TaskList, viewState: TasksViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
  }

  public func documentReplaced(_ document: TaskList) { self.document = document }
  public func restore(_ viewState: TasksViewState) { self.viewState = viewState }

  @discardableResult
  public func send(_ action: TasksAction) throws(CommandError) -> DocumentChange<TaskList>? {
    switch action {
    case .added(let text):
      // Ids come from the document, so `Int.max` there is refused rather than overflowing.
      let (id, overflow) = (document.items.map(\.id).max() ?? 0).addingReportingOverflow(1)
      guard !overflow else { throw CommandError("no id is left after \(Int.max): renumber the list") }
      return DocumentChange(try TaskList(items: document.items + [TaskItem(id: id, text: text)]), summary: "add a task")
    case .finished(let id):
      var items = document.items
      guard let index = items.firstIndex(where: { $0.id == id }) else {
        throw CommandError("no task \(id) (tasks: \(items.map { String($0.id) }.joined(separator: ", ")))")
      }
      items[index].done = true
      return DocumentChange(try TaskList(items: items), summary: "finish a task")
    case .filtered(let filter):
      viewState.filter = filter
      return nil
    }
  }

  public var typedFrame: TasksFrame {
    var frame = TasksFrame()
    frame.filter = viewState.filter.rawValue
    frame.open = document.items.filter { !$0.done }.count
    let shown = document.items.filter { item in
      switch viewState.filter {
      case .all: true
      case .open: !item.done
      case .done: item.done
      }
    }
    for item in shown {
      var row = TaskRow()
      row.id = item.id
      row.text = item.text
      row.done = item.done
      frame.items.append(row)
    }
    return frame
  }
}

/// The terminal text of a tasks window.
enum TasksRendering {
  static func text(_ frame: TasksFrame) -> String {
    let lines = frame.items.map { "  \($0.done ? "[x]" : "[ ]") \($0.id)  \($0.text)" }
    return (["\(frame.open) open · showing \(frame.filter)"] + lines).joined(separator: "\n")
  }
}

/// The commands, and the keys their handlers read their arguments by.
enum TasksCommands {
  static let screens = ["tasks"]
  static let text = Argument<String>.rest("text", help: "what is to be done")
  static let id = Argument<Int>.integer("id", help: "the task's id")
  static let which = Argument<TaskFilter>.choice("which", help: "all, open or done")

  static let all = [add, done, filter]

  static let add = ScreenCommands.sending(
    "add", to: TasksScreen.self, screens: screens, arguments: [text], summary: "Add a task"
  ) { arguments, _ in .added(arguments[text]) }

  static let done = ScreenCommands.sending(
    "done", to: TasksScreen.self, screens: screens, arguments: [id], summary: "Mark a task done"
  ) { arguments, _ in .finished(arguments[id]) }

  static let filter = ScreenCommands.sending(
    "filter", to: TasksScreen.self, screens: screens, arguments: [which],
    summary: "Show all, open or done tasks in this window"
  ) { arguments, _ in .filtered(arguments[which]) }
}

public struct TasksModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "tasks", version: "1.0.0", summary: "A shared to-do list, as an external module")
  }

  @MainActor public func register(into registrar: Registrar) {
    registrar.register(
      document: TaskList.self, kind: "tasks", summary: "things to do", samples: ["todo": .todo],
      screens: [.screen(TasksScreen.self, name: "tasks", summary: "a to-do list", render: TasksRendering.text)],
      commands: TasksCommands.all)
  }
}
