#!/usr/bin/env python3
"""A kanban board as a workbench module, written from docs/protocol.md with the standard
library only: columns of cards, a card added, moved or selected. Run it with
`workbench --module Examples/kanban/kanban.py`, check it with `workbench module-check`."""

import json
import struct
import sys

PROTOCOL = 1
SAMPLE = {
    "columns": [
        {"id": "todo", "name": "To do", "cards": [{"id": 1, "title": "Write the protocol"}, {"id": 2, "title": "Check a module"}]},
        {"id": "doing", "name": "Doing", "cards": [{"id": 3, "title": "A module in Python"}]},
        {"id": "done", "name": "Done", "cards": []},
    ]
}
FIELDS = ["columns", "selected", "count"]


class Refused(Exception):
    """A request the module answers with an error message."""


def write_message(stream, message):
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    stream.write(struct.pack(">I", len(body)) + body)
    stream.flush()


def check_board(board):
    """Raises Refused naming what is wrong; a board nobody can misread otherwise."""
    if not isinstance(board, dict) or not isinstance(board.get("columns"), list):
        raise Refused("columns is missing: a board is {\"columns\": [...]}")
    seen = {}
    for c, column in enumerate(board["columns"]):
        if not isinstance(column, dict) or not isinstance(column.get("id"), str):
            raise Refused(f"columns[{c}].id is missing")
        for k, card in enumerate(column.get("cards", [])):
            where = f"columns[{c}].cards[{k}]"
            if not isinstance(card, dict) or not isinstance(card.get("id"), int) or isinstance(card.get("id"), bool):
                raise Refused(f"{where}.id should be a whole number")
            if not isinstance(card.get("title"), str) or not card["title"].strip():
                raise Refused(f"{where}.title should be text")
            if card["id"] in seen:
                raise Refused(f"duplicate card id {card['id']} at {where} (also at {seen[card['id']]})")
            seen[card["id"]] = where


class Window:
    def __init__(self, board, state):
        self.board = board
        self.selected = None
        if state:
            try:
                self.selected = json.loads(state).get("selected")
            except (ValueError, AttributeError):
                self.selected = None  # a state we cannot read starts fresh (§4)

    def find(self, card_id):
        for column in self.board["columns"]:
            for card in column["cards"]:
                if card["id"] == card_id:
                    return column, card
        ids = sorted(card["id"] for column in self.board["columns"] for card in column["cards"])
        raise Refused(f"no card {card_id} (cards: {', '.join(map(str, ids))})")

    def column(self, column_id):
        for column in self.board["columns"]:
            if column["id"] == column_id:
                return column
        raise Refused(f"no column '{column_id}' (columns: {', '.join(c['id'] for c in self.board['columns'])})")

    def frame(self):
        if self.selected is not None and all(
            card["id"] != self.selected for column in self.board["columns"] for card in column["cards"]
        ):
            self.selected = None  # the card went away: nothing is selected
        columns = [
            {"id": c["id"], "name": c.get("name", c["id"]), "cards": [card["id"] for card in c["cards"]]}
            for c in self.board["columns"]
        ]
        return {"columns": columns, "selected": self.selected, "count": sum(len(c["cards"]) for c in columns)}

    def text(self):
        lines = []
        for column in self.board["columns"]:
            titles = [("▸ " if card["id"] == self.selected else "") + f"{card['id']} {card['title']}" for card in column["cards"]]
            lines.append(f"{column.get('name', column['id'])}: " + (", ".join(titles) if titles else "(empty)"))
        return "\n".join(lines)

    def result(self, commit=None):
        frame = self.frame()
        return {
            "type": "result", "frame": frame, "text": self.text(),
            "state": json.dumps({"selected": self.selected}), "output": None,
            "commit": json.dumps(self.board, separators=(",", ":")) if commit else None,
        }

    def run(self, line):
        words = line.split(" ")
        name = words[0]
        if name == "select":
            card_id = int(words[1])
            self.find(card_id)
            self.selected = card_id
            return self.result()
        if name == "add":
            column = self.column(words[1])
            title = " ".join(words[2:]).strip()
            if not title:
                raise Refused("a card needs a title: add COLUMN TITLE")
            ids = [card["id"] for c in self.board["columns"] for card in c["cards"]]
            column["cards"].append({"id": max(ids, default=0) + 1, "title": title})
            return self.result(commit=True)
        if name == "move":
            source, card = self.find(int(words[1]))
            target = self.column(words[2])
            source["cards"].remove(card)
            target["cards"].append(card)
            return self.result(commit=True)
        raise Refused(f"unknown command '{name}'")


