#!/usr/bin/env python3
"""The ledger (seed 004) on the Python kit: a transaction feed whose loads are one state machine,
run on the host's clock, with a simulated network, debounced search, retry, deep links,
disputes, an app session above the windows and money sent once per request id.

It is the built-in `ledger` module written again outside the host, and passes the built-in
module's own scenarios with the built-in switched off:

    workbench run --without-builtin ledger -m Examples/ledger/ledger.py Scenarios/ledger
"""

import workbench_module as wb

module = wb.Module("ledger", "1.0.0", "A transaction feed: MVVM with one state machine")

PAGE_SIZE = 50
LARGEST = 2**63 - 1  # ids and counts come from outside: arithmetic on them saturates, never overflows


def _sample():
    entries = [(250000, "Acme Payroll", "November salary"), (-4250, "Corner Grocer", "groceries"),
               (-12000, "City Power", "electricity"), (-899, "Streamly", "subscription"),
               (-3560, "Corner Grocer", "groceries"), (15000, "Sam Rivera", "dinner share"),
               (-60000, "Oak Street Rentals", "rent"), (-1250, "Bean Bar", "coffee")]
    return {
        "balance": {"cents": 183041},
        "transactions": [{"id": 41 + index, "amount": {"cents": cents}, "counterparty": who, "memo": memo}
                         for index, (cents, who, memo) in enumerate(entries)],
        "recipients": ["Sam Rivera", "Alex Kim", "Jo Park"],
        "sentRequests": {},
    }


def validate(document):
    if not isinstance(document.get("balance"), dict) or not isinstance(document["balance"].get("cents"), int):
        raise wb.Refused("balance: write it as {\"cents\": N}")
    seen = set()
    for index, transaction in enumerate(document.get("transactions", [])):
        if transaction.get("id") in seen:
            raise wb.Refused(f"transactions[{index}]: the id {transaction.get('id')} is used twice")
        seen.add(transaction.get("id"))


module.document_kind("ledger", samples={"account": _sample()}, validate=validate)


# Money: whole cents, never floating point.

def parse_money(text):
    """Cents for `12`, `12.5` or `-12.50`; None for anything else (`1e3`, `1.005`)."""
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    parts = digits.split(".")
    if not 1 <= len(parts) <= 2 or not parts[0] or not _ascii_digits(parts[0]) or len(parts[0]) > 13:
        return None
    cents = int(parts[0]) * 100
    if len(parts) == 2:
        fraction = parts[1]
        if not 1 <= len(fraction) <= 2 or not _ascii_digits(fraction):
            return None
        cents += int(fraction + "0" if len(fraction) == 1 else fraction)
    return -cents if negative else cents


def _ascii_digits(text):
    return all("0" <= character <= "9" for character in text)


def money(cents):
    magnitude = abs(cents)
    return ("-" if cents < 0 else "") + f"{magnitude // 100}.{magnitude % 100:02d}"


def describe(milliseconds):
    return f"{milliseconds // 1000}s" if milliseconds % 1000 == 0 else f"{milliseconds}ms"


def parse_duration(text):
    """Milliseconds for `300ms`, `2s`, `1.5s` or `1m`, as a recording writes them; None otherwise."""
    for suffix, scale in (("ms", 1), ("s", 1000), ("m", 60000)):
        if isinstance(text, str) and text.endswith(suffix):
            try:
                value = float(text[: -len(suffix)])
            except ValueError:
                return None
            return int(value * scale) if 0 <= value * scale <= 86_400_000 else None
    return None


# The feed's state machine: every transition in one table, as the seed asks.

def next_state(state, event, rows=()):
    """The state after `event`, or None when the event does nothing in `state`."""
    name = state[0]
    if (name, event) == ("idle", "appeared") or (name, event) == ("failed", "retry"):
        return ("loading",)
    if name == "loading" and event == "succeeded":
        return ("loaded", list(rows)) if rows else ("empty",)
    if name == "loading" and event == "failed":
        return ("failed",)
    if name in ("loaded", "empty") and event in ("refresh", "query"):
        return ("loading",)
    if name == "loading" and event == "query":
        return ("loading",)
    return None


EVENT_WORDS = {"appeared": "appearing", "succeeded": "a finished load", "failed": "a failed load",
               "retry": "retry", "refresh": "refresh", "query": "a new search"}
