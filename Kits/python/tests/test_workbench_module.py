"""The kit's own tests: requests as the host sends them (docs/protocol.md), answered through
`Module.handle`, and what the module sends unasked read from its sink.

    python3 -B -m unittest discover -s Kits/python/tests
"""

import io
import json
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import workbench_module as wb  # noqa: E402


def make_module():
    module = wb.Module("tally", "1.0", "a tally for the kit's tests")
    module._protocol = 2
    module._sink = io.BytesIO()
    module.document_kind("tally", samples={"tally": {"count": 0}})

    @module.screen("tally", kind="tally", fields=["count", "searched", "wall"])
    class Tally(wb.Screen):
        def frame(self):
            wall = self.window.session.service("wall", lambda: {"on": 0})
            return {"count": self.window.document["count"], "searched": self.window.state.get("searched"),
                    "wall": wall["on"]}

        def text(self, frame):
            module.drawn.append(self.window.key)
            return super().text(frame)

        def unsaved(self):
            draft = self.window.state.get("draft")
            return None if draft is None else f"a draft of {draft}"

        def save(self):
            # Writes the draft, then refuses one it cannot keep: the write must not stay.
            self.window.document = {"count": self.window.document["count"] + self.window.state["draft"]}
            if self.window.state["draft"] > 5:
                raise wb.Refused("a draft over 5 cannot be saved")
            del self.window.state["draft"]

        def discard(self):
            # A careless module that writes as it drops the draft: a discard commits nothing.
            self.window.document = {"count": -1}
            self.window.state.pop("draft", None)

        def closed(self):
            self.window.document = {"count": -2}  # nor does a close

    @module.command("search", screens=["tally"], arguments=[wb.rest("text")])
    def search(window, text):
        # Debounced: the search runs 100 ms after the last keystroke.
        def run():
            window.state["searched"] = text
        window.session.clock.schedule(100, run, id="debounce")

    @module.command("add", screens=["tally"], arguments=[wb.integer("n", 1, 10, optional=True), wb.word("note", optional=True)])
    def add(window, n, note):
        return f"n={n!r} note={note!r}"

    @module.command("save later", screens=["tally"])
    def save_later(window):
        def save():
            window.document = {"count": window.document["count"] + 1}
        window.session.clock.schedule(500, save)

    @module.command("copy", screens=["tally"], arguments=[wb.window("source")])
    def copy(window, source):
        # The window argument is the module's own window, or None for another module's.
        return "none" if source is None else f"{source.key}={source.document['count']}"

    @module.command("bump", screens=["tally"])
    def bump(window):
        window.document = {"count": window.document["count"] + 1}

    module.held = []  # windows a test changes between requests, as a module's own thread would
    module.drawn = []  # the windows whose text was drawn, in order

    @module.command("hold", screens=["tally"])
    def hold(window):
        module.held.append(window)

    @module.command("spoil", screens=["tally"])
    def spoil(window):
        # Changes everything a command can, then refuses.
        window.document = {"count": 99}
        window.state["searched"] = "spoilt"
        window.session.clock.schedule(10, lambda: None, id="debounce")
        raise wb.Refused("not today")

    @module.command("draft", screens=["tally"], arguments=[wb.integer("n", 1, 10)])
    def draft(window, n):
        window.state["draft"] = n

    @module.command("wreck")
    def wreck(window, session):
        # Run with no window (§16): changes every window's document and view state, then refuses.
        for shown in session.windows.values():
            shown.document = {"count": 77}
            shown.state["searched"] = "wrecked"
        raise wb.Refused("wrecked nothing")

    @module.command("fail later", screens=["tally"])
    def fail_later(window):
        def fail():
            window.document = {"count": 55}
            window.state["searched"] = "failed"
            raise RuntimeError("the timer's work failed")
        window.session.clock.schedule(100, fail)

    @module.live_source("wall")
    def wall(session, event):
        session.service("wall", lambda: {"on": 0})["on"] += event["switches"]
        if event.get("break"):
            for shown in session.windows.values():
                shown.document = {"count": 33}
            raise wb.Refused("the wall broke")

    return module


