#!/usr/bin/env python3
"""A kettle on the Python kit (workbench_module.py, beside it): `boil MS` is done after MS
milliseconds of the session's time, in every window on the kettle; `stop` cancels it; `wall`
plays someone switching it on at the wall, a change the module reports unasked (a live source).

    workbench run --module ./kettle.py Scenarios/
    workbench module-check ./kettle.py
"""

import workbench_module as wb

module = wb.Module("kettle", "1.0", "a kettle that boils on the session clock")
module.document_kind("kettle", samples={"kettle": {"litres": 1}})


def water(window):
    return window.session.service("kettle " + window.document_name, lambda: {"state": "cold", "boils": 0})


@module.screen("kettle", kind="kettle", fields=["state", "boils"],
               summaries={"state": "cold, heating or boiled", "boils": "how many times it has boiled"})
class Kettle(wb.Screen):
    def frame(self):
        return dict(water(self.window))


@module.command("boil", screens=["kettle"], arguments=[wb.integer("ms", 0, 86400000)])
def boil(window, ms):
    kettle = water(window)
    kettle["state"] = "heating"

    def boiled():
        kettle["state"] = "boiled"
        kettle["boils"] += 1

    window.session.clock.schedule(ms, boiled, id="boil")


@module.command("stop", screens=["kettle"])
def stop(window):
    water(window)["state"] = "cold"
    window.session.clock.cancel("boil")


@module.command("wall", screens=["kettle"])
def wall(window):
    water(window)["state"] = "on at the wall"
    window.session.changed()  # as a device's own event would, unasked


module.run()
