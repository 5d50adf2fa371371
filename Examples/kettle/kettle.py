#!/usr/bin/env python3
"""A kettle on the Python kit (`pip install Kits/python`): `boil MS` is done after MS
milliseconds of the session's time, in every window on the kettle; `stop` cancels it; `wall`
plays someone switching it on at the wall, an event its live source reports unasked.

    workbench run --module ./kettle.py Scenarios/
    workbench module-check ./kettle.py
"""

import workbench_module as wb

module = wb.Module("kettle", "1.0", "a kettle that boils on the session clock")
module.document_kind("kettle", samples={"kettle": {"litres": 1}})


def water(session, document):
    return session.service("kettle " + document, lambda: {"state": "cold", "boils": 0})


@module.screen("kettle", kind="kettle", fields=["state", "boils"],
               summaries={"state": "cold, heating or boiled", "boils": "how many times it has boiled"})
class Kettle(wb.Screen):
    def frame(self):
        return dict(water(self.window.session, self.window.document_name))


@module.command("boil", screens=["kettle"], arguments=[wb.integer("ms", 0, 86400000)])
def boil(window, ms):
    kettle = water(window.session, window.document_name)
    kettle["state"] = "heating"

    def boiled():
        kettle["state"] = "boiled"
        kettle["boils"] += 1

    window.session.clock.schedule(ms, boiled, id="boil")


@module.command("stop", screens=["kettle"])
def stop(window):
    water(window.session, window.document_name)["state"] = "cold"
    window.session.clock.cancel("boil")


@module.live_source("wall")
def switched_at_the_wall(session, event):
    """The kettle's switch at the wall, as the device reports it: live, and again on a replay."""
    water(session, event["kettle"])["state"] = "on at the wall"


@module.command("wall", screens=["kettle"])
def wall(window):
    # Plays the device: its event comes in through the live source, as a real one's would.
    window.session.live("wall", {"kettle": window.document_name})


module.run()