def unasked(module):
    """The messages the module sent unasked, in order."""
    data, messages = module._sink.getvalue(), []
    while data:
        length = struct.unpack(">I", data[:4])[0]
        messages.append(json.loads(data[4:4 + length]))
        data = data[4 + length:]
    module._sink.seek(0)
    module._sink.truncate()
    return messages


OPEN = {"type": "open", "key": "w1", "screen": "tally", "document": "tally", "kind": "tally", "revision": 1,
        "state": None, "body": '{"count": 0}', "session": 1, "now": 0}


def command(line, now, **arguments):
    return {"type": "command", "key": "w1", "screen": "tally", "document": "tally", "kind": "tally",
            "revision": 1, "state": "{}", "line": line, "arguments": arguments, "session": 1, "now": now}


class TheDateIsTheHosts(unittest.TestCase):
    def test_the_clock_reads_the_date_the_request_carries_and_keeps_its_origin(self):
        module = make_module()
        module.handle(dict(OPEN, date=1_765_100_000_000))
        clock = module._session(1).clock
        self.assertEqual(clock.date, 1_765_100_000_000)
        module.handle(dict(command("search r", 2500, text="r"), date=1_765_100_002_500))
        self.assertEqual(clock.date, 1_765_100_002_500)
        # A request without a date (a host of before 2.6) keeps the origin it had.
        module.handle(command("search s", 4000, text="s"))
        self.assertEqual(clock.date, 1_765_100_004_000)
        self.assertEqual(clock.datetime().isoformat(), "2025-12-07T09:33:24+00:00")

    def test_without_a_date_the_clock_starts_on_the_scenarios_default(self):
        module = make_module()
        module.handle(OPEN)
        self.assertEqual(module._session(1).clock.date, 1_767_225_600_000)


class TimeIsTheHosts(unittest.TestCase):
    def test_a_timer_counts_from_the_time_the_request_carries(self):
        module = make_module()
        module.handle(OPEN)
        reply = module.handle(command("search r", 2500, text="r"))
        self.assertEqual(reply["timers"], [{"id": "debounce", "at": 2600}])

    def test_a_timer_due_at_the_requests_time_waits_for_the_host(self):
        # Due at 1100: a command at 1100 does not run it (the host's clock has not moved past
        # it, and a built-in's timer would wait too); the host's `timer` request at 1100 does,
        # and a request after 1100 runs one the host has not fired yet.
        module = make_module()
        module.handle(OPEN)
        module.handle(command("search r", 1000, text="r"))
        reply = module.handle(command("add 1", 1100, n=1))
        self.assertIsNone(reply["frame"]["searched"])
        done = module.handle({"type": "timer", "timer": "debounce", "session": 1, "now": 1100})
        self.assertEqual([update["frame"]["searched"] for update in done["updates"]], ["r"])
        module.handle(command("search s", 2000, text="s"))
        later = module.handle(command("add 1", 2101, n=1))
        self.assertEqual(later["frame"]["searched"], "s")

    def test_a_timer_set_again_later_is_reported_again_for_its_new_time(self):
        # Typed 100 ms after the previous keystroke, with no timer due between: the debounce
        # moves to 100 ms after the second one, and the host is told so.
        module = make_module()
        module.handle(OPEN)
        module.handle(command("search r", 1000, text="r"))
        reply = module.handle(command("search re", 1099, text="re"))
        self.assertEqual(reply["timers"], [{"id": "debounce", "at": 1199}])
        done = module.handle({"type": "timer", "timer": "debounce", "session": 1, "now": 1199})
        self.assertEqual(done["type"], "ok")
        [update] = done["updates"]  # the window the timer's work changed
        self.assertEqual((update["key"], update["frame"]["searched"]), ("w1", "re"))

    def test_a_timer_the_host_names_before_its_time_runs_then(self):
        # Catching up (§14): a window opened again in a settled session finishes at once the work
        # the one it replaces had finished; the host names the timer before its time, the kit runs
        # it with the clock where it is, and says in its hello that it does.
        module = make_module()
        self.assertTrue(module._hello()["catchUp"])
        module.handle(OPEN)
        module.handle(command("search r", 1000, text="r"))
        early = module.handle({"type": "timer", "timer": "debounce", "session": 1, "now": 1000})
        self.assertEqual([update["frame"]["searched"] for update in early["updates"]], ["r"])
        self.assertEqual(module.handle(command("add 1", 1000, n=1))["frame"]["searched"], "r")
        self.assertIsNone(module._sessions[1].clock.due("debounce"))


