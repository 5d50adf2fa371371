import BuiltInModules
import Testing
import WorkbenchCore
import WorkbenchLanguageServer
import WorkbenchModuleAPI
import WorkbenchScenarioFormat
import WorkbenchScenarioModel
import WorkbenchScenarios
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// "Explore this file's screens", the code action: `workbench explore` from the editor, on the
/// screens the open file's scenarios use. A failure is written next to the file as a new
/// scenario (never over one that is there) and shown on the file, linked to it.
@MainActor
struct LanguageServerExploreTests {
  /// A server over `modules` with `text` open as `path`.
  private func server(
    _ modules: [any FeatureModule], runs: LanguageServerRuns = .inProcess, path: String, text: String
  ) throws -> (LanguageServer, Sent) {
    try openServer(modules, runs: runs, uri: .string(ScenarioURI.of(path)), text: text)
  }

  private func actions(_ server: LanguageServer, _ sent: Sent, path: String, line: Int) -> [FrameValue] {
    send(
      server,
      [
        "jsonrpc": "2.0", "id": 5, "method": "textDocument/codeAction",
        "params": [
          "textDocument": ["uri": .string(ScenarioURI.of(path))],
          "range": [
            "start": ["line": .integer(line), "character": 0], "end": ["line": .integer(line), "character": 0],
          ],
          "context": [:],
        ],
      ])
    return sent.reply(to: 5)?["result"]?.elements ?? []
  }

  private func explore(_ server: LanguageServer, id: Int, path: String) {
    send(
      server,
      [
        "jsonrpc": "2.0", "id": .integer(id), "method": "workspace/executeCommand",
        "params": ["command": "workbench.explore", "arguments": [.string(ScenarioURI.of(path)), 0]],
      ])
  }

