import WorkbenchModuleKit

/// One thing to do.
public struct TaskItem: Codable, Equatable, Sendable {
  public var id: Int
  public var text: String
  public var done: Bool
}

/// A shared list of tasks. Texts are not empty and ids are unique.
public struct TaskList: DocumentBody {
  public var items: [TaskItem]

  public init(items: [TaskItem]) throws(CommandError) {
    var ids = Set<Int>()
    for (index, item) in items.enumerated() {
      guard ids.insert(item.id).inserted else { throw CommandError("items[\(index)]: the id \(item.id) is used twice") }
      guard !item.text.allSatisfy(\.isWhitespace) else { throw CommandError("items[\(index)]: the text is empty") }
    }
    self.items = items
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    try self.init(items: try container.decode([TaskItem].self, forKey: .items))
  }

  private enum CodingKeys: String, CodingKey { case items }
}

/// Which tasks a window shows.
public enum TaskFilter: String, Codable, CaseIterable, Sendable { case all, open, done }

/// A window's own choice of filter.
public struct TasksViewState: ViewStateValue {
  public var filter: TaskFilter = .all
  public init() {}
}

@MainActor
public final class TasksScreen: ScreenModel {
  public private(set) var document: TaskList
  public private(set) var viewState: TasksViewState

  public init(document: TaskList, viewState: TasksViewState, environment: ScreenEnvironment) {
    self.document = document
    self.viewState = viewState
  }

  public func documentReplaced(_ document: TaskList) { self.document = document }
  public func restore(_ viewState: TasksViewState) { self.viewState = viewState }
  func show(_ filter: TaskFilter) { viewState.filter = filter }

  public var frame: FrameValue {
    let shown = document.items.filter { item in
      switch viewState.filter {
      case .all: true
      case .open: !item.done
      case .done: item.done
      }
    }
    return [
      "filter": .string(viewState.filter.rawValue),
      "open": .integer(document.items.filter { !$0.done }.count),
      "items": .list(shown.map { ["id": .integer($0.id), "text": .string($0.text), "done": .bool($0.done)] }),
    ]
  }

  /// The frame's fields: scenarios expecting another one are refused before they run.
  public static var frameFields: [String]? { ["filter", "open", "items"] }
}

/// The tasks commands' arguments, read back by these keys.
enum TaskArguments {
  static let text = Argument<String>.rest("text")
  static let id = Argument<Int>.integer("id")
  static let which = Argument<TaskFilter>.choice("which")
}

public struct TasksModule: FeatureModule {
  public init() {}

  public var manifest: ModuleManifest {
    ModuleManifest(name: "tasks", version: "1.0.0", summary: "A shared to-do list, as an external module")
  }

  @MainActor public func register(into registrar: Registrar) {
    let sample = (try? TaskList(items: [TaskItem(id: 1, text: "Water the plants", done: false)])) ?? nil
    registrar.documentKind(
      TaskList.self, name: "tasks", summary: "things to do", samples: sample.map { ["todo": $0] } ?? [:])
    registrar.screen(TasksScreen.self, name: "tasks", documentKind: "tasks", summary: "a to-do list") { frame in
      let items = frame["items"]?.elements ?? []
      let lines = items.map { item in
        "  \(item["done"]?.boolValue == true ? "[x]" : "[ ]") \(item["id"]?.integerValue ?? 0)  \(item["text"]?.stringValue ?? "")"
      }
      return (["\(frame["open"]?.integerValue ?? 0) open · showing \(frame["filter"]?.stringValue ?? "")"] + lines)
        .joined(separator: "\n")
    }
    registrar.command(
      CommandSpec(
        "add", arguments: [TaskArguments.text], summary: "Add a task", scope: .window(screens: ["tasks"])
      ) {
        context in
        let screen = try context.model(TasksScreen.self)
        let id = (screen.document.items.map(\.id).max() ?? 0) + 1
        let item = TaskItem(id: id, text: context.arguments[TaskArguments.text], done: false)
        try context.commit(try TaskList(items: screen.document.items + [item]), summary: "add a task")
        return .frame(try context.requireWindow().id)
      })
    registrar.command(
      CommandSpec(
        "done", arguments: [TaskArguments.id], summary: "Mark a task done",
        scope: .window(screens: ["tasks"])
      ) {
        context in
        let screen = try context.model(TasksScreen.self)
        let id = context.arguments[TaskArguments.id]
        guard let index = screen.document.items.firstIndex(where: { $0.id == id }) else {
          throw CommandError("no task \(id)")
        }
        var items = screen.document.items
        items[index].done = true
        try context.commit(try TaskList(items: items), summary: "finish a task")
        return .frame(try context.requireWindow().id)
      })
    registrar.command(
      CommandSpec(
        "filter", arguments: [TaskArguments.which],
        summary: "Show all, open or done tasks in this window", scope: .window(screens: ["tasks"])
      ) { context in
        try context.model(TasksScreen.self).show(context.arguments[TaskArguments.which])
        return .frame(try context.requireWindow().id)
      })
  }
}