class OtherWindows(unittest.TestCase):
    def test_another_window_is_drawn_only_when_its_frame_changed(self):
        module = make_module()
        module.handle(OPEN)
        second = module.handle({key: value for key, value in OPEN.items() if key != "body"} | {"key": "w2"})
        self.assertEqual(second["type"], "result")
        module.drawn.clear()
        reply = module.handle(command("add 1", 10, n=1))  # w2 shows what it showed
        self.assertNotIn("updates", reply)
        self.assertEqual(module.drawn, ["w1"])
        module.drawn.clear()
        reply = module.handle(command("bump", 20))  # the document both show changed
        self.assertEqual([update["key"] for update in reply["updates"]], ["w2"])
        self.assertEqual(json.loads(reply["updates"][0]["text"]), reply["updates"][0]["frame"])
        self.assertEqual(sorted(module.drawn), ["w1", "w2"])


class Refusals(unittest.TestCase):
    def test_a_refused_command_leaves_the_window_document_and_timers_as_they_were(self):
        module = make_module()
        module.handle(OPEN)
        module.handle(command("search r", 1000, text="r"))  # a debounce pending at 1100
        refused = module.handle(command("spoil", 1010))
        self.assertEqual(refused["type"], "error")
        self.assertEqual(refused["message"], "not today")
        again = module.handle(dict(command("add", 1020)))
        self.assertEqual(again["frame"]["count"], 0)
        self.assertIsNone(again["frame"]["searched"])
        self.assertIsNone(again["commit"])
        self.assertNotIn("timers", again)  # the debounce is still the one at 1100, reported before
        session = module._sessions[1]
        self.assertEqual(session.clock.due("debounce"), 1100)


    def test_a_refused_save_changes_nothing_and_a_close_after_it_commits_nothing(self):
        # Before, the kit kept what the refused save wrote and sent it as `commits` in its answer
        # to the `close` of `close W discard`: the host stored the draft the user discarded.
        module = make_module()
        module.handle(OPEN)
        self.assertEqual(module.handle(command("draft 9", 10, n=9))["unsaved"], "a draft of 9")
        refused = module.handle({"type": "leave", "key": "w1", "choice": "save", "session": 1, "now": 20})
        self.assertEqual((refused["type"], refused["message"]), ("error", "a draft over 5 cannot be saved"))
        session = module._sessions[1]
        self.assertEqual((session._documents["tally"], session.windows["w1"].state), ({"count": 0}, {"draft": 9}))
        discarded = module.handle({"type": "leave", "key": "w1", "choice": "discard", "session": 1, "now": 30})
        self.assertEqual((discarded["commit"], discarded["frame"]["count"]), (None, 0))
        self.assertNotIn("unsaved", discarded)
        closed = module.handle({"type": "close", "key": "w1", "session": 1, "now": 40})
        self.assertEqual(closed, {"type": "ok"})
        self.assertEqual(session._documents["tally"], {"count": 0})

    def test_a_save_commits_what_it_saved(self):
        module = make_module()
        module.handle(OPEN)
        module.handle(command("draft 4", 10, n=4))
        saved = module.handle({"type": "leave", "key": "w1", "choice": "save", "session": 1, "now": 20})
        self.assertEqual((saved["type"], saved["commit"]), ("result", '{"count": 4}'))
        self.assertNotIn("unsaved", saved)

    def test_a_refused_command_with_no_window_changes_nothing(self):
        # Before, what it changed stayed in the kit, and the next `ok` committed it.
        module = make_module()
        module.handle(OPEN)
        refused = module.handle({"type": "command", "command": "wreck", "line": "wreck", "arguments": {},
                                 "session": 1, "now": 10})
        self.assertEqual((refused["type"], refused["message"]), ("error", "wrecked nothing"))
        later = module.handle({"type": "timer", "timer": "none", "session": 1, "now": 20})
        self.assertNotIn("commits", later)
        self.assertNotIn("updates", later)
        self.assertEqual(module._sessions[1].windows["w1"].state, {})

    def test_a_timers_work_that_fails_is_put_back(self):
        module = make_module()
        module.handle(OPEN)
        module.handle(command("fail later", 0))
        done = module.handle({"type": "timer", "timer": "t1", "session": 1, "now": 100})
        self.assertEqual(done["type"], "ok")
        self.assertNotIn("commits", done)
        self.assertNotIn("updates", done)

    def test_a_live_event_that_is_refused_is_put_back(self):
        module = make_module()
        module.handle(OPEN)
        refused = module.handle({"type": "live", "events": [{"source": "wall", "value": {"switches": 1, "break": True}}],
                                 "session": 1, "now": 10})
        self.assertEqual(refused["type"], "error")
        later = module.handle({"type": "timer", "timer": "none", "session": 1, "now": 20})
        self.assertNotIn("commits", later)


