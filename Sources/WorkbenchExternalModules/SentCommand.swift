import WorkbenchCore
import WorkbenchModuleAPI
import WorkbenchModuleProtocol

/// A command as a module process is sent it (§5): its spec's path, its arguments as the host bound
/// them, the keys of the module's own windows that window arguments name, and its text as the
/// line, for showing and for a protocol 1 module. Made from the bound command the host runs, so
/// nothing is read from text on either side.
struct SentCommand {
  /// The spec's path as the module registered it (`["network", "fail"]`).
  let path: [String]
  /// The arguments by name: a number as a number, text as text, a window as its number.
  let arguments: FrameValue
  /// Each window argument naming one of the module's windows: that window's key.
  let windows: FrameValue?
  /// The command as text, the one way the host writes one.
  let line: String

  /// The command `context` runs, at `path`, with the arguments `specs` declares; `process` is
  /// the module's, whose windows have keys.
  @MainActor init(path: [String], specs: [ArgumentSpec], context: CommandContext, process: ModuleProcess?) {
    self.path = path
    line = context.bound?.text ?? path.joined(separator: " ")
    var members: [(key: String, value: FrameValue)] = []
    var keys: [(key: String, value: FrameValue)] = []
    for argument in specs {
      switch context.arguments.value(named: argument.name) {
      case .integer(let number)?: members.append((argument.name, .integer(number)))
      case .text(let text)?: members.append((argument.name, .string(text)))
      case .window(let id)?:
        members.append((argument.name, .integer(id.number)))
        let model = context.host.window(id)?.model(as: ProxyScreen.self)
        if let model, let process, model.process === process { keys.append((argument.name, .string(model.key))) }
      case nil: continue
      }
    }
    arguments = .object(FrameObject(members: members))
    windows = keys.isEmpty ? nil : .object(FrameObject(members: keys))
  }

  /// The command's full name (`network fail`).
  var name: String { path.joined(separator: " ") }

  /// Fills what protocol 2 adds to a `command` request: the name, the path and the windows' keys.
  func describe(_ request: inout CommandRequest, version: Int) {
    guard version >= 2 else { return }
    request.command = name
    request.path = path
    request.windows = windows
  }
}