  /// On the catalog's scenarios: offered on every line (after "Run to this step" on a step),
  /// and a sound module gives nothing, writes nothing.
  @Test func aSoundModuleIsExploredFromTheEditorAndNothingIsWritten() throws {
    let folder = makeTemporaryFolder()
    let path = folder + "/shelf.yaml"
    let (server, sent) = try server(
      builtInModules, path: path,
      text: "scenario: Shelf\nwindows:\n  left: catalog library\nsteps:\n  - left: select 2\n")
    let onTheName = actions(server, sent, path: path, line: 0)
    #expect(onTheName.map { $0["command"]?["command"] } == ["workbench.explore"], "\(onTheName)")
    #expect(
      onTheName.first?["title"]?.stringValue
        == "Explore this file's screens (workbench explore: 100 random sessions, seed 1)")
    let onAStep = actions(server, sent, path: path, line: 4)
    #expect(onAStep.map { $0["command"]?["command"] } == ["workbench.runTo", "workbench.explore"], "\(onAStep)")
    explore(server, id: 6, path: path)
    #expect(
      sent.reply(to: 6)?["result"] == "✔ explored 100 sessions (3000 steps) on catalog: nothing found",
      "\(sent.reply(to: 6) ?? .null)")
    #expect(sent.diagnostics.isEmpty, "\(sent.diagnostics)")
    #expect(readTextFile(folder + "/explore-failure.yaml") == nil)
  }

  /// A module whose refusal changes its document: found, shrunk, written next to the file (in
  /// a folder whose name needs escaping in a URI), shown on the file and linked; explored again,
  /// the first file stays and a second is written.
  @Test func aFailureIsWrittenNextToTheFileAndShownOnIt() throws {
    let folder = makeTemporaryFolder() + "/my scenarios"
    let path = folder + "/counter.yaml"
    let text = "scenario: Counting\nwindows:\n  c: counter tally\nsteps:\n  - c: bump\n"
    #expect(mkdir(folder, 0o755) == 0)
    writeTextFile(text, to: path)
    let (server, sent) = try server([LeakyRefusal()], path: path, text: text)
    explore(server, id: 6, path: path)
    let result = sent.reply(to: 6)?["result"]?.stringValue ?? ""
    let written = folder + "/explore-failure.yaml"
    #expect(
      result.hasPrefix("✘ explore found that a refused command changes nothing does not hold: shrunk to ")
        && result.hasSuffix("wrote \(written)"), "\(result)")
    let warning = try #require(sent.diagnostics.first, "\(sent.messages.suffix(2))")
    #expect(warning["severity"] == .integer(2))
    #expect(warning["range"]?["start"]?["line"] == .integer(0))
    #expect(warning["source"] == "workbench explore")
    #expect(warning["message"]?.stringValue?.contains("bump` was refused (the count stops at 3)") == true, "\(warning)")
    #expect(
      warning["relatedInformation"]?.elements?.first?["location"]?["uri"]
        == .string(ScenarioURI.of(folder + "/explore-failure.yaml")),
      "\(warning)")
    // What was written fails under the runner, as `workbench run` would run it.
    let scenario = try #require(readTextFile(written))
    let loader = try ScenarioLoader(modules: [LeakyRefusal()])
    let file = try loader.load(bytes: Array(scenario.utf8), path: written)
    let results = file.scenarios.map { ScenarioRunner(modules: [LeakyRefusal()]).run($0) }
    #expect(results.first?.failure?.message.contains("the frames do not match") == true, "\(scenario)")
    // Again: the file there is someone's now; a second one is written beside it.
    explore(server, id: 7, path: path)
    #expect(sent.reply(to: 7)?["result"]?.stringValue?.hasSuffix("wrote \(folder)/explore-failure-2.yaml") == true)
    #expect(readTextFile(written) == scenario)
    // A file the editor has not saved has no folder: nothing is written, and the answer says so.
    send(
      server,
      [
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": ["textDocument": ["uri": "untitled:1", "languageId": "yaml", "version": 1, "text": .string(text)]],
      ])
    send(
      server,
      [
        "jsonrpc": "2.0", "id": 9, "method": "workspace/executeCommand",
        "params": ["command": "workbench.explore", "arguments": ["untitled:1", 0]],
      ])
    #expect(
      sent.reply(to: 9)?["result"]?.stringValue?.hasSuffix(
        "was not written: untitled:1 is not a file in a folder: save it, or run `workbench explore` in a terminal")
        == true, "\(sent.reply(to: 9) ?? .null)")
  }

  /// Runs in workers are bounded: as many at once as the machine has processors (at most 8),
  /// the rest wait their turn in order (the client is told), and past 16 waiting one more is
  /// refused with an error that says so. Each waiting one starts as another ends; cancelling a
  /// waiting one answers it. (Before, every request started a worker: 40 on two cores.)
  @Test func runWorkersAreBoundedAndTheRestWaitTheirTurn() throws {
    let home = makeTemporaryFolder()
    let workers = LanguageServerRuns.workers([
      "/usr/bin/env", "XDG_DATA_HOME=\(home)/data", "XDG_STATE_HOME=\(home)/state", ChildProcess.workbenchPath, "lsp",
      "--run-worker",
    ])
    let text = "scenario: Shelf\nwindows:\n  c: catalog library\nsteps:\n  - c: select 1\n"
    let (server, sent) = try server(builtInModules, runs: workers, path: home + "/file-0.yaml", text: text)
    let most = LanguageServer.maximumRunWorkers
    let asked = most + LanguageServer.maximumQueuedRuns + 1
    for index in 0..<asked {
      let path = home + "/file-\(index).yaml"
      if index > 0 {
        send(
          server,
          [
            "jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": [
              "textDocument": [
                "uri": .string(ScenarioURI.of(path)), "languageId": "yaml", "version": 1, "text": .string(text),
              ]
            ],
          ])
      }
      explore(server, id: 100 + index, path: path)
      #expect(server.runWorkerIDs.count <= most)
    }
    #expect(server.runWorkerIDs.count == most)
    let told = sent.messages.filter { $0["method"] == "window/showMessage" }
    #expect(told.count == LanguageServer.maximumQueuedRuns, "\(told)")
    #expect(told.first?["params"]?["message"]?.stringValue?.contains("starts when one ends (1 waiting)") == true)
    let refused = sent.reply(to: 100 + asked - 1)?["error"]?["message"]?.stringValue ?? ""
    #expect(refused.contains("waiting (the most the server keeps): wait for one to end, or cancel one"), "\(refused)")
    // A waiting one cancelled is answered as cancelled, and never starts.
    send(server, ["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": .integer(100 + most)]])
    #expect(sent.reply(to: 100 + most)?["error"]?["code"] == .integer(-32800))
    // All but one of the others waiting are cancelled too; that one starts as a run ends.
    for index in (most + 2)..<(asked - 1) {
      send(server, ["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": .integer(100 + index)]])
    }
    #expect(server.waitForRuns(timeout: 600_000))
    for index in Array(0..<most) + [most + 1] {
      let answer = sent.reply(to: 100 + index)?["result"]?.stringValue ?? ""
      #expect(answer.hasPrefix("✔ explored 100 sessions"), "\(index): \(answer)")
    }
  }

  /// A URI whose path holds a NUL (`%00`) or escaped bytes that are not UTF-8 names no file:
  /// the action is refused with an error, and nothing is written anywhere.
  @Test(arguments: ["bad%00name", "bad%FFname"])
  func aURIThatNamesNoPathIsRefused(name: String) throws {
    let folder = makeTemporaryFolder()
    let uri = "file://" + folder + "/" + name + "/shelf.yaml"
    let sent = Sent()
    let server = try LanguageServer(modules: builtInModules) { sent.messages.append($0) }
    send(server, ["jsonrpc": "2.0", "id": 1, "method": "initialize", "params": ["capabilities": [:]]])
    send(
      server,
      [
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": [
          "textDocument": [
            "uri": .string(uri), "languageId": "yaml", "version": 1,
            "text": "scenario: Shelf\nwindows:\n  c: catalog library\nsteps:\n  - c: select 1\n",
          ]
        ],
      ])
    send(
      server,
      [
        "jsonrpc": "2.0", "id": 7, "method": "workspace/executeCommand",
        "params": ["command": "workbench.explore", "arguments": [.string(uri), 0]],
      ])
    let message = sent.reply(to: 7)?["error"]?["message"]?.stringValue ?? ""
    #expect(message.contains(name.contains("%00") ? "NUL byte" : "not UTF-8"), "\(sent.messages)")
    #expect(readTextFile(folder + "/bad/shelf.yaml") == nil && readTextFile(folder + "/explore-failure.yaml") == nil)
  }

  /// In a worker, as `workbench lsp` runs it, on the screen of an external module the worker
  /// loads: every session runs, the progress counts sessions, and the answer says what ran.
  @Test func anExplorationInAWorkerCountsSessions() throws {
    let home = makeTemporaryFolder()
    let path = home + "/tally.yaml"
    let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"
    let workers = LanguageServerRuns.workers([
      "/usr/bin/env", "XDG_DATA_HOME=\(home)/data", "XDG_STATE_HOME=\(home)/state", "WORKBENCH_FIXTURE=wall-once",
      ChildProcess.workbenchPath, "lsp", "--run-worker", "-m", fixture,
    ])
    let (server, sent) = try server(
      builtInModules, runs: workers, path: path,
      text: "scenario: Tally\nwindows:\n  t: tally pokes\nsteps:\n  - t: poke\n")
    send(
      server,
      [
        "jsonrpc": "2.0", "id": 8, "method": "workspace/executeCommand",
        "params": [
          "command": "workbench.explore", "arguments": [.string(ScenarioURI.of(path)), 0], "workDoneToken": "t",
        ],
      ])
    #expect(server.waitForRuns(timeout: 120_000))
    let result = sent.reply(to: 8)?["result"]?.stringValue ?? ""
    #expect(result == "✔ explored 100 sessions (3000 steps) on tally: nothing found", "\(result)")
    let progress = sent.messages.filter { $0["method"] == "$/progress" }.compactMap { $0["params"]?["value"] }
    #expect(progress.first?["title"] == "workbench explore", "\(progress)")
    // The last session is always reported (a percentage of 100 is not held back).
    let reports = progress.filter { $0["kind"] == "report" }
    #expect(reports.last?["message"]?.stringValue?.hasPrefix("session 100 of 100: 3000 steps, ") == true, "\(progress)")
    #expect(progress.last?["kind"] == "end", "\(progress)")
    #expect(readTextFile(home + "/explore-failure.yaml") == nil)
  }
}