class Commands(unittest.TestCase):
    def test_arguments_come_bound_by_name_and_a_left_out_one_is_none(self):
        module = make_module()
        module.handle(OPEN)
        self.assertEqual(module.handle(command("add 3", 0, n=3))["output"], "n=3 note=None")
        self.assertEqual(module.handle(command('add 2 "a b"', 0, n=2, note="a b"))["output"], "n=2 note='a b'")

    def test_a_subcommand_is_chosen_by_its_words(self):
        module = make_module()
        module.handle(OPEN)
        self.assertEqual(module.handle(command("save later", 0))["type"], "result")
        self.assertEqual(module.handle(command("nope", 0))["type"], "error")

    def test_a_command_is_found_by_its_spec_path(self):
        # Protocol 2 gives the spec's path, name by name; it wins over the full name and the line.
        module = make_module()
        module.handle(OPEN)
        by_path = dict(command("shown only", 0, n=4), path=["add"], command="nope")
        self.assertEqual(module.handle(by_path)["output"], "n=4 note=None")
        self.assertEqual(module.handle(dict(command("add 1", 0), path=["save", "later"]))["type"], "result")
        unknown = module.handle(dict(command("add 1", 0), path=["save", "never"]))
        self.assertEqual((unknown["type"], unknown["message"]), ("error", "unknown command 'save never'"))

    def test_a_window_argument_is_the_modules_window_under_the_key_the_host_gives(self):
        module = make_module()
        module.handle(OPEN)
        module.handle(dict(OPEN, key="w2", body='{"count": 5}'))
        mine = dict(command("copy left", 0, source=7), path=["copy"], windows={"source": "w2"})
        self.assertEqual(module.handle(mine)["output"], "w2=5")
        # A window of another module's has no key here.
        other = dict(command("copy right", 0, source=9), path=["copy"])
        self.assertEqual(module.handle(other)["output"], "none")
        self.assertIn({"name": "source", "kind": "window", "extra": None, "optional": False, "help": ""},
                      [a for c in module._hello()["commands"] for a in c["arguments"]])

    def test_a_command_the_host_names_is_found_by_its_name_not_the_line(self):
        # Protocol 2 names the command; the line is then only for showing.
        module = make_module()
        module.handle(OPEN)
        named = dict(command("shown only", 0, n=4), command="add")
        self.assertEqual(module.handle(named)["output"], "n=4 note=None")
        self.assertEqual(module.handle(dict(command("add 1", 0), command="save later"))["type"], "result")
        unknown = module.handle(dict(command("add 1", 0, n=1), command="nope"))
        self.assertEqual((unknown["type"], unknown["message"]), ("error", "unknown command 'nope'"))
        self.assertEqual(module.handle(dict(command("add 1", 0, n=1), command=3))["type"], "error")