STATES = ["idle", "loading", "loaded", "empty", "failed"]
EVENTS = ["appeared", "succeeded", "failed", "retry", "refresh", "query"]
SWIFT_EVENTS = {"appeared": "appeared", "succeeded": "loadSucceeded", "failed": "loadFailed",
                "retry": "retryTapped", "refresh": "refreshPulled", "query": "queryChanged"}


def _feed_diagram():
    edges = []
    for state in STATES:
        for event in EVENTS:
            for rows in ([], [1]):
                target = next_state((state,), event, rows)
                if target is None:
                    continue
                label = SWIFT_EVENTS[event] + ((" (rows)" if rows else " (no rows)") if event == "succeeded" else "")
                if (state, target[0], label) not in edges:
                    edges.append((state, target[0], label))
    return edges


module.diagram("feed", "the feed's state machine", STATES, _feed_diagram(), state_machine=True, start="idle")


# Deep links: navigation is a value (a path of routes) that a link sets in one step.

def routes(link):
    prefix = "ledger://"
    if not link.startswith(prefix):
        raise wb.Refused(f"'{link}' is not a ledger link: links start with ledger://")
    parts = link[len(prefix):].split("/")
    if parts == [""]:
        return []
    if len(parts) < 2 or parts[0] != "transaction" or not _ascii_digits(parts[1]) or not parts[1] \
            or int(parts[1]) <= 0 or int(parts[1]) > LARGEST:
        raise wb.Refused(f"'{link}' does not name a transaction: write ledger://transaction/ID[/dispute]")
    number = int(parts[1])
    if len(parts) == 2:
        return [["detail", number]]
    if len(parts) == 3 and parts[2] == "dispute":
        return [["detail", number], ["dispute", number]]
    raise wb.Refused(f"'{link}' has an unknown part '{'/'.join(parts[2:])}'")


def link_for(path):
    if not path:
        return "ledger://"
    kind, number = path[-1]
    return f"ledger://transaction/{number}" + ("/dispute" if kind == "dispute" else "")


module.diagram(
    "routes", "the feed's routes and the deep links to them",
    ["feed", "detail(ID)", "dispute(ID)", "ledger://", "ledger://transaction/ID", "ledger://transaction/ID/dispute"],
    [("feed", "detail(ID)", "detail ID"), ("detail(ID)", "dispute(ID)", "dispute start"),
     ("dispute(ID)", "detail(ID)", "back"), ("detail(ID)", "feed", "back, or signing out"),
     ("ledger://", "feed", "path []"), ("ledger://transaction/ID", "detail(ID)", "path [detail(ID)]"),
     ("ledger://transaction/ID/dispute", "dispute(ID)", "path [detail(ID), dispute(ID)]")])


# The session's services: one simulated network and one app session, shared by its windows.

class Network:
    def __init__(self):
        self.online, self.latency, self.failures_to_come, self.fetches = True, 300, 0, 0

    def state(self):
        return {"online": self.online, "latency": describe(self.latency), "failuresToCome": self.failures_to_come,
                "requests": self.fetches}

    def adopt(self, state):
        self.online = state.get("online") is not False
        self.latency = parse_duration(state.get("latency")) or self.latency
        self.failures_to_come = max(0, state["failuresToCome"]) if isinstance(state.get("failuresToCome"), int) else 0
        self.fetches = max(0, state["requests"]) if isinstance(state.get("requests"), int) else 0

    def live_problem(self):
        if not self.online:
            return "you are offline"
        if self.failures_to_come > 0:
            self.failures_to_come -= 1
            return "the server did not answer"
        return None

    def admit(self, session, source, asked):
        """None when the server took a payment or dispute, or why not: a fact, recorded."""
        answer = session.fact(source, self.live_problem, asked=asked)
        if answer is not None:
            return answer if isinstance(answer, str) else "the recorded answer is unreadable"
        self.fetches = min(LARGEST, self.fetches + 1)
        return None


class AppSession:
    def __init__(self):
        self.state = "active"  # signed out, locked, active

    def change(self, session, state):
        self.state = state
        for window in list(session.windows.values()):
            if isinstance(window.screen, Feed):
                # Each feed's load is its own window's, whichever window's command changed the session.
                with session.as_window(window):
                    window.screen.session_changed()


