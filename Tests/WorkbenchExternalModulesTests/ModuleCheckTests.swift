import Testing
import WorkbenchTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `workbench module-check` drives a module through the protocol and says which checks pass.
struct ModuleCheckTests {
  let fixture = String(ChildProcess.workbenchPath.dropLast("workbench".count)) + "workbench-fixture-module"

  private func check(_ arguments: [String], mode: String = "ok") -> ProcessResult {
    ChildProcess.runWorkbench(["module-check", fixture] + arguments, environment: ["WORKBENCH_FIXTURE": mode])
  }

  @Test func aConformingModulePassesEveryCheck() {
    let result = check([])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    for line in [
      "✔ handshake", "✔ open tally", "✔ command poke", "✔ command label", "✔ refresh", "✔ refuses an unknown window",
      "✔ refuses an unknown request", "✔ close tally", "✔ one reply per request", "✔ shutdown",
      "✔ malformed message", "✔ facts weigh", "✔ replay weigh", "✔ replay weigh to another question",
      "✔ timers", "✔ updates", "✔ changes", "✔ windows opened", "✔ end of a session", "✔ command wall-later",
      "✔ states to record", "✔ its own process", "✔ command copy",
    ] {
      #expect(result.stdout.contains(line), "missing: \(line)\n\(result.stdout)")
    }
    #expect(result.stdout.contains("§4"))
    #expect(result.stdout.contains("`weigh kg` reported 1 fact(s), 1 with the question it answers"))
    #expect(result.stdout.contains("✔ handshake                         §3  protocol 2"))
    #expect(result.stdout.hasSuffix("25 passed, 0 failed\n"), "\(result.stdout)")
  }

  @Test(.enabled(if: !ChildProcess.isSanitized, "a trap is an exit under a sanitizer"))
  func aModuleThatCrashesOnACommandFailsItsChecks() {
    let result = check([], mode: "trap")
    #expect(result.status == 1, "\(result.stdout)")
    #expect(result.stdout.contains("✘ command poke"), "\(result.stdout)")
    #expect(result.stdout.contains("`poke`: a reply; it closed the connection (it exited or crashed)"))
  }

  @Test func aBaselineCannotGoStale() throws {
    let folder = makeTemporaryFolder()
    writeTextFile("# known failures\nrefresh\n", to: folder + "/baseline")
    let stale = check(["--baseline", folder + "/baseline"])
    #expect(stale.status == 1)
    #expect(stale.stdout.contains("in the baseline, but passes now: remove it from the baseline"), "\(stale.stdout)")
    writeTextFile("no such check\n", to: folder + "/unknown")
    let unknown = check(["--baseline", folder + "/unknown"])
    #expect(unknown.status == 1)
    #expect(unknown.stdout.contains("no such check ran"))
    let missing = ChildProcess.runWorkbench(["module-check", folder + "/nothing-here"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("is not an executable file"))
  }

  @Test func aModuleThatAnswersTwiceFails() {
    let result = check([], mode: "twice")
    #expect(result.status == 1, "\(result.stdout)")
    #expect(result.stdout.contains("✘ one reply per request"), "\(result.stdout)")
    #expect(result.stdout.contains("more came after: command"), "\(result.stdout)")
  }

  @Test(arguments: [("ok-reply", "got `ok`"), ("no-frame", "`frame` as an object"), ("bad-facts", "`facts` as a list")])
  func aReplyOfTheWrongKindFails(mode: String, message: String) {
    let result = check([], mode: mode)
    #expect(result.status == 1, "\(result.stdout)")
    #expect(result.stdout.contains("✘ command poke"), "\(result.stdout)")
    #expect(result.stdout.contains(message), "\(result.stdout)")
  }

  /// module-check ends the module's process group, as the shell's shutdown does: a child the
  /// module started does not outlive the check.
  @Test func whatTheModuleStartedEndsWithTheCheck() throws {
    let folder = makeTemporaryFolder()
    let result = ChildProcess.runWorkbench(
      ["module-check", fixture],
      environment: ["WORKBENCH_FIXTURE": "fork", "WORKBENCH_FIXTURE_PID_FILE": folder + "/pids"])
    #expect(result.status == 0, "\(result.stdout)")
    let pids = (readTextFile(folder + "/pids") ?? "").split(separator: "\n").compactMap { pid_t($0) }
    #expect(!pids.isEmpty)
    for pid in pids { #expect(processEnds(pid), "the module's child \(pid) outlived module-check") }
  }

  /// §12: a module that reports the question a fact answers but, replayed, takes an answer
  /// recorded for another question, fails; so does one whose facts are not well formed.
  @Test(arguments: [
    ("answers-any-question", "✘ replay read to another question", "but it used them"),
    ("sourceless-facts", "✘ facts read", "facts[0] with a source (text) and a value"),
  ])
  func aModuleThatMisusesFactsFails(mode: String, line: String, detail: String) {
    let folder = makeTemporaryFolder()
    let module = folder + "/scale.py"
    writeTextFile(Self.scaleModule, to: module)
    chmod(module, 0o755)
    let result = ChildProcess.runWorkbench(["module-check", module], environment: ["SCALE_MODE": mode])
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains(line), "\(result.stdout)")
    #expect(result.stdout.contains(detail), "\(result.stdout)")
    #expect(result.stdout.contains("✔ command read"), "\(result.stdout)")
  }

  /// A module in Python whose `read UNIT` asks a scale a question (the unit) and reports the
  /// reading as a fact that answers it. SCALE_MODE says how it goes wrong.
  static let scaleModule = #"""
    #!/usr/bin/env python3
    import json, os, struct, sys
    MODE = os.environ.get("SCALE_MODE", "")
    def send(message):
        body = json.dumps(message).encode()
        sys.stdout.buffer.write(struct.pack(">I", len(body)) + body)
        sys.stdout.buffer.flush()
    send({"type": "hello", "protocol": 1,
          "manifest": {"name": "scale", "version": "1.0", "summary": "a scale"},
          "documentKinds": ["scale"], "samples": [{"name": "scale", "kind": "scale", "body": "{}"}],
          "screens": [{"name": "scale", "documentKind": "scale", "summary": "a reading", "fields": ["grams"]}],
          "commands": [{"name": "read", "summary": "read the scale", "screens": ["scale"],
                        "arguments": [{"name": "unit", "kind": "choice", "extra": ["g", "oz"], "optional": True}]}]})
    while True:
        header = sys.stdin.buffer.read(4)
        if len(header) < 4:
            break
        request = json.loads(sys.stdin.buffer.read(struct.unpack(">I", header)[0]))
        kind = request.get("type")
        reply = {"type": "error", "message": "unknown request"}
        if kind in ("open", "refresh"):
            reply = {"type": "result", "frame": {"grams": 0}, "text": "0 g", "state": "{}"}
        elif kind == "close":
            reply = {"type": "ok"}
        elif kind == "command" and request.get("key", "").startswith("check"):
            unit = (request.get("line", "").split() + ["g"])[1]
            reading, facts = 500, None
            if "facts" in request:
                recorded = request["facts"].get("replay", {}).get("scale.reading", [])
                if recorded:
                    reading = recorded[0]["answer"]  # whatever question it answered
                fact = {"source": "scale.reading", "asked": {"unit": unit}, "value": reading}
                facts = [{"value": reading}] if MODE == "sourceless-facts" else [fact]
            reply = {"type": "result", "frame": {"grams": reading}, "text": f"{reading} g", "state": "{}"}
            if facts is not None:
                reply["facts"] = facts
        if "id" in request:
            reply["id"] = request["id"]
        send(reply)
    """#
}
