#!/usr/bin/env python3
"""Notes with a draft that saves itself five seconds after the last typing, on the Python kit:
the same module as main.swift and drafts.js beside it."""

import workbench_module as wb

drafts = wb.Module("drafts", "1.0", "notes with an autosave")
drafts.document_kind("note", samples={"memo": {"text": ""}})


@drafts.screen("note", kind="note", fields=["text", "draft", "autosave"])
class Note(wb.Screen):
    def __init__(self, window):
        super().__init__(window)
        # A window is its document and view state: one opened on a draft whose autosave waits
        # sets it again, due when the view state says.
        due = window.state.get("autosave")
        if due is not None:
            clock = window.session.clock
            clock.schedule(min(5000, max(0, due - clock.now)), lambda: save(window), id="autosave " + window.key)

    def restored(self, previous):
        # Given a view state back (`undo view`, a relaunch): the autosave it says waits, set if
        # none waits then (an undo put back the one `discard` cancelled), and none when it says none.
        clock, timer_id, due = self.window.session.clock, "autosave " + self.window.key, self.window.state.get("autosave")
        if due is not None and clock.due(timer_id) != min(due, clock.now + 5000):
            clock.schedule(min(5000, max(0, due - clock.now)), lambda: save(self.window), id=timer_id)
        elif due is None:
            clock.cancel(timer_id)

    def closed(self):
        self.window.session.clock.cancel("autosave " + self.window.key)

    def frame(self):
        return {"text": self.window.document["text"], "draft": self.window.state.get("draft", ""),
                "autosave": self.window.state.get("autosave")}

    def text(self, frame):
        return f"{frame['text']} | draft: {frame['draft']}"


def save(window):
    window.document = dict(window.document, text=window.document["text"] + window.state.get("draft", ""))
    window.state = {"draft": "", "autosave": None}


@drafts.command("type", screens=["note"], summary="type into the draft", arguments=[wb.rest("words")])
def type_words(window, words):
    clock = window.session.clock
    window.state = {"draft": window.state.get("draft", "") + words, "autosave": clock.now + 5000}
    clock.schedule(5000, lambda: save(window), id="autosave " + window.key)


@drafts.command("discard", screens=["note"], summary="drop the draft and its autosave")
def discard(window):
    window.state = {"draft": "", "autosave": None}
    window.session.clock.cancel("autosave " + window.key)


drafts.run()
