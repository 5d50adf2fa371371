#!/usr/bin/env python3
"""Habits on the Python kit (`pip install Kits/python`), the same module as habits.js on the
JavaScript kit and Sources/Habits on the Swift one: each habit keeps the day it was last done and
its streak, `done ID` marks it done today, `filter due` lists only what is not done today in one
window, and a day passes at midnight on the session's calendar (`session.clock.date`): the wall time a shell started at, a scenario's
`date:`, what a recording kept. So a scenario shows midnight with `clock advance`, and a
recording made in the shell replays on the days it was made.

    workbench run --module ./habits.py Scenarios/
"""

import workbench_module as wb

DAY = 86_400_000  # milliseconds

habits = wb.Module("habits", "1.0", "habits done once a day, with their streaks, on the session's calendar")
habits.document_kind("habits", samples={"routine": {"habits": [
    {"id": 1, "name": "Read", "lastDone": None, "streak": 0},
    {"id": 2, "name": "Walk", "lastDone": None, "streak": 0},
]}})


def today(session):
    """The session's day: days since 1970-01-01 on its calendar."""
    return session.clock.date // DAY


def day_text(day):
    import datetime
    return (datetime.date(1970, 1, 1) + datetime.timedelta(days=day)).isoformat()


def at_midnight(session):
    """Wakes the session's habits windows at the next midnight, so the new day shows unasked."""
    session.clock.schedule(DAY - session.clock.date % DAY, lambda: at_midnight(session), id="midnight")


@habits.screen("habits", kind="habits", fields=["today", "filter", "rows"],
               summaries={"today": "the session's day, as YYYY-MM-DD",
                          "filter": "which habits this window lists: all, or due (not done today)",
                          "rows": "the habits listed"},
               records={"rows": {"id": "the habit's id, what `done` takes", "name": "what the habit is",
                                 "streak": "days in a row it was done; 0 once a day is missed",
                                 "doneToday": "whether it was done on the session's day"}})
class Habits(wb.Screen):
    def __init__(self, window):
        super().__init__(window)
        if window.session.clock.due("midnight") is None:
            at_midnight(window.session)

    def frame(self):
        day = today(self.window.session)
        shown = self.window.state.get("filter", "all")
        rows = []
        for habit in self.window.document["habits"]:
            last = habit["lastDone"]
            if shown == "due" and last == day:
                continue
            kept = last is not None and last >= day - 1  # done today or yesterday: the streak holds
            rows.append({"id": habit["id"], "name": habit["name"], "streak": habit["streak"] if kept else 0,
                         "doneToday": last == day})
        return {"today": day_text(day), "filter": shown, "rows": rows}

    def text(self, frame):
        lines = [frame["today"] + (" (due only)" if frame["filter"] == "due" else "")]
        for row in frame["rows"]:
            lines.append(f"  {row['id']}  {row['name']}  streak {row['streak']}{'  done today' if row['doneToday'] else ''}")
        return "\n".join(lines)


@habits.command("done", screens=["habits"], summary="mark a habit done today",
                arguments=[wb.integer("id", 1, 1_000_000, help="the habit's id")])
def done(window, id):
    day = today(window.session)
    listed = window.document["habits"]
    habit = next((habit for habit in listed if habit["id"] == id), None)
    if habit is None:
        raise wb.Refused(f"no habit {id} (habits: {', '.join(str(habit['id']) for habit in listed)})")
    if habit["lastDone"] == day:
        raise wb.Refused(f"habit {id} is done today already")
    streak = habit["streak"] + 1 if habit["lastDone"] == day - 1 else 1
    changed = dict(habit, lastDone=day, streak=streak)
    window.document = dict(window.document, habits=[changed if habit["id"] == id else habit for habit in listed])


@habits.command("filter", screens=["habits"], summary="list every habit in this window, or only those due today",
                arguments=[wb.choice("which", ["all", "due"], help="all, or due: only those not done today")])
def filter_(window, which):
    window.state = dict(window.state, filter=which)


habits.run()