class TimersWork(unittest.TestCase):
    def test_a_timers_change_to_the_document_is_committed_from_the_revision_it_had(self):
        module = make_module()
        module.handle(OPEN)
        module.handle(command("save later", 0))
        reply = module.handle({"type": "timer", "timer": "t1", "session": 1, "now": 500})
        self.assertEqual(reply["commits"], [{"document": "tally", "revision": 1, "body": '{"count": 1}'}])


    def test_a_commands_change_is_committed_once_not_again_by_the_next_timers_work(self):
        module = make_module()
        module.handle(OPEN)
        self.assertEqual(module.handle(command("bump", 0))["commit"], '{"count": 1}')
        module.handle(command("save later", 0))
        reply = module.handle({"type": "timer", "timer": "none", "session": 1, "now": 100})
        self.assertNotIn("commits", reply)
        reply = module.handle({"type": "timer", "timer": "t1", "session": 1, "now": 500})
        self.assertEqual(reply["commits"], [{"document": "tally", "revision": 1, "body": '{"count": 2}'}])

    def test_a_document_changed_between_requests_is_committed_by_the_next_ones_work(self):
        module = make_module()
        module.handle(OPEN)
        module.handle(command("hold", 0))
        module.held[0].document["count"] = 5  # in place, outside any request
        reply = module.handle({"type": "timer", "timer": "none", "session": 1, "now": 100})
        self.assertEqual(reply["commits"], [{"document": "tally", "revision": 1, "body": '{"count": 5}'}])
        reply = module.handle({"type": "timer", "timer": "none", "session": 1, "now": 200})
        self.assertNotIn("commits", reply)


class LiveSources(unittest.TestCase):
    def test_an_event_is_sent_and_applied_when_the_host_hands_it_back(self):
        module = make_module()
        module.handle(OPEN)
        self.assertTrue(module._hello()["liveSources"])
        session = module._sessions[1]
        session.live("wall", {"switches": 2})
        [change] = unasked(module)
        self.assertEqual(change["event"], {"source": "wall", "value": {"switches": 2}})
        self.assertEqual(change["updates"], [])  # not applied yet: the host says when
        self.assertEqual(session.windows["w1"].screen.frame()["wall"], 0)
        reply = module.handle({"type": "live", "session": 1, "now": 40, "events": [change["event"]]})
        self.assertEqual(reply["updates"][0]["frame"]["wall"], 2)
        self.assertEqual(session.clock.now, 40)  # applied at the time the host took it in

    def test_an_event_seen_during_a_request_goes_out_after_its_reply(self):
        module = make_module()
        module.handle(OPEN)
        module._answering = {"type": "command"}
        module._sessions[1].live("wall", {"switches": 1})
        self.assertEqual(unasked(module), [])  # not inside the reply
        module._answering = None
        module._send_live_events()
        self.assertEqual(len(unasked(module)), 1)

    def test_a_replay_hands_the_recorded_events_back_and_ignores_the_sources_own(self):
        module = make_module()
        replay_open = dict(OPEN, facts={"replay": {}})
        module.handle(replay_open)
        module._sessions[1].live("wall", {"switches": 5})  # the device, during the replay: ignored
        self.assertEqual(unasked(module), [])
        reply = module.handle({"type": "live", "session": 1, "now": 10,
                               "events": [{"source": "wall", "value": {"switches": 1}}]})
        self.assertEqual(reply["type"], "ok")
        self.assertEqual(module._sessions[1].windows["w1"].screen.frame()["wall"], 1)

    def test_sync_is_answered_after_every_change_went_out(self):
        module = make_module()
        module.handle(OPEN)
        self.assertEqual(module.handle({"type": "sync", "session": 1, "now": 0, "id": 7}),
                         {"type": "ok", "id": 7})


if __name__ == "__main__":
    unittest.main()


