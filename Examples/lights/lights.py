#!/usr/bin/env python3
"""The lights (seed 002) on the Python kit: a home's rooms and lights behind scopes, from a live
bridge that every window of the session shares (a switch in one window, or at the wall, shows in
all of them) or from a preview container built of the document's values, with no bridge.

It is the built-in `lights` module written again outside the host, and passes the built-in
module's own scenarios with the built-in switched off:

    workbench run --without-builtin lights -m Examples/lights/lights.py Scenarios/lights
"""

import json

import workbench_module as wb

module = wb.Module("lights", "1.0.0", "Rooms and lights on scopes and connections")

LARGEST = 2**63 - 1
SAMPLE = {"rooms": [
    {"id": "living", "name": "Living room", "lights": [
        {"id": 1, "name": "Ceiling", "on": True, "brightness": 80},
        {"id": 2, "name": "Floor lamp", "on": False, "brightness": 40}]},
    {"id": "kitchen", "name": "Kitchen", "lights": [
        {"id": 3, "name": "Counter", "on": False, "brightness": 100},
        {"id": 4, "name": "Pendant", "on": True, "brightness": 60}]},
    {"id": "bedroom", "name": "Bedroom", "lights": [{"id": 5, "name": "Bedside", "on": False, "brightness": 30}]},
]}


def validate(document):
    rooms, lights = set(), set()
    for index, room in enumerate(document.get("rooms", [])):
        if room["id"] in rooms:
            raise wb.Refused(f"rooms[{index}]: the room id '{room['id']}' is used twice")
        rooms.add(room["id"])
        for light_index, light in enumerate(room.get("lights", [])):
            if light["id"] in lights:
                raise wb.Refused(f"rooms[{index}].lights[{light_index}]: the light id {light['id']} is used twice")
            lights.add(light["id"])
            if not 0 <= light["brightness"] <= 100:
                raise wb.Refused(f"rooms[{index}].lights[{light_index}]: brightness must be 0 to 100")


module.document_kind("home", samples={"home": SAMPLE}, validate=validate)


def new_id(ids):
    """One more than the largest id; the smallest free one when the largest is the largest there is."""
    ids = list(ids)
    largest = max([0] + ids)
    if largest < LARGEST:
        return largest + 1
    taken = set(ids)
    return next(number for number in range(1, len(taken) + 2) if number not in taken)