def network(session):
    def make():
        net = Network()
        # The state the network starts in: as it is now, or as a recording started with.
        state = session.state("network.state", net.state, lambda: net.state(), scope="network")
        net.adopt(state if isinstance(state, dict) else {})
        return net
    return session.service("network", make)


def app_session(session):
    return session.service("app session", AppSession)


def runs(ids):
    """`[41, 42, 43, 47]` as `["41-43", 47]`: a recorded answer stays short."""
    result, index = [], 0
    while index < len(ids):
        end = index
        while end + 1 < len(ids) and ids[end] < LARGEST and ids[end + 1] == ids[end] + 1:
            end += 1
        result.append(f"{ids[index]}-{ids[end]}" if end - index >= 2 else ids[index])
        if end - index == 1:
            result.append(ids[end])
        index = end + 1
    return result


def ids_from_runs(values):
    ids = []
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool):
            ids.append(value)
            continue
        first, _, last = value.partition("-") if isinstance(value, str) else ("", "", "")
        if not (first.isdigit() and last.isdigit()) or int(first) > int(last) or int(last) - int(first) >= 10_000_000:
            return None
        ids.extend(range(int(first), int(last) + 1))
    return ids


def matching(document, query):
    needle = query.lower()
    transactions = document.get("transactions", [])
    if not needle:
        return list(transactions)
    return [t for t in transactions if needle in (t["counterparty"] + "\n" + t["memo"]).lower()]


TRANSACTION = {"id": "the transaction's id", "counterparty": "who the money went to or came from",
               "amount": "the amount with two decimals, negative when sent; ••• unless the session is active",
               "memo": "the transaction's memo"}


@module.screen("feed", kind="ledger", lifetime=["fetchesStarted"],
               own=["state", "isLoading", "rows", "count", "message", "canRetry", "detail"], fields=[
    "session", "state", "isLoading", "query", "rows", "count", "message", "canRetry", "fetchesStarted",
    "serverRequests", "balance", "path", "link", "detail", "dispute"],
               records={"rows": TRANSACTION, "detail": TRANSACTION, "dispute": {
                   "transaction": "the id of the disputed transaction",
                   "step": "where the dispute is: choosingReason, reviewing or submitted",
                   "reason": "why, as given with `dispute reason`, or null until then"}})