class ScreensSayWhatTheirFieldsAre(unittest.TestCase):
    def test_refusal_and_own_fields_are_declared_in_hello_and_left_out_when_not_given(self):
        module = make_module()

        @module.screen("feed", kind="tally", fields=["rows", "message"], refusal=["message"], own=["rows"])
        class Feed(wb.Screen):
            def frame(self):
                return {"rows": [], "message": None}

        screens = {screen["name"]: screen for screen in module._hello()["screens"]}
        self.assertEqual(screens["feed"]["refusalFields"], ["message"])
        self.assertEqual(screens["feed"]["ownFields"], ["rows"])
        self.assertNotIn("refusalFields", screens["tally"])
        self.assertNotIn("ownFields", screens["tally"])

    def test_the_fields_of_a_frames_records_are_declared_in_hello_to_any_depth(self):
        module = make_module()

        @module.screen("feed", kind="tally", fields=["rows"],
                       records={"rows": {"id": "the row's id", "owner": ("who has it", {"name": "their name"})}})
        class Feed(wb.Screen):
            def frame(self):
                return {"rows": []}

        screens = {screen["name"]: screen for screen in module._hello()["screens"]}
        self.assertEqual(screens["feed"]["recordFields"], [{"name": "rows", "fields": [
            {"name": "id", "summary": "the row's id"},
            {"name": "owner", "summary": "who has it", "fields": [{"name": "name", "summary": "their name"}]}]}])
        self.assertNotIn("recordFields", screens["tally"])

    def test_a_record_given_without_a_meaning_is_declared_without_one(self):
        module = make_module()

        @module.screen("feed", kind="tally", fields=["rows"],
                       records={"rows": {"owner": {"name": "their name"}, "shelf": (None, {"n": "its number"})}})
        class Feed(wb.Screen):
            def frame(self):
                return {"rows": []}

        screens = {screen["name"]: screen for screen in module._hello()["screens"]}
        self.assertEqual(screens["feed"]["recordFields"], [{"name": "rows", "fields": [
            {"name": "owner", "fields": [{"name": "name", "summary": "their name"}]},
            {"name": "shelf", "fields": [{"name": "n", "summary": "its number"}]}]}])


# Whole messages a kit cannot take as a request (what module-check's "malformed message" stage
# sends): each gets an error, and the module goes on to answer the next.
SHAPES = [
    b"{nope", b"null", b"42", b"[]", b"[" * 100_000 + b"]" * 100_000,
    json.dumps(dict(command("add", 0), session=[1])).encode(),
    json.dumps(dict(OPEN, facts="text")).encode(),
    json.dumps(dict(command("add", 0), arguments=[1])).encode(),
]

MODULE = """
import sys
sys.path.insert(0, {kit!r})
import workbench_module as wb
module = wb.Module("tally", "1.0", "a tally")
module.document_kind("tally", samples={{"tally": {{"count": 0}}}})
@module.screen("tally", kind="tally", fields=["count"])
class Tally(wb.Screen):
    def frame(self):
        return {{"count": self.window.document["count"]}}
sys.exit(module.run())
"""


class AnyMessage(unittest.TestCase):
    def test_a_request_of_any_shape_is_answered_with_an_error_and_the_module_goes_on(self):
        for shape in SHAPES:
            with self.subTest(shape=shape[:40]):
                self.assertEqual(self._replies([shape, json.dumps(OPEN).encode()])[0]["type"], "error")

    def test_after_every_shape_the_module_still_opens_a_window(self):
        replies = self._replies(SHAPES + [json.dumps(OPEN).encode()])
        self.assertEqual([reply["type"] for reply in replies], ["error"] * len(SHAPES) + ["result"])
        self.assertEqual(replies[-1]["frame"], {"count": 0})

    def test_handle_refuses_what_is_not_a_request_by_saying_what(self):
        module = make_module()
        self.assertEqual(module.handle(None)["message"],
                         "the module could not read the request: expected a JSON object, got null")
        self.assertEqual(module.handle(dict(OPEN, facts="text", id=4)),
                         {"type": "error", "message": "the module could not read the request: `facts` is text",
                          "id": 4})

    def _replies(self, bodies):
        import subprocess
        kit = os.path.join(os.path.dirname(__file__), "..")
        stdin = b"".join(struct.pack(">I", len(body)) + body for body in bodies)
        done = subprocess.run([sys.executable, "-c", MODULE.format(kit=os.path.abspath(kit))], input=stdin,
                              capture_output=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr.decode(errors="replace"))
        data, messages = done.stdout, []
        while data:
            length = struct.unpack(">I", data[:4])[0]
            messages.append(json.loads(data[4:4 + length]))
            data = data[4 + length:]
        return messages[1:]  # after the hello