class Bridge:
    """The home's bridge: one per home and session, shared by every live window on the home."""

    def __init__(self, session, document_name, document):
        self.session, self.scope = session, "bridge " + document_name
        # The state the bridge starts in: the document's, or as a recording started with.
        state = session.state("bridge.state", lambda: state_of(document["rooms"], True),
                              lambda: self.current_state(), scope=self.scope)
        if isinstance(state, dict) and isinstance(state.get("rooms"), list):
            document = {"rooms": state["rooms"]}
        self.reachable = not (isinstance(state, dict) and state.get("reachable") is False)
        self.room_ids = [room["id"] for room in document["rooms"]]
        self.rooms = {room["id"]: {"name": room["name"], "lights": [light["id"] for light in room["lights"]],
                                   "detecting": False} for room in document["rooms"]}
        self.lights = {light["id"]: dict(light) for room in document["rooms"] for light in room["lights"]}
        self.documented = set(self.lights)

    def current_state(self):
        rooms = [{"id": room_id, "name": self.rooms[room_id]["name"],
                  "lights": [self.lights[i] for i in self.rooms[room_id]["lights"] if i in self.lights]}
                 for room_id in self.room_ids if room_id in self.rooms]
        return state_of(rooms, self.reachable)

    def require_reachable(self, what):
        if not self.reachable:
            raise wb.Refused(f"the bridge is unreachable, so {what}; try again when it is back (`bridge online`)")

    def adopt(self, document):
        """The document changed (an import, an undo): its rooms and names, keeping what only the
        bridge has (lights it found) and the lights' own state."""
        listed = {light["id"] for room in document["rooms"] for light in room["lights"]}
        adopted = {}
        for record in document["rooms"]:
            room = self.rooms.get(record["id"], {"name": record["name"], "lights": [], "detecting": False})
            bridge_only = [i for i in room["lights"] if i not in listed and i not in self.documented]
            room["name"], room["lights"] = record["name"], [light["id"] for light in record["lights"]] + bridge_only
            adopted[record["id"]] = room
            for light in record["lights"]:
                if light["id"] in self.lights:
                    self.lights[light["id"]]["name"] = light["name"]
                else:
                    self.lights[light["id"]] = dict(light)
        self.room_ids, self.rooms, self.documented = [room["id"] for room in document["rooms"]], adopted, listed

    def switch_at_wall(self, number, on):
        if number not in self.lights:
            raise wb.Refused(f"the bridge has no light {number}")
        self.lights[number]["on"] = on

    def add_light(self, name, room_id):
        if room_id not in self.rooms:
            raise wb.Refused(f"the bridge has no room '{room_id}'")
        number = new_id(self.lights)
        self.lights[number] = {"id": number, "name": name, "on": False, "brightness": 50}
        self.rooms[room_id]["lights"].append(number)
        return number

    def remove_light(self, number):
        if number not in self.lights:
            raise wb.Refused(f"the bridge has no light {number}")
        for room in self.rooms.values():
            room["lights"] = [i for i in room["lights"] if i != number]
        del self.lights[number]

    def detect(self, room_id):
        self.require_reachable("no lights can be detected")
        room = self.rooms.get(room_id)
        if room is None:
            raise wb.Refused(f"the bridge has no room '{room_id}'")
        if room["detecting"]:
            raise wb.Refused(f"already detecting lights in {room['name']}")
        room["detecting"] = True

        def found():
            room["detecting"] = False
            # What the bridge found is an event from outside: recorded, or replayed.
            name = self.session.fact("bridge.detected", lambda: f"New light {new_id(self.lights)}",
                                     asked={"room": room_id}, scope=self.scope)
            if room_id in self.rooms:
                self.add_light(name if isinstance(name, str) else "New light", room_id)

        self.session.clock.schedule(2000, found, id=f"detect {self.scope} {room_id}")


def state_of(rooms, reachable):
    """A bridge's rooms and lights as a recording keeps them (`bridge.state`)."""
    return {"reachable": reachable, "rooms": [
        {"id": room["id"], "name": room["name"],
         "lights": [{"id": light["id"], "name": light["name"], "on": light["on"], "brightness": light["brightness"]}
                    for light in room["lights"]]} for room in rooms]}


def bridge(window):
    return window.session.service("bridge " + window.document_name,
                                  lambda: Bridge(window.session, window.document_name, window.document))


# The containers: a live one reads the bridge, a preview one the document's values. A screen asks
# its container for a room's scope and a light's and never knows which it has.

class LiveContainer:
    preview, status_kind, kind, writable = False, "callback", "observation", "observation, writable"

    def __init__(self, window):
        self.bridge = bridge(window)

    def status(self):
        return "reachable" if self.bridge.reachable else "unreachable"

    def room_ids(self):
        return list(self.bridge.room_ids)

    def room(self, room_id):
        room = self.bridge.rooms.get(room_id)
        if room is None:
            return {"exists": False, "name": room_id, "lights": [], "detecting": False}
        return {"exists": True, "name": room["name"], "lights": list(room["lights"]), "detecting": room["detecting"]}

    def light(self, room_id, number):
        light = self.bridge.lights.get(number)
        if light is None:
            return {"exists": False, "name": "(removed)", "on": False, "brightness": 0}
        return {"exists": True, "name": light["name"], "on": light["on"], "brightness": light["brightness"]}

    def write(self, room_id, number, field, value):
        if field == "on":
            self.bridge.require_reachable("the light was not switched")
        else:
            self.bridge.require_reachable("the brightness was not changed")
            if not 0 <= value <= 100:
                raise wb.Refused(f"brightness goes from 0 to 100, not {value}")
        if number in self.bridge.lights:
            self.bridge.lights[number][field] = value

    def detect(self, room_id):
        if room_id not in self.bridge.rooms:
            raise wb.Refused(f"the room '{room_id}' is gone")
        self.bridge.detect(room_id)


