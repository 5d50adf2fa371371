"""The workbench module kit for Python: the standard library only, one file.

A module declares its document kinds, screens, commands and live sources; the kit speaks the
protocol (docs/protocol.md): the framing, the handshake and its version, windows, documents and
commits, the session's clock (the host's time in every request, timers), updates of other
windows, sessions, live changes, and the facts a recording keeps and a replay gives back. A
module never writes any of that by hand.

    import workbench_module as wb

    module = wb.Module("kettle", "1.0", "a kettle that boils on the session clock")
    module.document_kind("kettle", samples={"kettle": {"litres": 1}})

    @module.screen("kettle", kind="kettle", fields=["state", "boils"])
    class Kettle(wb.Screen):
        def frame(self):
            return {"state": "cold", "boils": 0}

    @module.command("boil", screens=["kettle"], arguments=[wb.integer("ms", 0, 86400000)])
    def boil(window, ms):
        window.session.clock.schedule(ms, lambda: ...)

    module.run()
"""

import contextlib
import inspect
import json
import os
import struct
import sys
import threading
import traceback

__version__ = "2.7.0"

__all__ = [
    "Module", "Screen", "Window", "Session", "Refused", "integer", "word", "rest", "choice", "window", "did_you_mean",
]


# The two ways the kit writes JSON, each made once: `json.dumps` with arguments builds an encoder
# at every call, which costs a timer's round trip about a microsecond a message.
_canonical = json.JSONEncoder(sort_keys=True).encode  # a document or view state, compared as text
_compact = json.JSONEncoder(separators=(",", ":")).encode  # a message on the wire


class Refused(Exception):
    """A request or command the module refuses: the host shows the message (protocol §7)."""


# Arguments of a command, as the handshake declares them (§3). The host checks a line against
# them before the module sees it; the kit turns the words into Python values.

def integer(name, low=None, high=None, optional=False, help=""):
    extra = [low, high] if low is not None and high is not None else None
    return {"name": name, "kind": "integer", "extra": extra, "optional": optional, "help": help}


def word(name, optional=False, help=""):
    return {"name": name, "kind": "word", "extra": None, "optional": optional, "help": help}


def rest(name, optional=False, help=""):
    return {"name": name, "kind": "rest", "extra": None, "optional": optional, "help": help}


def choice(name, words, optional=False, help=""):
    return {"name": name, "kind": "choice", "extra": list(words), "optional": optional, "help": help}


def window(name, optional=False, help=""):
    """An argument naming an open window (protocol 2): the handler is given that window when it is
    one of this module's, and None when it shows another module's screen."""
    return {"name": name, "kind": "window", "extra": None, "optional": optional, "help": help}