class Feed(wb.Screen):
    """A feed window: its view state (search, debounce, path, dispute) is the window's; the load
    is a timer on the session's clock, cancelled and started again by a new search."""

    def __init__(self, window):
        super().__init__(window)
        # The view state is stored as the built-in module stores it, so a workspace's windows
        # open with either: {query, debounceMilliseconds, path: [{"detail": {"_0": 42}}],
        # dispute: {transactionID, step, reason}}.
        window.state.setdefault("query", "")
        window.state.setdefault("debounceMilliseconds", 0)
        window.state.setdefault("path", [])
        self.feed = ("idle",)
        self.message = ""
        self.generation = 0
        self.fetches_started = 0
        self.appear()

    # The view state's path and dispute, as routes and a flow.

    @property
    def path(self):
        return [[kind, value["_0"]] for route in self.window.state["path"] for kind, value in route.items()]

    @path.setter
    def path(self, routes):
        self.window.state["path"] = [{kind: {"_0": number}} for kind, number in routes]

    @property
    def flow(self):
        flow = self.window.state.get("dispute")
        return None if flow is None else {"transaction": flow["transactionID"], "step": flow["step"],
                                          "reason": flow.get("reason")}

    @flow.setter
    def flow(self, flow):
        if flow is None:
            self.window.state.pop("dispute", None)
            return
        stored = {"transactionID": flow["transaction"], "step": flow["step"]}
        if flow["reason"] is not None:
            stored["reason"] = flow["reason"]
        self.window.state["dispute"] = stored

    # The machine.

    def apply(self, event, rows=(), message=""):
        following = next_state(self.feed, event, rows)
        if following is None:
            raise wb.Refused(f"the feed is {self.feed[0]}: {EVENT_WORDS[event]} does nothing now")
        self.feed = following
        if following[0] == "failed":
            self.message = message
        if following[0] == "loading":
            self.start_load()

    def land(self, event, rows=(), message=""):
        """A load's end: the machine takes it if it is still loading (a feed that was signed
        out meanwhile is not)."""
        try:
            self.apply(event, rows, message)
        except wb.Refused:
            pass

    def appear(self):
        if app_session(self.window.session).state != "signed out" and self.feed[0] == "idle":
            self.apply("appeared")

    def timer_id(self):
        return f"load {self.window.key}"

    def start_load(self):
        clock = self.window.session.clock
        clock.cancel(self.timer_id())
        self.generation += 1
        mine, query = self.generation, self.window.state["query"]

        def fetch():
            if self.generation != mine:
                return
            self.fetches_started = min(LARGEST, self.fetches_started + 1)
            self.fetch(query, mine)

        if self.window.state["debounceMilliseconds"] > 0:
            clock.schedule(self.window.state["debounceMilliseconds"], fetch, id=self.timer_id())
        else:
            fetch()

    def fetch(self, query, mine):
        session, net = self.window.session, network(self.window.session)
        asked = {"query": query}
        latency = parse_duration(session.fact("network.latency", lambda: describe(net.latency), asked=asked))

        def answered():
            if self.generation != mine:
                return  # a superseded load never lands
            live_rows = []

            def live():
                problem = net.live_problem()
                if problem is not None:
                    return {"failure": problem}
                live_rows.append(matching(self.window.document, query))
                return {"rows": runs([t["id"] for t in live_rows[0]])}

            answer = session.fact("network.answer", live, asked=asked)
            if isinstance(answer, dict) and isinstance(answer.get("failure"), str):
                self.land("failed", message=answer["failure"])
                return
            ids = ids_from_runs(answer.get("rows", [])) if isinstance(answer, dict) else None
            if ids is None:
                self.land("failed", message=f"the recorded answer is unreadable: {answer}")
                return
            # A replay's set-up loads the windows its recording started with; the requests they
            # made are in the network's recorded state already.
            if not session.replaying_start:
                net.fetches = min(LARGEST, net.fetches + 1)
            if live_rows:
                self.land("succeeded", rows=live_rows[0])
                return
            by_id = {t["id"]: t for t in self.window.document.get("transactions", [])}
            self.land("succeeded", rows=[by_id[i] for i in ids if i in by_id])

        session.clock.schedule(net.latency if latency is None else latency, answered, id=self.timer_id())

    def session_changed(self):
        state = app_session(self.window.session).state
        if state == "signed out":
            self.window.session.clock.cancel(self.timer_id())
            self.generation += 1
            self.path, self.flow = [], None
            self.feed = ("idle",)
        elif state == "active":
            self.appear()

    def restored(self, previous):
        # Signed out, there is no navigation to give back (undo after a sign-out collapsed it).
        if app_session(self.window.session).state == "signed out":
            self.path, self.flow = [], None
        if self.window.state.get("query", "") != previous.get("query", "") and self.feed[0] != "idle":
            try:
                self.apply("query")
            except wb.Refused:
                pass

    def closed(self):
        self.window.session.clock.cancel(self.timer_id())

    # What the commands do.

    def search(self, query):
        previous = self.window.state["query"]
        self.window.state["query"] = query
        try:
            self.apply("query")
        except wb.Refused:
            self.window.state["query"] = previous
            raise

    def require_active(self, suffix=""):
        state = app_session(self.window.session).state
        if state != "active":
            raise wb.Refused(f"the session is {state}{suffix}")

    def transaction(self, number):
        return next((t for t in self.window.document.get("transactions", []) if t["id"] == number), None)

    def detail(self, number):
        self.require_active()
        if self.transaction(number) is None:
            raise wb.Refused(f"no transaction detail({number})")
        self.path, self.flow = [["detail", number]], None

    def follow(self, link):
        path = routes(link)
        for kind, number in path:
            if kind == "detail" and self.transaction(number) is None:
                raise wb.Refused(f"{link}: there is no transaction {number}")
        self.require_active()
        self.path = path
        self.flow = (
            {"transaction": path[-1][1], "step": "choosing reason", "reason": None}
            if path and path[-1][0] == "dispute" else None)

    def back(self):
        path = self.path
        if not path:
            raise wb.Refused("already at the feed")
        if path.pop()[0] == "dispute":
            self.flow = None
        self.path = path

    def dispute(self, step, reason=None):
        path, flow = self.path, self.flow
        if not path or path[0][0] != "detail":
            raise wb.Refused("open a transaction first (`detail ID`)")
        number, now = path[0][1], flow["step"] if flow else None
        if step == "start" and now is None:
            self.path = [["detail", number], ["dispute", number]]
            self.flow = {"transaction": number, "step": "choosing reason", "reason": None}
        elif step == "reason" and now in ("choosing reason", "reviewing"):
            if not reason or reason.isspace():
                raise wb.Refused("say why: dispute reason TEXT")
            self.flow = dict(flow, reason=reason, step="reviewing")
        elif step == "submit" and now == "reviewing":
            asked = {"transaction": number, "reason": flow["reason"]}
            problem = network(self.window.session).admit(self.window.session, "network.dispute", asked)
            if problem is not None:
                raise wb.Refused(f"the dispute was not submitted: {problem}; submit again")
            self.flow = dict(flow, step="submitted")
        else:
            raise wb.Refused(f"the dispute is {now or 'not started'}: `dispute {step}` does not apply")

    def send(self, text, request, recipient):
        self.require_active(": sign in to send")
        document = self.window.document
        amount = parse_money(text)
        if amount is None or amount <= 0:
            raise wb.Refused(f"'{text}' is not an amount to send: write a positive amount with at most two decimals")
        if amount > document["balance"]["cents"]:
            raise wb.Refused(f"{money(amount)} is more than the balance {money(document['balance']['cents'])}")
        recipients = document.get("recipients", [])
        if recipient not in recipients:
            raise wb.Refused(f"'{recipient}' is not a recipient" + wb.did_you_mean(recipient, recipients)
                             + f" (recipients: {', '.join(recipients)})")
        sent = document.setdefault("sentRequests", {})
        if request in sent:
            raise wb.Refused(f"request {request} was already sent as transaction {sent[request]}; "
                             "nothing was sent again")
        asked = {"request": request, "amount": text, "recipient": recipient}
        problem = network(self.window.session).admit(self.window.session, "network.send", asked)
        if problem is not None:
            raise wb.Refused(f"not sent: {problem}; send again with the same request id {request} when you are back")
        ids = [t["id"] for t in document.get("transactions", [])]
        largest = max([0] + ids)
        number = largest + 1 if largest < LARGEST else next(n for n in range(1, len(ids) + 2) if n not in set(ids))
        document.setdefault("transactions", []).append(
            {"id": number, "amount": {"cents": -amount}, "counterparty": recipient, "memo": "sent"})
        document["balance"]["cents"] -= amount
        sent[request] = number

    # The frame and its text.

    def frame(self):
        signed, hidden = app_session(self.window.session).state, app_session(self.window.session).state != "active"

        def row(t):
            return {"id": t["id"], "counterparty": t["counterparty"],
                    "amount": "•••" if hidden else money(t["amount"]["cents"]), "memo": t["memo"]}

        loaded = self.feed[1] if self.feed[0] == "loaded" and signed != "signed out" else []
        path, flow = self.path, self.flow
        detail = self.transaction(path[0][1]) if path and path[0][0] == "detail" else None
        return {
            "session": signed,
            "state": self.feed[0],
            "isLoading": self.feed[0] == "loading",
            "query": self.window.state["query"],
            "rows": [row(t) for t in loaded[:min(PAGE_SIZE, max(1, self.window.session.rows))]],
            "count": len(loaded),
            "message": self.message if self.feed[0] == "failed" else None,
            "canRetry": self.feed[0] == "failed",
            "fetchesStarted": self.fetches_started,
            "serverRequests": network(self.window.session).fetches,
            "balance": "•••" if hidden else money(self.window.document["balance"]["cents"]),
            "path": [f"{kind}({number})" for kind, number in path],
            "link": link_for(path),
            "detail": row(detail) if detail else None,
            "dispute": flow,
        }

    def text(self, frame):
        lines = [f"feed · {frame['state']} · session {frame['session']} · balance {frame['balance']}"]
        if frame["query"]:
            lines.append(f"search: {frame['query']}")
        lines += {"loading": ["  loading..."], "empty": ["  no transactions"],
                  "failed": [f"  could not load: {frame['message']} · `retry`"]}.get(frame["state"], [])
        lines += [f"  {r['id']}  {r['counterparty']}  {r['amount']}  {r['memo']}" for r in frame["rows"]]
        if frame["count"] > len(frame["rows"]):
            lines.append(f"  ↓ {frame['count'] - len(frame['rows'])} more")
        if frame["detail"]:
            d = frame["detail"]
            lines.append(f"detail: #{d['id']} {d['counterparty']} {d['amount']} ({frame['link']})")
        if frame["dispute"]:
            reason = frame["dispute"]["reason"]
            lines.append(f"dispute: {frame['dispute']['step']}" + (f" · {reason}" if reason else ""))
        return "\n".join(lines)