class PreviewContainer:
    """Constants from the document, and initial values a window may write (its own, no bridge)."""
    preview, status_kind, kind, writable = True, "constant", "constant", "initial value, writable"

    def __init__(self, window):
        self.layout = window.document
        self.written = {}  # (room, light) -> {"on": ..., "brightness": ...}

    def status(self):
        return "preview"

    def room_ids(self):
        return [room["id"] for room in self.layout["rooms"]]

    def _room(self, room_id):
        return next((room for room in self.layout["rooms"] if room["id"] == room_id), None)

    def room(self, room_id):
        room = self._room(room_id)
        if room is None:
            return {"exists": False, "name": room_id, "lights": [], "detecting": False}
        return {"exists": True, "name": room["name"], "lights": [light["id"] for light in room["lights"]],
                "detecting": False}

    def light(self, room_id, number):
        room = self._room(room_id) or {"lights": []}
        light = next((light for light in room["lights"] if light["id"] == number), None)
        values = {"exists": light is not None, "name": light["name"] if light else "(none)",
                  "on": light["on"] if light else False, "brightness": light["brightness"] if light else 0}
        values.update(self.written.get((room_id, number), {}))
        return values

    def write(self, room_id, number, field, value):
        self.written.setdefault((room_id, number), {})[field] = value

    def detect(self, room_id):
        if self._room(room_id) is None:
            raise wb.Refused(f"the room '{room_id}' is gone")
        raise wb.Refused("a preview has no bridge, so it cannot detect lights")


class LightsScreen(wb.Screen):
    container_type = LiveContainer

    def __init__(self, window):
        super().__init__(window)
        self.container = self.container_type(window)

    def document_replaced(self):
        if self.container.preview:
            self.container = PreviewContainer(self.window)
        else:
            self.container.bridge.adopt(self.window.document)

    def require_bridge(self):
        if self.container.preview:
            raise wb.Refused("this window shows a preview: there is no bridge behind it")
        return self.container.bridge

    def choose(self, room_id):
        known = self.container.room_ids()
        if room_id not in known:
            raise wb.Refused(f"no room '{room_id}'" + wb.did_you_mean(room_id, known) + f" (rooms: {', '.join(known)})")
        return room_id

    def home_lines(self):
        c = self.container
        return [f"HomeScope ({'preview' if c.preview else 'live'})",
                f"  roomIDs = {json.dumps(c.room_ids(), separators=(', ', ': '))}  [{c.kind}]",
                f"  status = {c.status()}  [{c.status_kind}]"]


def _home_frame(screen):
    c = screen.container
    rooms = []
    for room_id in c.room_ids():
        room = c.room(room_id)
        rooms.append({"id": room_id, "name": room["name"], "lights": len(room["lights"])})
    return {"container": "preview" if c.preview else "live", "bridge": c.status(), "rooms": rooms}


def _home_text(frame):
    lines = [f"home ({frame['container']}) · bridge {frame['bridge']}"]
    for room in frame["rooms"]:
        count = room["lights"]
        lines.append(f"  {room['id']}  {room['name']} · " + ("1 light" if count == 1 else f"{count} lights"))
    lines.append("`enter ROOM` opens a room")
    return "\n".join(lines)


class HomeScreen(LightsScreen):
    def frame(self):
        return _home_frame(self)

    def text(self, frame):
        return _home_text(frame)

    def scope_tree(self):
        lines, c = self.home_lines(), self.container
        for room_id in c.room_ids():
            room = c.room(room_id)
            lines += [f"  roomScope({room_id}) → RoomScope", f"    name = {room['name']}  [{c.kind}]",
                      f"    lightIDs = {json.dumps(room['lights'])}  [{c.kind}]"]
        return "\n".join(lines)


ROOM_FIELDS = ["container", "bridge", "room", "name", "exists", "detecting", "count", "firstRow", "lights"]
# The fields of the records a home's and a room's frames hold, as the built-in module says them.
HOME_RECORDS = {"rooms": {"id": "the room's id in the home (living)", "name": "the room's name",
                          "lights": "how many lights the room has"}}
ROOM_RECORDS = {"lights": {"id": "the light's id", "name": "the light's name", "on": "whether the light is on",
                           "brightness": "its brightness, 0 to 100"}}


