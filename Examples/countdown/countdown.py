#!/usr/bin/env python3
"""A countdown on the Python kit (`pip install Kits/python`), the same module as countdown.js
on the JavaScript kit: `start` counts down the document's seconds on the session's clock, a
timer a second that sets the next; `pause` keeps what was left to the millisecond; a finished
countdown is saved in the document by the timer's work; `press` plays the button on the device,
an event its live source reports.

    workbench run --module ./countdown.py Scenarios/
"""

import workbench_module as wb

countdown = wb.Module("countdown", "1.0", "a countdown on the session's clock, with a button")
countdown.document_kind("countdown", samples={"egg": {"seconds": 5, "finished": 0}})


def timer(session, document):
    return session.service("countdown " + document, lambda: {"state": "idle", "left": None, "since": 0, "presses": 0})


def window_on(session, document):
    return next((window for window in session.windows.values() if window.document_name == document), None)


@countdown.screen("countdown", kind="countdown", fields=["state", "left", "finished", "presses"],
                  summaries={"left": "milliseconds left, as of the last tick or pause"})
class Countdown(wb.Screen):
    def frame(self):
        counting = timer(self.window.session, self.window.document_name)
        left = counting["left"] if counting["left"] is not None else self.window.document["seconds"] * 1000
        return {"state": counting["state"], "left": left, "finished": self.window.document["finished"],
                "presses": counting["presses"]}

    def text(self, frame):
        return (f"{frame['state']}: {frame['left']} ms left "
                f"(finished {frame['finished']}, presses {frame['presses']})")


def run(session, document):
    """Counts on from now: the next tick is at the next whole second left (or the end)."""
    counting = timer(session, document)
    counting["state"], counting["since"] = "running", session.clock.now
    left = counting["left"]
    session.clock.schedule(min(left, left % 1000 or 1000), lambda: tick(session, document), id="tick " + document)


def tick(session, document):
    counting = timer(session, document)
    counting["left"] = max(0, counting["left"] - (session.clock.now - counting["since"]))
    counting["since"] = session.clock.now
    if counting["left"] > 0:
        session.clock.schedule(min(1000, counting["left"]), lambda: tick(session, document), id="tick " + document)
        return
    counting["state"] = "done"
    window = window_on(session, document)
    if window is not None:  # the timer's work saves it: committed like a command's change
        window.document = dict(window.document, finished=window.document["finished"] + 1)


def pause(session, document):
    counting = timer(session, document)
    counting["left"] = max(0, counting["left"] - (session.clock.now - counting["since"]))
    counting["state"] = "paused"
    session.clock.cancel("tick " + document)


@countdown.command("start", screens=["countdown"], summary="start counting down, or go on after a pause")
def start(window):
    counting = timer(window.session, window.document_name)
    if counting["state"] == "running":
        raise wb.Refused("the countdown is running already (pause it, or reset it)")
    if counting["state"] in ("idle", "done"):
        counting["left"] = window.document["seconds"] * 1000
    run(window.session, window.document_name)


@countdown.command("pause", screens=["countdown"], summary="stop counting, keeping what is left")
def pause_command(window):
    if timer(window.session, window.document_name)["state"] != "running":
        raise wb.Refused("the countdown is not running")
    pause(window.session, window.document_name)


@countdown.command("reset", screens=["countdown"], summary="stop, and start again from the document's seconds")
def reset(window):
    counting = timer(window.session, window.document_name)
    counting["state"], counting["left"] = "idle", None
    window.session.clock.cancel("tick " + window.document_name)


@countdown.command("seconds", screens=["countdown"], summary="set how many seconds the countdown counts",
                   arguments=[wb.integer("seconds", 1, 3600)])
def set_seconds(window, seconds):
    window.document = dict(window.document, seconds=seconds)


@countdown.command("press", screens=["countdown"], summary="press the button on the device (pauses or goes on)")
def press(window):
    # Plays the device: its event comes in through the live source, as a real one's would.
    window.session.live("button", {"document": window.document_name})


@countdown.live_source("button")
def button(session, event):
    """The button on the device: it pauses a running countdown and starts a paused one again."""
    counting = timer(session, event["document"])
    counting["presses"] += 1
    if counting["state"] == "running":
        pause(session, event["document"])
    elif counting["state"] == "paused":
        run(session, event["document"])


countdown.run()