# Commands. The host checks every line against these specs before the module sees it.

FEED = ["feed"]


@module.command("search", screens=FEED, arguments=[wb.rest("text", optional=True, help="none clears the search")],
                summary="Search the feed: the running load is cancelled and a new one starts")
def search(window, text):
    window.screen.search(text or "")


@module.command("retry", screens=FEED, summary="Load again after a failure")
def retry(window):
    window.screen.apply("retry")


@module.command("refresh", screens=FEED, summary="Load the feed again")
def refresh(window):
    window.screen.apply("refresh")


@module.command("debounce", screens=FEED, summary="Wait this long after a search before fetching",
                arguments=[wb.integer("milliseconds", 0, 10000, help="0 turns it off")])
def debounce(window, milliseconds):
    window.state["debounceMilliseconds"] = milliseconds


@module.command("detail", screens=FEED, arguments=[wb.integer("id", help="a transaction id")],
                summary="Open a transaction's detail (the navigation path becomes [detail(ID)])")
def detail(window, number):
    window.screen.detail(number)


@module.command("back", screens=FEED, summary="Go back one screen")
def back(window):
    window.screen.back()


@module.command("link", screens=FEED, arguments=[wb.word("url", help="ledger://transaction/ID[/dispute]")],
                summary="Follow a deep link: parsed into a path and assigned in one step")