class RoomScreen(LightsScreen):
    def __init__(self, window):
        super().__init__(window)
        # Stored as the built-in stores it: {room, firstLight}, without `room` when none is chosen.
        window.state["firstLight"] = max(0, window.state.get("firstLight", 0))

    def page_of(self, ids):
        first = 0 if not ids else min(self.window.state["firstLight"], len(ids) - 1)
        return first, ids[first:first + max(1, self.window.session.rows)]

    def frame(self):
        c, room_id = self.container, self.window.state.get("room")
        frame = {"container": "preview" if c.preview else "live", "bridge": c.status(), "room": room_id}
        if room_id is None:
            frame.update({"name": None, "exists": None, "detecting": None, "count": 0, "firstRow": None, "lights": []})
            return frame
        room = c.room(room_id)
        first, page = self.page_of(room["lights"])
        lights = []
        for number in page:
            light = c.light(room_id, number)
            lights.append({"id": number, "name": light["name"], "on": light["on"], "brightness": light["brightness"]})
        frame.update({"name": room["name"], "exists": room["exists"], "detecting": room["detecting"],
                      "count": len(room["lights"]), "firstRow": first + 1 if room["lights"] else None,
                      "lights": lights})
        return frame

    def text(self, frame):
        if frame["name"] is None:
            return "no room chosen: `room ROOM`"
        header = f"{frame['name']} ({frame['container']}) · bridge {frame['bridge']}"
        if frame["detecting"]:
            header += " · detecting lights..."
        if frame["exists"] is False:
            header += " · the room is gone"
        lines = [header]
        for light in frame["lights"]:
            lines.append(f"  {light['id']}  [{'on ' if light['on'] else 'off'}] {light['name']} · {light['brightness']}%")
        if not frame["lights"]:
            lines.append("  (no lights)")
        shown = len(frame["lights"])
        if shown < frame["count"] and frame["firstRow"] is not None:
            first = frame["firstRow"]
            lines.append(f"  lights {first}-{first + shown - 1} of {frame['count']}: "
                         "`page next` and `page previous` move")
        return "\n".join(lines)

    def require_room(self):
        if self.window.state.get("room") is None:
            raise wb.Refused("this window shows no room yet: `room ROOM` picks one")
        return self.window.state.get("room")

    def light(self, number):
        room_id = self.require_room()
        room = self.container.room(room_id)
        if number not in room["lights"]:
            listed = ", ".join(str(i) for i in room["lights"])
            raise wb.Refused(f"no light {number} in {room['name']} (lights: {listed})")
        return room_id

    def switch(self, number, setting):
        room_id = self.light(number)
        on = {"on": True, "off": False}.get(setting)
        if on is None:
            on = not self.container.light(room_id, number)["on"]
        self.container.write(room_id, number, "on", on)

    def dim(self, number, percent):
        self.container.write(self.light(number), number, "brightness", percent)

    def page(self, forward):
        room_id = self.require_room()
        count, rows = len(self.container.room(room_id)["lights"]), max(1, self.window.session.rows)
        first = min(self.window.state["firstLight"], max(0, count - 1))
        following = first + rows if forward else first - rows
        if not 0 <= following < count:
            raise wb.Refused("this is the last page of lights" if forward else "this is the first page of lights")
        self.window.state["firstLight"] = following

    def scope_tree(self):
        lines, c, room_id = self.home_lines(), self.container, self.window.state.get("room")
        if room_id is None:
            return "\n".join(lines)
        room = c.room(room_id)
        lines += [f"  roomScope({room_id}) → RoomScope({room_id})",
                  f"    lightIDs = {json.dumps(room['lights'])}  [{c.kind}]",
                  f"    name = {room['name']}  [{c.kind}]",
                  f"    exists = {'true' if room['exists'] else 'false'}  [constant]",
                  f"    isDetecting = {'true' if room['detecting'] else 'false'}  [{c.kind}]"]
        for number in self.page_of(room["lights"])[1]:
            light = c.light(room_id, number)
            lines += [f"    lightScope({number}) → LightScope", f"      name = {light['name']}  [{c.kind}]",
                      f"      isOn = {'true' if light['on'] else 'false'}  [{c.writable}]",
                      f"      brightness = {light['brightness']}  [{c.writable}]"]
        return "\n".join(lines)