/// `file://` URIs as an editor sends them (a space is `%20`).
enum ScenarioURI {
  static func of(_ path: String) -> String {
    "file://" + path.split(separator: " ", omittingEmptySubsequences: false).joined(separator: "%20")
  }
}

/// A count whose `bump` refuses past 3, after setting the count back: a refusal that changes
/// the document.
private struct LeakyRefusal: FeatureModule {
  struct Count: DocumentBody { var value: Int }
  struct View: ViewStateValue {}

  @MainActor final class Screen: ScreenModel {
    var document: Count
    init(document: Count, viewState: View, environment: ScreenEnvironment) { self.document = document }
    func documentReplaced(_ document: Count) { self.document = document }
    func restore(_ viewState: View) {}
    var viewState: View { View() }
    var frame: FrameValue { ["value": .integer(document.value)] }
  }

  var manifest: ModuleManifest { ModuleManifest(name: "leaky", version: "1.0", summary: "a count") }

  @MainActor func register(into registrar: Registrar) {
    registrar.documentKind(Count.self, name: "count", summary: "a number", samples: ["tally": Count(value: 0)])
    registrar.screen(Screen.self, name: "counter", documentKind: "count", summary: "the count")
    registrar.command(
      CommandSpec("bump", summary: "one more", scope: .window(screens: ["counter"])) { context in
        let screen = try context.model(Screen.self)
        guard screen.document.value < 3 else {
          try context.commit(Count(value: 0), summary: "reset")
          throw CommandError("the count stops at 3")
        }
        try context.commit(Count(value: screen.document.value + 1), summary: "bump")
        return .frame(try context.requireWindow().id)
      })
  }
}