def hello():
    def argument(name, kind, extra=None, help=""):
        return {"name": name, "kind": kind, "extra": extra, "optional": False, "help": help}

    return {
        "type": "hello", "protocol": PROTOCOL,
        "manifest": {"name": "kanban", "version": "0.1.0", "summary": "A kanban board, in Python"},
        "documentKinds": ["board"],
        "samples": [{"name": "board", "kind": "board", "body": json.dumps(SAMPLE)}],
        "screens": [{"name": "board", "documentKind": "board", "fields": FIELDS}],
        "commands": [
            {"name": "add", "summary": "Add a card to a column", "details": "", "screens": ["board"],
             "arguments": [argument("column", "word", help="a column id"), argument("title", "rest", help="the card's title")]},
            {"name": "move", "summary": "Move a card to another column", "details": "", "screens": ["board"],
             "arguments": [argument("card", "integer", help="a card id"), argument("column", "word", help="a column id")]},
            {"name": "select", "summary": "Select a card in this window", "details": "", "screens": ["board"],
             "arguments": [argument("card", "integer", help="a card id")]},
        ],
        "diagrams": [],
    }


def main():
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print goes to the log, never into the protocol (§1)
    write_message(sink, hello())
    documents = {}  # name -> (revision, board): the host leaves `body` out when we hold it (§5)
    windows = {}
    while True:
        header = source.read(4)
        if len(header) < 4:
            return 0  # the host closed our input: time to go (§10)
        body = source.read(struct.unpack(">I", header)[0])
        try:
            request = json.loads(body.decode("utf-8"))
        except (ValueError, RecursionError):
            request = None  # a whole message that does not read: answered below, and on we go
        try:
            if not isinstance(request, dict):
                raise Refused("the request could not be read: expected a JSON object")
            reply = answer(request, documents, windows)
        except Refused as refusal:
            reply = {"type": "error", "message": str(refusal)}
        except (ValueError, IndexError, KeyError, TypeError, AttributeError, RecursionError) as error:
            reply = {"type": "error", "message": f"the request could not be read: {error}"}
        if isinstance(request, dict) and "id" in request:
            reply["id"] = request["id"]  # the reply names the request it answers (§7)
        write_message(sink, reply)


def answer(request, documents, windows):
    kind = request.get("type")
    if kind == "validate":
        check_board(json.loads(request["body"]))
        return {"type": "ok"}
    if kind == "close":
        windows.pop(request.get("key"), None)
        return {"type": "ok"}
    if kind not in ("open", "refresh", "command"):
        raise Refused(f"unknown request '{kind}'")
    key = request["key"]
    if kind != "open" and key not in windows:
        raise Refused(f"no window {key} in the module")
    if "body" in request:
        board = json.loads(request["body"])
        check_board(board)
        documents[request["document"]] = (request["revision"], board)
    if request["document"] not in documents:
        raise Refused(f"the document '{request['document']}' was never sent")
    board = json.loads(json.dumps(documents[request["document"]][1]))  # each window works on its own copy
    if kind == "open":
        windows[key] = Window(board, request.get("state"))
        return windows[key].result()
    window = windows[key]
    window.board = board
    if request.get("state"):
        window.selected = Window(board, request["state"]).selected
    if kind == "refresh":
        return window.result()
    reply = window.run(request["line"])
    if reply["commit"]:
        documents[request["document"]] = (request["revision"] + 1, json.loads(reply["commit"]))
    return reply


if __name__ == "__main__":
    sys.exit(main())