def did_you_mean(word, candidates):
    """`. Did you mean 'x'?` for the candidate closest to a mistyped `word`, or "" when none is
    close: the host's rule (edit distance growing with the word's length, or a prefix)."""
    lowered, best = word.lower(), None
    for candidate in candidates:
        distance = _edit_distance(lowered, candidate.lower())
        if best is None or distance < best[1]:
            best = (candidate, distance)
    if best is None:
        return ""
    if best[1] <= max(1, min(3, len(word) // 3)):
        return f". Did you mean '{best[0]}'?"
    prefixed = sorted(candidate for candidate in candidates if candidate.lower().startswith(lowered))
    return f". Did you mean '{prefixed[0]}'?" if len(lowered) >= 2 and prefixed else ""


def _edit_distance(a, b):
    """The restricted Damerau-Levenshtein distance (swaps of neighbours count one)."""
    if not a or not b:
        return len(a) + len(b)
    before, previous = [0] * (len(b) + 1), list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        before, previous = previous, current
    return previous[len(b)]


class Screen:
    """A kind of window. Subclass it: `frame()` is what scenarios assert on (a dict), `text(frame)`
    what the shell shows. `self.window` is the window, with its document, view state and session."""

    def __init__(self, window):
        self.window = window

    def frame(self):
        return {}

    def text(self, frame):
        return _canonical(frame)

    def restored(self, previous):
        """Called after the host gave the window a restored view state (`window.state`; the one
        it had is `previous`): a relaunch, `undo view`."""

    def document_replaced(self):
        """Called when the window's document was replaced from outside (an import, an undo):
        `window.document` is the new one."""

    def closed(self):
        """Called when the window closes: cancel what it started."""

    def unsaved(self):
        """What the window holds that is not saved to its document (a draft), in words, or None:
        `quit`, `close` and `relaunch` ask about it, and the answer calls `save` or `discard`."""
        return None

    def save(self):
        """Saves the unsaved work to `window.document` (raise `Refused` when it cannot be saved)."""
        raise Refused("this window has nothing to save")

    def discard(self):
        """Drops the unsaved work."""


class Window:
    """A window of a session: its screen, the document it shows (a dict you may change: the kit
    commits it), its view state (a dict kept by the host) and the session it belongs to."""

    def __init__(self, session, key, screen_name, document_name, state):
        self.session = session
        self.key = key
        self.screen_name = screen_name
        self.document_name = document_name
        self.state = state
        self.screen = None

    @property
    def document(self):
        return self.session._documents[self.document_name]

    @document.setter
    def document(self, value):
        self.session._documents[self.document_name] = value

    def result(self):
        return self._result(self.screen.frame(), self._state_text())

    def _state_text(self):
        return "{}" if self.state == {} else _canonical(self.state)  # most windows keep none

    def _result(self, frame, state):
        """The window as the host takes it, from its frame and view state as text: the text
        is drawn here, once it is known to be sent."""
        result = {"frame": frame, "text": self.screen.text(frame), "state": state}
        unsaved = self.screen.unsaved()
        if unsaved is not None:
            result["unsaved"] = str(unsaved)  # the host asks about it before the window goes (§20)
        return result


class Clock:
    """A session's clock, which is the host's: `now` is the session's time the request being
    answered carries (milliseconds since the session started: a scenario's virtual clock, real
    time in the shell), and a timer runs when the host says it is due (protocol 2, §14). So a
    scenario's `clock advance` and `settle` drive it exactly as they drive a built-in module, and
    a replay gives it the times the recording had."""

    def __init__(self, session):
        self._session = session
        self.now = 0  # the session's time, in milliseconds, as of the request being answered
        self._timers = {}  # id -> (due, order, callback, window key)
        # Timers cancelled lately, by id (the latest under each), which an undo may put back
        # (`undo view` after the command that cancelled it, §18): the most recent 256.
        self._dropped = {}
        self._order = 0
        # Where the clock reads 0 on the calendar, in milliseconds since 1970-01-01T00:00:00Z:
        # the host's (a request's `date` less its `now`, §14); a scenario's default until told.
        self._origin = 1_767_225_600_000

    @property
    def date(self):
        """`now` on the calendar, in milliseconds since 1970-01-01T00:00:00Z (UTC): the host's date,
        so a replay reads the dates its recording read (§14). Keep days as `date // 86_400_000`."""
        return self._origin + self.now

    def datetime(self):
        """`date` as an aware `datetime.datetime` in UTC."""
        import datetime as _datetime
        return _datetime.datetime.fromtimestamp(self.date / 1000, tz=_datetime.timezone.utc)

    def schedule(self, after, callback, id=None):
        """Calls `callback()` once `after` milliseconds of the session's time have passed; an id
        given again replaces the timer. Returns the id (`cancel(id)` drops it)."""
        self._order += 1
        timer_id = id if id is not None else f"t{self._order}"
        self._dropped.pop(timer_id, None)
        self._timers[timer_id] = (self.now + max(0, int(after)), self._order, callback, self._session._current_key)
        return timer_id

    def due(self, timer_id):
        """When a pending timer is due on the session's clock, or None."""
        timer = self._timers.get(timer_id)
        return None if timer is None else timer[0]

    def cancel(self, timer_id):
        timer = self._timers.pop(timer_id, None)
        if timer is not None:
            self._keep(timer_id, timer)

    def _keep(self, timer_id, timer):
        self._dropped.pop(timer_id, None)
        self._dropped[timer_id] = timer
        if len(self._dropped) > 256:
            del self._dropped[next(iter(self._dropped))]

    def _move(self, put_back, take_away):
        """What an undo or redo did to the window's timers, as a `restore` says (§18): takes
        away the timers named in `take_away` (kept, for a redo) and puts back those in
        `put_back`, each at its time with the callback it had (one set again under its id since
        waits at the time put back)."""
        returned = []
        for timer_id in take_away:
            if isinstance(timer_id, str):
                self.cancel(timer_id)
        for timer in put_back:
            if not isinstance(timer, dict) or not isinstance(timer.get("id"), str):
                continue
            # Kept when cancelled, or waiting still when the command set it again under its id
            # (then it keeps the callback it was set again with).
            kept = self._dropped.pop(timer["id"], None) or self._timers.get(timer["id"])
            if kept is not None and isinstance(timer.get("at"), int):
                self._order += 1
                self._timers[timer["id"]] = (timer["at"], self._order, kept[2], kept[3])
                returned.append(timer["id"])
        return returned

    def pending(self):
        return dict(self._timers)

    def _advance_to(self, due, including_due=True):
        """Runs every timer due by `due` (before it, without `including_due`), in order, moving
        the clock to each."""
        while True:
            ready = [(entry[0], entry[1], timer_id) for timer_id, entry in self._timers.items()
                     if entry[0] < due or (including_due and entry[0] == due)]
            if not ready:
                break
            when, _, timer_id = min(ready)
            self.now = max(self.now, when)
            self._fire(timer_id)
        self.now = max(self.now, due)

    def _fire(self, timer_id):
        """Runs a pending timer now, with the clock where it is: at its time when the clock
        reached it, or before it when the host names it early (a window opened again catching
        up with what the one it replaces had finished, §14)."""
        _, _, callback, key = self._timers.pop(timer_id)
        previous = self._session._current_key
        self._session._current_key = key
        kept = _Checkpoint(self._session)
        try:
            callback()
        except Exception:  # a timer's work that fails is the module's bug: said in its log, put
            kept.put_back()  # back, and the other timers and the windows' updates still go out
            traceback.print_exc()
        finally:
            self._session._current_key = previous


class Session:
    """What the module keeps for one of the host's sessions (§16): its windows, its clock, the
    objects its windows share (`shared`), and the facts its effects take from outside."""

    def __init__(self, module, number):
        self.module = module
        self.number = number
        self.windows = {}
        self.clock = Clock(self)
        self.shared = {}
        self._current_key = None
        self._relay = None
        self._reported = {}  # timer id -> when it is due, as the host was told
        self._last_sent = {}
        self._opened = []
        self._closed = []
        self._next_key = 0
        self._captures = {}  # (scope, source) -> a function giving the state now
        self._revisions = {}  # document name -> the revision the host last gave
        self._documents = {}  # document name -> body: each session has its own documents
        self._committed = {}  # document name -> its text as the host holds it (sent, or committed)
        self.replaying = False  # a replay's session: its live sources' events come from the recording
        self.replaying_start = False
        self.rows = 20  # how many rows a window shows at once (the host's `--rows`, §4)

    @contextlib.contextmanager
    def as_window(self, window):
        """Runs the work inside as `window`'s: the facts it takes and the timers it sets are that
        window's (§12), as when the host asks that window. For work a request does for other
        windows than its own (a sign-out every feed reloads on): each window's load is then its
        own, and a window opened again is served what it took."""
        previous = self._current_key
        self._current_key = window.key
        try:
            yield window
        finally:
            self._current_key = previous

    def service(self, name, make):
        """The session's one object named `name` (a bridge per home), made on first use."""
        if name not in self.shared:
            self.shared[name] = make()
        return self.shared[name]

    def fact(self, source, live, asked=None, scope=None):
        """A value from outside the session (a network answer, a device's state): `live()` now,
        kept while the host records; the recorded value while it replays (§12). `asked` is the
        question a fact answers (the search text): a replay serves an answer only to the same
        question. `scope` names a scope the session shares (`network`); by default the fact is
        the window's whose work asks for it."""
        relay = self._relay
        if relay is None or (relay["start"] and not source.endswith(".state")):
            return live()  # not recording nor replaying, or a replay's set-up: live
        window = None if scope is not None else self._current_key
        place = ("scope", scope) if scope is not None else ("window", window)
        count = relay["counts"].get((place, source), 0)
        relay["counts"][(place, source)] = count + 1
        if relay["again"] and relay["replaying"]:
            # Windows opened again: each source's list holds the latest answer the session took to
            # each question, the latest last; the one to the same question is used (§12 `again`).
            values = relay["recorded"].get(place, {}).get(source, [])
            answers = [v for v in values if asked is None or not (isinstance(v, dict) and "asked" in v)
                       or v["asked"] == asked]
            if answers:
                found = answers[-1]
                value = found["answer"] if asked is not None and isinstance(found, dict) and "asked" in found \
                    else found
            else:
                value = live()
                relay["divergence"] = relay["divergence"] or (
                    f"opened again, the window asked {source}"
                    + (f" for {json.dumps(asked)}" if asked is not None else "")
                    + ", which the session never took: it asks the outside world something new as it opens")
        elif relay["replaying"]:
            values = relay["recorded"].get(place, {}).get(source, [])
            if count < len(values):
                recorded = values[count]
                if asked is not None and isinstance(recorded, dict) and "asked" in recorded:
                    if recorded["asked"] != asked:
                        relay["divergence"] = relay["divergence"] or (
                            f"the replay asked {source} #{count + 1} for {json.dumps(asked)}, and the recording "
                            f"answered it for {json.dumps(recorded['asked'])}: the step asks something else than "
                            "when it was recorded")
                        value = live()
                    else:
                        value = recorded["answer"]
                else:
                    value = recorded
            else:
                value = live()
                relay["divergence"] = relay["divergence"] or (
                    f"the module asked for more {source} facts than the recording has left")
        else:
            value = live()
        reported = {"source": source, "value": value}
        if asked is not None:
            reported["asked"] = asked
        if scope is not None:
            reported["scope"] = scope
        elif window is not None and window != relay["key"]:
            reported["window"] = window
        relay["used"].append(reported)
        return value

    def state(self, source, live, capture, scope):
        """The state a long-lived service of the session starts in (a network's latency, a
        bridge's lights): `live()` now, or the state a recording started with while it replays.
        `capture()` gives the service's state as it is, for a recording that starts while the
        service exists (the host asks, §12 `capture`). `scope` is the shared scope (`network`);
        the source ends in `.state`."""
        source = source if source.endswith(".state") else source + ".state"
        self._captures[(scope, source)] = capture
        return self.fact(source, live, scope=scope)

    def open_window(self, screen_name, document_name, name=None, state=None):
        """Opens a window from a command (a room from a home, §17): the host opens it too."""
        self._next_key += 1
        key = f"k{self._next_key}"
        window = self.module._make_window(self, key, screen_name, document_name, state or {})
        self._opened.append((window, name))
        return window

    def close_window(self, window):
        """Closes a window from a command (§17)."""
        if self.windows.pop(window.key, None) is not None:
            window.screen.closed()
        self._closed.append(window.key)

    def live(self, source, event):
        """A live source of the module's (`@module.live_source(source)`) saw `event` (a device's
        own event: a switch at the wall), from any thread. The host is told, unasked (§19), and
        hands the event back when it takes the change in, at that moment of the session's time:
        the source's handler applies it then, live and on a replay alike (a recording keeps the
        event; a replay's session ignores its own sources), so the module's state is what it
        was live."""
        self.module._live(self, source, event)


class Module:
    def __init__(self, name, version, summary):
        self.name, self.version, self.summary = name, version, summary
        self._kinds = {}
        self._validators = {}
        self._screens = {}
        self._commands = []
        self._groups = {}
        self._diagrams = []
        self._sessions = {}
        self._live_sources = {}
        self._live_events = []  # (session, source, event) seen and not yet applied
        self._protocol = 1
        self._sink = None
        self._answering = None  # the request being answered
        self._lock = threading.RLock()

    def document_kind(self, name, samples=None, validate=None):
        """A kind of document, with the sample documents a new workspace starts with (dicts);
        `validate(document)`, if given, raises `Refused` saying what is wrong with one (§13)."""
        self._kinds[name] = dict(samples or {})
        self._validators[name] = validate

    def screen(self, name, kind, fields=None, lifetime=None, summaries=None, refusal=None, own=None, records=None):
        """A class decorator: the class (a `Screen`) shows documents of `kind` in windows.
        `fields` are the top-level fields of its frames; `lifetime` those of them that count
        what happened in a window's life (loads since it opened), which recordings leave out;
        `summaries` says what each field means, by name (an editor shows it over the field);
        `refusal` those that show why the last command was refused (a refusal may change them);
        `own` those a window holds of its own beyond its view state (what it loaded), where two
        windows on one document may differ after `settle`; `records` the fields inside a field
        that holds a record (a row of a list, a detail), by the field's name, each with what it
        means, or with a `(meaning, {fields})` pair when it holds a record in turn:
        `records={"rows": {"id": "the row's id", "owner": ("who has it", {"name": "their name"})}}`."""
        def register(screen_class):
            self._screens[name] = {"class": screen_class, "kind": kind, "fields": fields, "lifetime": lifetime,
                                   "summaries": dict(summaries or {}), "refusal": refusal, "own": own,
                                   "records": dict(records or {})}
            return screen_class
        return register

    def command(self, name, summary="", screens=None, arguments=(), details="", window_effect=None):
        """A function decorator: `handler(window, *arguments)` runs the command (`window` is None
        for one run with no window, §16: a handler with a `session` parameter is given the
        session either way); it may change `window.document` (committed) and
        return text to show. `name` with a space is a subcommand (`network fail`). A command
        that opens windows says how in `window_effect` (§3: `{"opensFrom": ...}`)."""
        def register(handler):
            self._commands.append({"name": name, "summary": summary, "screens": screens,
                                   "arguments": list(arguments), "details": details, "handler": handler,
                                   "windowEffect": window_effect,
                                   "wantsSession": "session" in inspect.signature(handler).parameters})
            return handler
        return register

    def live_source(self, name):
        """A function decorator: `handler(session, event)` applies an event the source named
        `name` saw (`session.live(name, event)`) to the session's state, when the host takes the
        change in (`session.clock.now` is then that moment), live and on a replay alike. Keep it
        to the event, the session and its clock: what it reads from elsewhere a replay cannot
        give back."""
        def register(handler):
            self._live_sources[name] = handler
            return handler
        return register

    def group(self, name, summary, screens=None):
        """Says what a command with subcommands (`network`, whose `network fail` and the like
        are `command("network fail", ...)`) is for, and where it runs."""
        self._groups[name] = {"summary": summary, "screens": screens}

    def diagram(self, name, title, nodes, edges, state_machine=False, start=None):
        """A diagram drawn from the module's code (`workbench diagram NAME`); `edges` are
        `(from, to, label)`."""
        self._diagrams.append({"name": name, "title": title, "stateMachine": state_machine, "start": start,
                               "nodes": list(nodes),
                               "edges": [{"from": a, "to": b, "label": label} for a, b, label in edges]})

    # The conversation.

    def run(self):
        offered = os.environ.get("WORKBENCH_HOST_PROTOCOLS", "")
        self._protocol = 2 if "2" in offered.split(",") else 1
        source, self._sink = sys.stdin.buffer, sys.stdout.buffer
        sys.stdout = sys.stderr  # prints go to the module's log, not into the protocol (§1)
        self._send(self._sink, self._hello())
        while True:
            try:
                header = source.read(4)
                if len(header) < 4:
                    return 0  # the host closed our input (§10)
                body = source.read(struct.unpack(">I", header)[0])
            except ValueError:
                return 0  # the stream broke: leave, do not crash (§9)
            try:
                request = json.loads(body.decode("utf-8"))
            except (ValueError, RecursionError) as problem:
                # A whole message that does not read: say so (§7) and go on with the next.
                request = _Unreadable(f"not JSON this module can read ({type(problem).__name__})")
            with self._lock:  # a live source's change never goes out in the middle of a reply
                self._send(self._sink, self.handle(request))
                self._send_live_events()

    def _live(self, session, source, event):
        if source not in self._live_sources:
            raise ValueError(f"no live source '{source}': declare it with @module.live_source('{source}')")
        if self._protocol < 2:
            return
        with self._lock:
            self._live_events.append((session, source, event))
            if self._answering is None:
                self._send_live_events()

    def _send_live_events(self):
        """Tells the host of the events live sources saw, each a change sent unasked with its
        event (§19), applied when the host hands it back (`live`). One seen while a request was
        answered (a command that plays a device) goes after the reply, never inside it."""
        while self._live_events:
            session, source, event = self._live_events.pop(0)
            if session.replaying or self._sessions.get(session.number) is not session:
                continue  # a replay's events are the recording's; a session that ended has none
            if self._sink is not None:
                self._send(self._sink, {"type": "changed", "session": session.number, "updates": [],
                                        "event": {"source": source, "value": event}})

    def _changed_windows(self, session, besides):
        """The windows of `session` but `besides` whose frames changed since the host last got
        them, as updates (§15), now noted as sent."""
        updates = []
        for key, window in sorted(session.windows.items()):
            if key == besides:
                continue
            # Compared by frame and view state; the text is drawn only for a window that changed.
            sent = (window.screen.frame(), window._state_text())
            if session._last_sent.get(key) != sent:
                session._last_sent[key] = sent
                updates.append(dict(window._result(*sent), key=key))
        return updates

    def _send(self, sink, message):
        body = _compact(message).encode("utf-8")
        sink.write(struct.pack(">I", len(body)) + body)
        sink.flush()

    def _hello(self):
        specs, groups = [], {}
        for command in self._commands:
            spec = {"name": command["name"].split(" ")[-1], "summary": command["summary"],
                    "details": command["details"], "screens": command["screens"], "arguments": command["arguments"]}
            if command["windowEffect"] is not None:
                spec["windowEffect"] = command["windowEffect"]
            if " " in command["name"]:
                parent = command["name"].split(" ")[0]
                if parent not in groups:
                    said = self._groups.get(parent, {"summary": command["summary"], "screens": command["screens"]})
                    groups[parent] = {"name": parent, "summary": said["summary"], "details": "",
                                      "screens": said["screens"], "arguments": [], "subcommands": [],
                                      "requiresSubcommand": True}
                    specs.append(groups[parent])
                groups[parent]["subcommands"].append(spec)
            else:
                specs.append(spec)
        hello = {
            "type": "hello", "protocol": self._protocol,
            "manifest": {"name": self.name, "version": self.version, "summary": self.summary},
            "documentKinds": list(self._kinds),
            "samples": [{"name": sample, "kind": kind, "body": json.dumps(body)}
                        for kind, samples in self._kinds.items() for sample, body in samples.items()],
            "screens": [dict({"name": name, "documentKind": screen["kind"]},
                             **({"fields": screen["fields"]} if screen["fields"] else {}),
                             **({"lifetimeFields": screen["lifetime"]} if screen["lifetime"] else {}),
                             **({"refusalFields": screen["refusal"]} if screen["refusal"] else {}),
                             **({"ownFields": screen["own"]} if screen["own"] else {}),
                             **({"fieldSummaries": screen["summaries"]} if screen["summaries"] else {}),
                             **({"recordFields": _record_fields(screen["records"])} if screen["records"] else {}))
                        for name, screen in self._screens.items()],
            "commands": specs,
            "diagrams": self._diagrams,
        }
        if self._protocol >= 2:
            hello["catchUp"] = True  # a `timer` request's timer runs even before its time (§14)
            hello["undoTimers"] = True  # a `restore` after an undo moves the timers it names (§18)
        if self._protocol >= 2 and self._live_sources:
            hello["liveSources"] = True  # the host asks for their changes with `sync` (§19)
        return hello

    def handle(self, request):
        """The reply to one request (tests can call it directly). A request this kit cannot read
        (not an object, a field of the wrong type) gets an `error` (§7), and the module goes on."""
        with self._lock:
            problem = _request_problem(request)
            if problem is not None:
                reply = {"type": "error", "message": f"the module could not read the request: {problem}"}
                if isinstance(request, dict) and type(request.get("id")) is int:
                    reply["id"] = request["id"]
                return reply
            self._answering = request
            try:
                return self._handle(request)
            except RecursionError:
                reply = {"type": "error", "message": "the module could not read the request: nested too deep"}
                if "id" in request:
                    reply["id"] = request["id"]
                return reply
            finally:
                self._answering = None

    def _handle(self, request):
        session = self._session(request.get("session", 0))
        if request.get("type") == "end":
            self._sessions.pop(request.get("session", 0), None)
            reply = {"type": "ok"}
        elif request.get("type") == "sync":
            # Every change the live sources saw went out as it came, before this reply (§19).
            reply = {"type": "ok"}
        elif request.get("type") == "capture":
            states = []
            for (scope, source), capture in sorted(session._captures.items()):
                value = capture()
                if value is not None:
                    states.append({"source": source, "scope": scope, "value": value})
            reply = {"type": "ok", "facts": states}
        else:
            key = request.get("key")
            session._current_key = key
            facts = request.get("facts")
            session._relay = None if facts is None else self._relay(facts, key)
            if session._relay is not None and session._relay["replaying"]:
                session.replaying = True
            # A replay setting up the windows its recording started with: they load live, and
            # a module does not count that work again (the recorded states count it).
            # So do windows opened again, served the answers the session already took (`again`).
            session.replaying_start = bool(facts and (facts.get("start") or facts.get("again")))
            shown = self._documents_shown(session)
            kept = None
            try:
                # The session's time is the host's: the clock moves to the time the request
                # carries (a timer due before then that the host has not fired yet runs now, with
                # the request's facts). One due at that very time runs when the host says it is
                # due, as a built-in's does (its own `timer` request, in the host's order: two due
                # at one moment run as the host fires them), not at any request at that time: a
                # timer set `after: 0` waits for the clock to move.
                # The timer a `timer` request names, as it waits now: run before its time if the
                # request's `now` does not reach it (and not one set again under its id meanwhile).
                session._named_timer = session.clock._timers.get(request.get("timer"))
                if (self._protocol >= 2 and isinstance(request.get("now"), int)
                        and isinstance(request.get("date"), int)):
                    # The calendar first: a timer that runs now reads the date at its time.
                    session.clock._origin = request["date"] - request["now"]
                if self._protocol >= 2 and isinstance(request.get("now"), int):
                    session.clock._advance_to(request["now"], including_due=False)
                self._take_in(request, session)
                # What the module's code does from here on is put back if the request is refused
                # (a timer's work was put back timer by timer, as it ran).
                kept = _Checkpoint(session) if request.get("type") != "timer" else None
                reply = self._answer(request, session, kept)
            except Refused as refusal:
                if kept is not None:
                    kept.put_back()
                reply = {"type": "error", "message": str(refusal)}
            except (KeyError, ValueError, TypeError, AttributeError) as problem:
                if kept is not None:
                    kept.put_back()
                reply = {"type": "error", "message": f"the module could not answer: {problem!r}"}
            if session._relay is not None:  # a refusal keeps what its work learnt from outside too
                reply["facts"] = session._relay["used"]
                if session._relay["divergence"]:
                    reply["divergence"] = session._relay["divergence"]
            session._relay = None
            session._current_key = None
            if self._protocol >= 2 and reply.get("type") == "ok":
                self._add_work(reply, session, shown)
            if self._protocol >= 2 and reply.get("type") in ("result", "ok"):
                self._add_timers_and_updates(reply, session, key)
        if "id" in request:
            reply["id"] = request["id"]  # the reply names the request it answers (§7)
        return reply

    def _documents_shown(self, session):
        """The names of the documents the session's windows show: what work outside a command
        (a timer's, a live event's) may change and commit."""
        documents = session._documents
        return sorted({window.document_name for window in session.windows.values()} & documents.keys())

    def _committed_text(self, session, name):
        """The text of document `name` as the host holds it: the body it sent, or the one the
        module last committed (read once, when the host sends the body)."""
        text = session._committed.get(name)
        if text is None:
            text = session._committed[name] = _canonical(session._documents.get(name))
        return text

    def _add_work(self, reply, session, shown):
        """Adds to an `ok` what its work did besides the windows: the documents it changed
        (`commits`, each from the revision the host last gave, §14) and the windows it opened
        or closed (§17). A document counts as changed when its text is not the host's: one
        encoding a document, not one before the work and one after it."""
        commits = []
        for name in shown:
            committed = self._committed_text(session, name)
            after = _canonical(session._documents.get(name))
            if after != committed:
                revision = session._revisions.get(name, 1)
                commits.append({"document": name, "revision": revision, "body": after})
                session._revisions[name] = revision + 1
                session._committed[name] = after
        if commits:
            reply["commits"] = commits
        self._add_windows_opened_and_closed(reply, session)

    def _add_windows_opened_and_closed(self, reply, session):
        if session._opened:
            reply["opened"] = []
            for opened, name in session._opened:
                entry = dict(opened.result(), key=opened.key, screen=opened.screen_name,
                             document=opened.document_name, name=name)
                session._last_sent[opened.key] = (entry["frame"], entry["state"])
                reply["opened"].append(entry)
            session._opened = []
        if session._closed:
            reply["closed"] = session._closed
            session._closed = []

    def _session(self, number):
        if number not in self._sessions:
            self._sessions[number] = Session(self, number)
        return self._sessions[number]

    def _relay(self, facts, key):
        recorded = {}
        if "replay" in facts and key is not None:
            recorded[("window", key)] = facts["replay"]
        for window, sources in facts.get("windows", {}).items():
            recorded[("window", window)] = sources
        for scope, sources in facts.get("shared", {}).items():
            recorded[("scope", scope)] = sources
        return {"replaying": "replay" in facts or "windows" in facts or "shared" in facts,
                "start": bool(facts.get("start")), "again": bool(facts.get("again")),
                "recorded": recorded, "counts": {}, "used": [], "divergence": None, "key": key}

    def _make_window(self, session, key, screen_name, document_name, state):
        if screen_name not in self._screens:
            raise Refused(f"unknown screen '{screen_name}'")
        window = Window(session, key, screen_name, document_name, state)
        window.screen = self._screens[screen_name]["class"](window)
        session.windows[key] = window
        return window

    def _take_in(self, request, session):
        """Takes in what the host's request says of the session: its rows, and the document's
        revision and body as the host holds them (never put back: they are the host's)."""
        if isinstance(request.get("rows"), int):
            session.rows = min(max(1, request["rows"]), 10000)
        if isinstance(request.get("revision"), int) and "document" in request:
            session._revisions[request["document"]] = request["revision"]
        if "body" in request and "document" in request:
            name, body = request["document"], json.loads(request["body"])
            replaced = name in session._documents and session._documents[name] != body
            session._documents[name] = body
            session._committed[name] = _canonical(body)
            if replaced:
                for window in list(session.windows.values()):
                    if window.document_name == name:
                        window.screen.document_replaced()

    def _answer(self, request, session, kept):
        kind, key = request.get("type"), request.get("key")
        if kind == "validate":
            validate = self._validators.get(request.get("kind"))
            if validate is not None:
                validate(json.loads(request.get("body", "")))
            return {"type": "ok"}
        if kind == "open":
            state = json.loads(request["state"]) if request.get("state") else {}
            window = self._make_window(session, key, request["screen"], request["document"], state)
            return self._result(window)
        if kind == "close":
            window = session.windows.pop(key, None)
            session._last_sent.pop(key, None)
            if window is not None:
                window.screen.closed()
            # Closing stops what the window started; it saves nothing (a close answer commits
            # nothing the user did not save).
            kept.put_back_documents()
            return {"type": "ok"}
        if kind == "timer":
            # The request's `now` ran it already; a host that sends no `now` gets it run here.
            due = session.clock.due(request.get("timer"))
            if due is not None and not isinstance(request.get("now"), int):
                session.clock._advance_to(due)
            # Named before its time: the host catches a window opened again up (§14).
            named = getattr(session, "_named_timer", None)
            if named is not None and session.clock._timers.get(request.get("timer")) is named:
                # The host's timer is spent: one the work sets again under its id, even for the
                # same time, is told again.
                session._reported.pop(request.get("timer"), None)
                session.clock._fire(request.get("timer"))
            return {"type": "ok"}
        if kind == "live":
            # The events of changes the host takes in now (the module's own, or a replay's
            # recorded ones), applied at the time this request carries.
            for event in request.get("events", []):
                handler = self._live_sources.get(event.get("source")) if isinstance(event, dict) else None
                if handler is None:
                    raise Refused(f"no live source for the recorded event {json.dumps(event)}")
                handler(session, event.get("value"))
            return {"type": "ok"}
        if kind == "command" and key is None:
            output = self._run(None, session, request)
            return {"type": "ok", "output": output}
        if kind not in ("refresh", "restore", "command", "leave"):
            raise Refused(f"unknown request '{kind}'")
        window = session.windows.get(key)
        if window is None:
            raise Refused(f"no window {key} in the module")
        if kind == "restore":
            put_back, take_away = request.get("timers") or [], request.get("cancel") or []
            clock = session.clock
            # An undo's or redo's timers move first (§18), so the screen finds them as they were;
            # one that sets or cancels timers as it takes the state keeps its own, and those put
            # back go again. The reply says what each named one is now.
            returned = clock._move(put_back, take_away)
            moved = {timer_id: entry[1] for timer_id, entry in clock._timers.items()}
            previous = window.state
            window.state = json.loads(request["state"]) if request.get("state") else {}
            window.screen.restored(previous)
            own = {timer_id: entry[1] for timer_id, entry in clock._timers.items()} != moved
            if own:
                for timer_id in returned:
                    if timer_id in clock._timers and clock._timers[timer_id][1] == moved.get(timer_id):
                        clock.cancel(timer_id)
            for timer_id in [timer.get("id") for timer in put_back if isinstance(timer, dict)] + take_away:
                if isinstance(timer_id, str):
                    session._reported[timer_id] = -1
            reply = self._result(window)
            if own and (put_back or take_away):
                reply["ownTimers"] = True
            return reply
        if kind == "refresh":
            return self._result(window)
        if kind == "leave":
            # The user's choice for the window's unsaved work (§20): saved (the document is
            # committed; a save that raises changes nothing) or dropped (nothing committed).
            before = kept.document(window.document_name)
            if request.get("choice") == "save":
                window.screen.save()
            else:
                window.screen.discard()
                kept.put_back_documents()
            return self._result(window, commit=self._commit(session, window, before))
        before = kept.document(window.document_name)
        output = self._run(window, session, request)
        reply = self._result(window, output=output, commit=self._commit(session, window, before))
        self._add_windows_opened_and_closed(reply, session)
        return reply

    def _commit(self, session, window, before):
        """The body of the window's document when the command changed it (`before` is its text
        when the command began), now the host's; or None."""
        after = _canonical(window.document)
        if after == before:
            return None
        session._committed[window.document_name] = after
        return after

    def _run(self, window, session, request):
        # Protocol 2 gives the command's spec path (`["network", "fail"]`; a host before paths
        # its full name, an older one only the line, whose first words name it). Its arguments
        # come bound by the host, by name (a left-out optional one is absent, so None); a window
        # argument is the module's window under the key the host gives (None for another's).
        path = request.get("path")
        name = " ".join(path) if isinstance(path, list) else request.get("command")
        command = self._command_named(name, request.get("line", ""))
        bound = request.get("arguments") or {}
        keys = request.get("windows") or {}
        values = [
            session.windows.get(keys.get(argument["name"])) if argument["kind"] == "window"
            else bound.get(argument["name"])
            for argument in command["arguments"]
        ]
        extra = {"session": session} if command["wantsSession"] else {}
        output = command["handler"](window, *values, **extra)
        return None if output is None else str(output)

    def _command_named(self, name, line):
        if name is not None:
            for command in self._commands:
                if command["name"] == name:
                    return command
            raise Refused(f"unknown command '{name}'")
        words = line.split(" ")
        for command in sorted(self._commands, key=lambda command: -len(command["name"].split(" "))):
            names = command["name"].split(" ")
            if words[:len(names)] == names:
                return command
        raise Refused(f"unknown command '{line}'")

    def _result(self, window, output=None, commit=None):
        reply = dict({"type": "result", "output": output, "commit": commit}, **window.result())
        return reply

    def _add_timers_and_updates(self, reply, session, key):
        pending = session.clock.pending()
        timers = []
        for timer_id, (due, _, _, _) in sorted(pending.items(), key=lambda item: item[1][1]):
            if session._reported.get(timer_id) != due:  # new, or set again for another time
                session._reported[timer_id] = due
                timers.append({"id": timer_id, "at": due})
        gone = sorted(timer_id for timer_id in session._reported if timer_id not in pending)
        for timer_id in gone:
            del session._reported[timer_id]
        if timers:
            reply["timers"] = timers
        if gone:
            reply["cancel"] = gone
        if key is not None and reply.get("type") == "result":
            session._last_sent[key] = (reply["frame"], reply["state"])
        updates = self._changed_windows(session, key)
        if updates:
            reply["updates"] = updates


class _Checkpoint:
    """What a session holds as the module's code begins a piece of work (a request, a timer):
    its documents and its windows' view states as text, its timers and its windows. A refused
    piece of work changes nothing (§5): `put_back()` returns the session to this point. What
    the module's own services did (a bridge's lights) is theirs to manage."""

    def __init__(self, session):
        self._session = session
        self._documents = {name: _canonical(body) for name, body in session._documents.items()}
        self._states = {key: _canonical(window.state) for key, window in session.windows.items()}
        self._timers = dict(session.clock._timers)
        self._windows = dict(session.windows)
        self._opened, self._closed = list(session._opened), list(session._closed)

    def document(self, name):
        """The text of document `name` at this point."""
        return self._documents.get(name, _canonical(None))

    def put_back_documents(self):
        documents = self._session._documents
        for name in list(documents):
            if name not in self._documents:
                del documents[name]
            elif _canonical(documents[name]) != self._documents[name]:
                documents[name] = json.loads(self._documents[name])

    def put_back(self):
        session = self._session
        self.put_back_documents()
        session.clock._timers = dict(self._timers)
        session.windows = dict(self._windows)
        for key, window in session.windows.items():
            if key in self._states and _canonical(window.state) != self._states[key]:
                window.state = json.loads(self._states[key])
        session._opened, session._closed = list(self._opened), list(self._closed)


def _record_fields(fields):
    """A record's fields as the handshake declares them (§3): each with what it means (text),
    and the fields of a record it holds in turn (a `(meaning, {fields})` pair, or `{fields}`
    alone)."""
    declared = []
    for name, said in fields.items():
        summary, inner = None, None
        if isinstance(said, str):
            summary = said
        elif isinstance(said, dict):
            inner = said
        elif isinstance(said, (tuple, list)) and len(said) == 2:
            summary, inner = said
        entry = {"name": str(name)}
        if isinstance(summary, str):
            entry["summary"] = summary
        if isinstance(inner, dict) and inner:
            entry["fields"] = _record_fields(inner)
        declared.append(entry)
    return declared


class _Unreadable:
    """A message that was framed whole but is not JSON the kit reads."""

    def __init__(self, problem):
        self.problem = problem


# The fields the kit reads from a request, and the JSON types each must have when present.
_FIELD_TYPES = {
    "type": (str,), "id": (int,), "session": (int,), "key": (str, type(None)), "line": (str,),
    "command": (str,),
    "path": (list,),
    "windows": (dict,),
    "arguments": (dict, type(None)), "facts": (dict, type(None)), "state": (str, type(None)),
    "body": (str,), "document": (str,), "screen": (str,), "kind": (str,), "revision": (int,),
    "now": (int,), "date": (int,), "rows": (int,), "timer": (str,), "events": (list,), "choice": (str,),
    "timers": (list,), "cancel": (list,),
}


def _request_problem(request):
    """Why the kit cannot read `request` (a message from the host), or None."""
    if isinstance(request, _Unreadable):
        return request.problem
    if not isinstance(request, dict):
        return f"expected a JSON object, got {_json_type(request)}"
    for name, value in request.items():  # the request's own fields: a handful, not the table
        types = _FIELD_TYPES.get(name)
        if types is not None and (not isinstance(value, types) or isinstance(value, bool)):
            return f"`{name}` is {_json_type(value)}"
    facts = request.get("facts")
    if isinstance(facts, dict):
        for name in ("replay", "windows", "shared"):
            if name in facts and not isinstance(facts[name], dict):
                return f"`facts.{name}` is {_json_type(facts[name])}"
    return None


def _json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    return "an object"