@module.screen("home", kind="home", fields=["container", "bridge", "rooms"], records=HOME_RECORDS)
class LiveHome(HomeScreen):
    container_type = LiveContainer


@module.screen("preview-home", kind="home", fields=["container", "bridge", "rooms"], records=HOME_RECORDS)
class PreviewHome(HomeScreen):
    container_type = PreviewContainer


@module.screen("room", kind="home", fields=ROOM_FIELDS, records=ROOM_RECORDS)
class LiveRoom(RoomScreen):
    container_type = LiveContainer


@module.screen("preview-room", kind="home", fields=ROOM_FIELDS, records=ROOM_RECORDS)
class PreviewRoom(RoomScreen):
    container_type = PreviewContainer


HOMES, ROOMS = ["home", "preview-home"], ["room", "preview-room"]
ROOM_ID = wb.word("room", help="a room id")
LIGHT_ID = wb.integer("light", help="a light id")


@module.command("enter", screens=HOMES, arguments=[ROOM_ID, wb.word("name", optional=True, help="the window's name")],
                summary="Open a window on a room: its child scope of this home's scope",
                window_effect={"opensFrom": {"screens": {"home": "room", "preview-home": "preview-room"},
                                             "nameArgument": "name"}})
def enter(window, room, name):
    room = window.screen.choose(room)
    screen = "preview-room" if window.screen.container.preview else "room"
    window.session.open_window(screen, window.document_name, name=name, state={"room": room, "firstLight": 0})


@module.command("room", screens=ROOMS, arguments=[ROOM_ID],
                summary="Show another room in this window (the room scope is resolved again)")
def choose_room(window, room):
    window.state["room"], window.state["firstLight"] = window.screen.choose(room), 0


@module.command("page", screens=ROOMS, arguments=[wb.choice("direction", ["next", "previous"])],
                summary="Show the next or previous page of the room's lights")
def page(window, direction):
    window.screen.page(direction == "next")


@module.command("switch", screens=ROOMS, arguments=[LIGHT_ID, wb.choice("state", ["on", "off", "toggle"])],
                summary="Switch a light through its writable connection")
def switch(window, number, setting):
    window.screen.switch(number, setting)


@module.command("dim", screens=ROOMS, arguments=[LIGHT_ID, wb.integer("percent", help="0 to 100")],
                summary="Set a light's brightness (0 to 100)")
def dim(window, number, percent):
    window.screen.dim(number, percent)


@module.command("detect", screens=ROOMS,
                summary="Look for new lights in this room (they turn up after 2 s on the session clock)")
def detect(window):
    window.screen.container.detect(window.screen.require_room())


@module.command("scopes", screens=HOMES + ROOMS,
                summary="Show the scopes and connections this window has resolved, as a tree")
def scopes(window):
    return window.screen.scope_tree()


module.group("bridge", "Play the bridge's side: a switch at the wall, a light added or removed, the bridge "
                       "offline or online", screens=HOMES + ROOMS)


@module.command("bridge switch", screens=HOMES + ROOMS, arguments=[LIGHT_ID, wb.choice("state", ["on", "off"])],
                summary="A light switched at the wall")
def bridge_switch(window, number, state):
    window.screen.require_bridge().switch_at_wall(number, state == "on")


@module.command("bridge add", screens=HOMES + ROOMS, summary="A light added to a room",
                arguments=[wb.word("room", help="the room it goes in"), wb.rest("name", help="what it is called")])
def bridge_add(window, room, name):
    window.screen.require_bridge().add_light(name, room)


@module.command("bridge remove", screens=HOMES + ROOMS, arguments=[LIGHT_ID], summary="A light removed")
def bridge_remove(window, number):
    window.screen.require_bridge().remove_light(number)


@module.command("bridge offline", screens=HOMES + ROOMS, summary="The bridge stops answering")
def bridge_offline(window):
    window.screen.require_bridge().reachable = False


@module.command("bridge online", screens=HOMES + ROOMS, summary="The bridge answers again")
def bridge_online(window):
    window.screen.require_bridge().reachable = True


if __name__ == "__main__":
    module.run()