def link(window, url):
    window.screen.follow(url)


module.group("dispute", "Dispute the open transaction: start, give a reason, submit", screens=FEED)


@module.command("dispute start", screens=FEED, summary="Start disputing the open transaction")
def dispute_start(window):
    window.screen.dispute("start")


@module.command("dispute reason", screens=FEED, arguments=[wb.rest("reason", help="why")], summary="Say why")
def dispute_reason(window, reason):
    window.screen.dispute("reason", reason)


@module.command("dispute submit", screens=FEED, summary="Send the dispute")
def dispute_submit(window):
    window.screen.dispute("submit")


@module.command("send", screens=FEED, summary="Send money; a retry with the same request id never sends twice",
                arguments=[wb.word("amount", help="a positive amount with at most two decimals: 12.50"),
                           wb.word("request", help="a request id: sending twice with one id sends once"),
                           wb.rest("recipient", help="who gets it")])
def send(window, amount, request, recipient):
    window.screen.send(amount, request, recipient)


module.group("network", "Control the simulated network: online, offline, fail the next N requests, latency in ms")


def _session_of(window, session):
    return window.session if window is not None else session


@module.command("network online", summary="Answer requests again")
def network_online(window, session=None):
    network(_session_of(window, session)).online = True


@module.command("network offline", summary="Fail every request as offline")
def network_offline(window, session=None):
    network(_session_of(window, session)).online = False


@module.command("network fail", summary="Fail the next N requests",
                arguments=[wb.integer("requests", 1, 100000, optional=True, help="how many (1 when left out)")])
def network_fail(window, requests, session=None):
    network(_session_of(window, session)).failures_to_come = requests or 1


@module.command("network latency", summary="Answer every request after this delay",
                arguments=[wb.integer("milliseconds", 0, 100000, help="the delay of every answer")])
def network_latency(window, milliseconds, session=None):
    network(_session_of(window, session)).latency = milliseconds


@module.command("session", arguments=[wb.choice("change", ["sign-out", "sign-in", "lock", "unlock"])],
                summary="Change the app session: signing out collapses navigation in every ledger window; "
                        "locked hides amounts")
def change_session(window, change, session=None):
    session = _session_of(window, session)
    app = app_session(session)
    if change == "sign-out":
        app.change(session, "signed out")
    elif change == "lock":
        if app.state != "active":
            raise wb.Refused("only an active session can be locked")
        app.change(session, "locked")
    else:
        app.change(session, "active")


if __name__ == "__main__":
    module.run()
