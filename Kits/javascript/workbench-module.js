'use strict';
/**
 * The workbench module kit for JavaScript (Node 18 or later, no dependencies).
 *
 * A module declares its document kinds, screens, commands and live sources; the kit speaks the
 * protocol (docs/protocol.md): the framing, the handshake and its version, windows, documents
 * and commits, the session's clock (the host's time in every request, timers), updates of other
 * windows, sessions, live changes, and the facts a recording keeps and a replay gives back. A
 * module never writes any of that by hand.
 *
 *     const wb = require('workbench-module');
 *     const kettle = new wb.Module('kettle', '1.0', 'a kettle that boils on the session clock');
 *     kettle.documentKind('kettle', { samples: { kettle: { litres: 1 } } });
 *     kettle.screen('kettle', { kind: 'kettle', fields: ['state'] }, class extends wb.Screen {
 *       frame() { return { state: 'cold' }; }
 *     });
 *     kettle.command('boil', { screens: ['kettle'], arguments: [wb.integer('ms', 0, 86400000)] },
 *       (window, ms) => { window.session.clock.schedule(ms, () => {}); });
 *     kettle.run();
 */

const fs = require('node:fs');

const version = '2.7.0';

/** A request or command the module refuses: the host shows the message (protocol §7). */
class Refused extends Error {}

// Arguments of a command, as the handshake declares them (§3). The host checks a line against
// them and sends them bound, by name; the kit passes them to the handler in order.

function integer(name, low = null, high = null, { optional = false, help = '' } = {}) {
  const extra = low !== null && high !== null ? [low, high] : null;
  return { name, kind: 'integer', extra, optional, help };
}

function word(name, { optional = false, help = '' } = {}) {
  return { name, kind: 'word', extra: null, optional, help };
}

function rest(name, { optional = false, help = '' } = {}) {
  return { name, kind: 'rest', extra: null, optional, help };
}

function choice(name, words, { optional = false, help = '' } = {}) {
  return { name, kind: 'choice', extra: [...words], optional, help };
}

/**
 * An argument naming an open window (protocol 2): the handler is given that window when it is one
 * of this module's, and null when it shows another module's screen.
 */
function window(name, { optional = false, help = '' } = {}) {
  return { name, kind: 'window', extra: null, optional, help };
}

/**
 * `. Did you mean 'x'?` for the candidate closest to a mistyped `typed`, or '' when none is
 * close: the host's rule (edit distance growing with the word's length, or a prefix).
 */
function didYouMean(typed, candidates) {
  const lowered = typed.toLowerCase();
  let best = null;
  for (const candidate of candidates) {
    const distance = editDistance(lowered, candidate.toLowerCase());
    if (best === null || distance < best[1]) best = [candidate, distance];
  }
  if (best === null) return '';
  if (best[1] <= Math.max(1, Math.min(3, Math.floor(typed.length / 3)))) return `. Did you mean '${best[0]}'?`;
  const prefixed = candidates.filter((candidate) => candidate.toLowerCase().startsWith(lowered)).sort();
  return lowered.length >= 2 && prefixed.length > 0 ? `. Did you mean '${prefixed[0]}'?` : '';
}

/** The restricted Damerau-Levenshtein distance (swaps of neighbours count one). */
function editDistance(a, b) {
  if (!a || !b) return a.length + b.length;
  let before = new Array(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i, ...new Array(b.length).fill(0)];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        current[j] = Math.min(current[j], before[j - 2] + 1);
      }
    }
    before = previous;
    previous = current;
  }
  return previous[b.length];
}

/**
 * A record's fields as the handshake declares them (§3): each with what it means (text), and the
 * fields of a record it holds in turn (`[meaning, {fields}]`, or `{fields}` alone).
 */
function recordFields(fields) {
  return Object.entries(fields).map(([name, said]) => {
    let [summary, inner] = [null, null];
    if (typeof said === 'string') summary = said;
    else if (Array.isArray(said)) [summary, inner] = said;
    else if (said !== null && typeof said === 'object') inner = said;
    const declared = { name };
    if (typeof summary === 'string') declared.summary = summary;
    if (inner !== null && typeof inner === 'object' && Object.keys(inner).length > 0) declared.fields = recordFields(inner);
    return declared;
  });
}

/** JSON with keys sorted and `, ` and `: ` between them: one text for one value, in any kit. */
function stableJSON(value) {
  if (Array.isArray(value)) return `[${value.map(stableJSON).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}: ${stableJSON(value[key])}`).join(', ')}}`;
  }
  return value === undefined ? 'null' : JSON.stringify(value);
}

/**
 * A kind of window. Extend it: `frame()` is what scenarios assert on (an object), `text(frame)`
 * what the shell shows. `this.window` is the window, with its document, view state and session.
 */
class Screen {
  constructor(window) {
    this.window = window;
  }

  frame() {
    return {};
  }

  text(frame) {
    return stableJSON(frame);
  }

  /** After the host gave the window a restored view state (a relaunch, `undo view`). */
  restored(previous) {}

  /** The window's document was replaced from outside (an import, an undo). */
  documentReplaced() {}

  /** The window closes: cancel what it started. */
  closed() {}

  /**
   * What the window holds that is not saved to its document (a draft), in words, or null:
   * `quit`, `close` and `relaunch` ask about it, and the answer calls `save` or `discard`.
   */
  unsaved() {
    return null;
  }

  /** Saves the unsaved work to `window.document` (throw `Refused` when it cannot be saved). */
  save() {
    throw new Refused('this window has nothing to save');
  }

  /** Drops the unsaved work. */
  discard() {}
}

/**
 * A window of a session: its screen, the document it shows (an object you may replace: the kit
 * commits it), its view state (an object kept by the host) and the session it belongs to.
 */
class Window {
  constructor(session, key, screenName, documentName, state) {
    this.session = session;
    this.key = key;
    this.screenName = screenName;
    this.documentName = documentName;
    this.state = state;
    this.screen = null;
  }

  get document() {
    return this.session._documents.get(this.documentName);
  }

  set document(value) {
    this.session._documents.set(this.documentName, value);
  }

  result() {
    return this._result(this.screen.frame(), stableJSON(this.state));
  }

  /** The window as the host takes it, from its frame and view state as text: the text is drawn here, once it is known to be sent. */
  _result(frame, state) {
    const result = { frame, text: this.screen.text(frame), state };
    const unsaved = this.screen.unsaved();
    if (unsaved !== null && unsaved !== undefined) result.unsaved = String(unsaved); // asked about before it goes (§20)
    return result;
  }
}

/**
 * A session's clock, which is the host's: `now` is the session's time the request being
 * answered carries (milliseconds since the session started: a scenario's virtual clock, real
 * time in the shell), and a timer runs when the host says it is due (§14). So a scenario's
 * `clock advance` and `settle` drive it as they drive a built-in module, and a replay gives it
 * the times the recording had.
 */
class Clock {
  constructor(session) {
    this._session = session;
    this.now = 0;
    this._timers = new Map(); // id -> {due, order, callback, key}
    // Timers cancelled lately, by id (the latest under each), which an undo may put back
    // (`undo view` after the command that cancelled it, §18): the most recent 256.
    this._dropped = new Map();
    this._order = 0;
    // Where the clock reads 0 on the calendar, in milliseconds since 1970-01-01T00:00:00Z: the
    // host's (a request's `date` less its `now`, §14); a scenario's default until told.
    this._origin = 1767225600000;
  }

  /**
   * `now` on the calendar, in milliseconds since 1970-01-01T00:00:00Z (UTC): the host's date, so
   * a replay reads the dates its recording read (§14). Keep days as `Math.floor(date / 86400000)`.
   */
  get date() {
    return this._origin + this.now;
  }

  /** `date` as a JavaScript `Date`. */
  toDate() {
    return new Date(this.date);
  }

  /**
   * Calls `callback()` once `after` milliseconds of the session's time have passed; an id given
   * again replaces the timer. Returns the id (`cancel(id)` drops it).
   */
  schedule(after, callback, id = null) {
    this._order += 1;
    const timerId = id ?? `t${this._order}`;
    const due = this.now + Math.max(0, Math.trunc(after));
    this._dropped.delete(timerId);
    this._timers.set(timerId, { due, order: this._order, callback, key: this._session._currentKey });
    return timerId;
  }

  cancel(timerId) {
    const timer = this._timers.get(timerId);
    if (timer === undefined) return;
    this._timers.delete(timerId);
    this._dropped.delete(timerId);
    this._dropped.set(timerId, timer);
    if (this._dropped.size > 256) this._dropped.delete(this._dropped.keys().next().value);
  }

  /**
   * What an undo or redo did to the window's timers, as a `restore` says (§18): takes away the
   * timers named in `takeAway` (kept, for a redo) and puts back those in `putBack`, each at its
   * time with the callback it had.
   */
  _move(putBack, takeAway) {
    const returned = [];
    for (const timerId of takeAway) {
      if (typeof timerId === 'string') this.cancel(timerId);
    }
    for (const timer of putBack) {
      // Kept when cancelled, or waiting still when the command set it again under its id (then
      // it keeps the callback it was set again with).
      const kept = typeof timer?.id === 'string' ? this._dropped.get(timer.id) ?? this._timers.get(timer.id) : undefined;
      if (kept === undefined || !Number.isInteger(timer.at)) continue;
      this._dropped.delete(timer.id);
      this._order += 1;
      this._timers.set(timer.id, { ...kept, due: timer.at, order: this._order });
      returned.push(timer.id);
    }
    return returned;
  }

  /** When a pending timer is due, or null. */
  due(timerId) {
    return this._timers.get(timerId)?.due ?? null;
  }

  /** Runs every timer due by `due` (before it, without `includingDue`), in order, moving the clock to each. */
  _advanceTo(due, includingDue = true) {
    for (;;) {
      let next = null;
      for (const [timerId, timer] of this._timers) {
        if (timer.due > due || (!includingDue && timer.due === due)) continue;
        if (next === null || timer.due < next[1].due || (timer.due === next[1].due && timer.order < next[1].order)) {
          next = [timerId, timer];
        }
      }
      if (next === null) break;
      const [timerId, timer] = next;
      this.now = Math.max(this.now, timer.due);
      this._fire(timerId);
    }
    this.now = Math.max(this.now, due);
  }

  /**
   * Runs a pending timer now, with the clock where it is: at its time when the clock reached it,
   * or before it when the host names it early (a window opened again catching up with what the
   * one it replaces had finished, §14).
   */
  _fire(timerId) {
    const timer = this._timers.get(timerId);
    if (timer === undefined) return;
    this._timers.delete(timerId);
    const previous = this._session._currentKey;
    this._session._currentKey = timer.key;
    const kept = new Checkpoint(this._session);
    try {
      timer.callback();
    } catch (error) {
      // A timer's work that fails is the module's bug: said in its log and put back; the other
      // timers and the windows' updates still go out.
      kept.putBack();
      console.error(error);
    } finally {
      this._session._currentKey = previous;
    }
  }
}

/**
 * What the module keeps for one of the host's sessions (§16): its windows, its clock, the
 * objects its windows share (`service`), and the facts its effects take from outside.
 */
class Session {
  constructor(module, number) {
    this.module = module;
    this.number = number;
    this.windows = new Map();
    this.clock = new Clock(this);
    this.shared = new Map();
    this.rows = 20; // how many rows a window shows at once (the host's `--rows`, §4)
    this.replaying = false; // a replay's session: its live sources' events come from the recording
    this.replayingStart = false;
    this._currentKey = null;
    this._relay = null;
    this._reported = new Map(); // timer id -> when it is due, as the host was told
    this._lastSent = new Map();
    this._opened = [];
    this._closed = [];
    this._nextKey = 0;
    this._captures = new Map(); // "scope\u0000source" -> a function giving the state now
    this._revisions = new Map(); // document name -> the revision the host last gave
    this._documents = new Map(); // document name -> body: each session has its own documents
    this._committed = new Map(); // document name -> its text as the host holds it (sent, or committed)
  }

  /** The session's one object named `name` (a bridge per home), made on first use. */
  /**
   * Runs `fn(window)` as `window`'s work: the facts it takes and the timers it sets are that
   * window's (§12), as when the host asks that window. For work a request does for other windows
   * than its own (a sign-out every feed reloads on): a window opened again is then served what it
   * took itself.
   */
  asWindow(window, fn) {
    const previous = this._currentKey;
    this._currentKey = window.key;
    try {
      return fn(window);
    } finally {
      this._currentKey = previous;
    }
  }

  service(name, make) {
    if (!this.shared.has(name)) this.shared.set(name, make());
    return this.shared.get(name);
  }

  /**
   * A value from outside the session (a network answer, a device's state): `live()` now, kept
   * while the host records; the recorded value while it replays (§12). `asked` is the question
   * a fact answers: a replay serves an answer only to the same question. `scope` names a scope
   * the session shares (`network`); by default the fact is the window's whose work asks for it.
   */
  fact(source, live, { asked = undefined, scope = undefined } = {}) {
    const relay = this._relay;
    if (relay === null || (relay.start && !source.endsWith('.state'))) return live();
    const window = scope !== undefined ? null : this._currentKey;
    const place = scope !== undefined ? `scope\u0000${scope}` : `window\u0000${window}`;
    const counter = `${place}\u0000${source}`;
    const count = relay.counts.get(counter) ?? 0;
    relay.counts.set(counter, count + 1);
    let value;
    if (relay.again && relay.replaying) {
      // Windows opened again: each source's list holds the latest answer the session took to each
      // question, the latest last; the one to the same question is used (§12 `again`).
      const values = relay.recorded.get(place)?.[source] ?? [];
      const keepsQuestion = (v) => v !== null && typeof v === 'object' && 'asked' in v;
      const answers = values.filter(
        (v) => asked === undefined || !keepsQuestion(v) || stableJSON(v.asked) === stableJSON(asked));
      if (answers.length > 0) {
        const found = answers[answers.length - 1];
        value = asked !== undefined && keepsQuestion(found) ? found.answer : found;
      } else {
        value = live();
        relay.divergence ??=
          `opened again, the window asked ${source}` + (asked !== undefined ? ` for ${JSON.stringify(asked)}` : '') +
          ', which the session never took: it asks the outside world something new as it opens';
      }
    } else if (relay.replaying) {
      const values = relay.recorded.get(place)?.[source] ?? [];
      if (count < values.length) {
        const recorded = values[count];
        if (asked !== undefined && recorded !== null && typeof recorded === 'object' && 'asked' in recorded) {
          if (stableJSON(recorded.asked) !== stableJSON(asked)) {
            relay.divergence ??=
              `the replay asked ${source} #${count + 1} for ${JSON.stringify(asked)}, and the recording answered it ` +
              `for ${JSON.stringify(recorded.asked)}: the step asks something else than when it was recorded`;
            value = live();
          } else {
            value = recorded.answer;
          }
        } else {
          value = recorded;
        }
      } else {
        value = live();
        relay.divergence ??= `the module asked for more ${source} facts than the recording has left`;
      }
    } else {
      value = live();
    }
    const reported = { source, value };
    if (asked !== undefined) reported.asked = asked;
    if (scope !== undefined) reported.scope = scope;
    else if (window !== null && window !== relay.key) reported.window = window;
    relay.used.push(reported);
    return value;
  }

  /**
   * The state a long-lived service of the session starts in: `live()` now, or the state a
   * recording started with while it replays; `capture()` gives the service's state as it is,
   * for a recording that starts while the service exists (§12 `capture`).
   */
  state(source, live, capture, scope) {
    const name = source.endsWith('.state') ? source : `${source}.state`;
    this._captures.set(`${scope}\u0000${name}`, capture);
    return this.fact(name, live, { scope });
  }

  /** Opens a window from a command or a timer (a room from a home, §17): the host opens it too. */
  openWindow(screenName, documentName, { name = null, state = null } = {}) {
    this._nextKey += 1;
    const window = this.module._makeWindow(this, `k${this._nextKey}`, screenName, documentName, state ?? {});
    this._opened.push([window, name]);
    return window;
  }

  /** Closes a window from a command or a timer (§17). */
  closeWindow(window) {
    if (this.windows.delete(window.key)) window.screen.closed();
    this._closed.push(window.key);
  }

  /**
   * A live source of the module's (`module.liveSource(source, ...)`) saw `event` (a device's own
   * event). The host is told, unasked (§19), and hands the event back when it takes the change
   * in, at that moment of the session's time: the source's handler applies it then, live and on
   * a replay alike (a recording keeps the event; a replay's session ignores its own sources).
   */
  live(source, event) {
    this.module._live(this, source, event);
  }
}

/**
 * What a session holds as the module's code begins a piece of work (a request, a timer): its
 * documents and its windows' view states as text, its timers and its windows. A refused piece of
 * work changes nothing (§5): `putBack()` returns the session to this point. What the module's
 * own services did (a bridge's lights) is theirs to manage.
 */
class Checkpoint {
  constructor(session) {
    this._session = session;
    this._documents = new Map([...session._documents].map(([name, body]) => [name, stableJSON(body)]));
    this._states = new Map([...session.windows].map(([key, window]) => [key, stableJSON(window.state)]));
    this._timers = new Map(session.clock._timers);
    this._windows = new Map(session.windows);
    this._opened = [...session._opened];
    this._closed = [...session._closed];
  }

  /** The text of document `name` at this point. */
  document(name) {
    return this._documents.has(name) ? this._documents.get(name) : stableJSON(undefined);
  }

  putBackDocuments() {
    const documents = this._session._documents;
    for (const name of [...documents.keys()]) {
      if (!this._documents.has(name)) documents.delete(name);
      else if (stableJSON(documents.get(name)) !== this._documents.get(name)) {
        documents.set(name, JSON.parse(this._documents.get(name)));
      }
    }
  }

  putBack() {
    const session = this._session;
    this.putBackDocuments();
    session.clock._timers = new Map(this._timers);
    session.windows = new Map(this._windows);
    for (const [key, window] of session.windows) {
      const state = this._states.get(key);
      if (state !== undefined && stableJSON(window.state) !== state) window.state = JSON.parse(state);
    }
    session._opened = [...this._opened];
    session._closed = [...this._closed];
  }
}

class Module {
  constructor(name, moduleVersion, summary) {
    this.name = name;
    this.version = moduleVersion;
    this.summary = summary;
    this._kinds = new Map();
    this._validators = new Map();
    this._screens = new Map();
    this._commands = [];
    this._groups = new Map();
    this._diagrams = [];
    this._sessions = new Map();
    this._liveSources = new Map();
    this._liveEvents = [];
    this._answering = false;
    this._protocol = 1;
    this._output = null;
  }

  /**
   * A kind of document, with the sample documents a new workspace starts with; `validate`, if
   * given, throws `Refused` saying what is wrong with one (§13).
   */
  documentKind(name, { samples = {}, validate = null } = {}) {
    this._kinds.set(name, { ...samples });
    this._validators.set(name, validate);
  }

  /**
   * A screen: `ScreenClass` (extending `Screen`) shows documents of `kind` in windows. `fields`
   * are the top-level fields of its frames; `lifetime` those that count what happened in a
   * window's life, which recordings leave out; `summaries` says what each field means;
   * `refusal` those that show why the last command was refused (a refusal may change them);
   * `own` those a window holds of its own beyond its view state (what it loaded), where two
   * windows on one document may differ after `settle`; `records` the fields inside a field that
   * holds a record (a row of a list, a detail), by the field's name, each with what it means, or
   * with a `[meaning, {fields}]` pair when it holds a record in turn:
   * `records: { rows: { id: "the row's id", owner: ['who has it', { name: 'their name' }] } }`.
   */
  screen(name, { kind, fields = null, lifetime = null, summaries = {}, refusal = null, own = null, records = {} }, ScreenClass) {
    this._screens.set(name, { ScreenClass, kind, fields, lifetime, summaries, refusal, own, records });
    return ScreenClass;
  }

  /**
   * A command: `handler(window, ...arguments)` runs it (`window` is null for one run with no
   * window, §16; the session is the last argument either way); it may replace `window.document`
   * (committed) and return text to show. A name with a space is a subcommand (`network fail`).
   */
  command(name, { summary = '', screens = null, arguments: specs = [], details = '', windowEffect = null }, handler) {
    this._commands.push({ name, summary, screens, arguments: specs, details, handler, windowEffect });
    return handler;
  }

  /** What a command with subcommands is for, and where it runs. */
  group(name, summary, screens = null) {
    this._groups.set(name, { summary, screens });
  }

  /**
   * A live source: `handler(session, event)` applies an event the source named `name` saw
   * (`session.live(name, event)`), when the host takes the change in (`session.clock.now` is
   * then that moment), live and on a replay alike. Keep it to the event, the session and its
   * clock: what it reads from elsewhere a replay cannot give back.
   */
  liveSource(name, handler) {
    this._liveSources.set(name, handler);
    return handler;
  }

  /** A diagram drawn from the module's code (`workbench diagram NAME`); `edges` are [from, to, label]. */
  diagram(name, title, nodes, edges, { stateMachine = false, start = null } = {}) {
    this._diagrams.push({
      name, title, stateMachine, start, nodes: [...nodes],
      edges: edges.map(([from, to, label]) => ({ from, to, label })),
    });
  }

  // The conversation.

  /** Speaks the protocol on standard input and output until the host closes the input. */
  run() {
    const offered = (process.env.WORKBENCH_HOST_PROTOCOLS ?? '').split(',');
    this._protocol = offered.includes('2') ? 2 : 1;
    this._output = 1;
    // What the module prints goes to its log, never into the protocol (§1).
    console.log = console.error;
    console.info = console.error;
    this._send(this._hello());
    let buffer = Buffer.alloc(0);
    process.stdin.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 4) {
        const length = buffer.readUInt32BE(0);
        if (buffer.length < 4 + length) break;
        let request;
        try {
          request = JSON.parse(buffer.subarray(4, 4 + length).toString('utf8'));
        } catch (error) {
          // A whole message that does not read: answered with an error (§7), and on we go.
          request = new Unreadable(`not JSON this module can read (${error.name})`);
        }
        buffer = buffer.subarray(4 + length);
        this._send(this.handle(request));
        this._sendLiveEvents();
      }
    });
    process.stdin.on('end', () => process.exit(0)); // the host closed our input (§10)
  }

  _send(message) {
    if (this._output === null) return;
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    const header = Buffer.alloc(4);
    header.writeUInt32BE(body.length, 0);
    const framed = Buffer.concat([header, body]);
    for (let written = 0; written < framed.length; ) {
      try {
        written += fs.writeSync(this._output, framed, written);
      } catch (error) {
        if (error.code !== 'EAGAIN') process.exit(0); // the host went away
      }
    }
  }

  _live(session, source, event) {
    if (!this._liveSources.has(source)) {
      throw new Error(`no live source '${source}': declare it with module.liveSource('${source}', ...)`);
    }
    if (this._protocol < 2) return;
    this._liveEvents.push([session, source, event]);
    if (!this._answering) this._sendLiveEvents();
  }

  /**
   * Tells the host of the events live sources saw, each a change sent unasked with its event
   * (§19), applied when the host hands it back (`live`). One seen while a request was answered
   * (a command that plays a device) goes after the reply, never inside it.
   */
  _sendLiveEvents() {
    while (this._liveEvents.length > 0) {
      const [session, source, event] = this._liveEvents.shift();
      if (session.replaying || this._sessions.get(session.number) !== session) continue;
      this._send({ type: 'changed', session: session.number, updates: [], event: { source, value: event } });
    }
  }

  /** The windows of `session` but `besides` whose frames changed since the host last got them (§15). */
  _changedWindows(session, besides) {
    const updates = [];
    for (const key of [...session.windows.keys()].sort()) {
      if (key === besides) continue;
      // Compared by frame and view state; the text is drawn only for a window that changed.
      const window = session.windows.get(key);
      const frame = window.screen.frame();
      const state = stableJSON(window.state);
      const sent = stableJSON([frame, state]);
      if (session._lastSent.get(key) !== sent) {
        session._lastSent.set(key, sent);
        updates.push({ ...window._result(frame, state), key });
      }
    }
    return updates;
  }

  _hello() {
    const specs = [];
    const groups = new Map();
    for (const command of this._commands) {
      const words = command.name.split(' ');
      const spec = {
        name: words[words.length - 1], summary: command.summary, details: command.details,
        screens: command.screens, arguments: command.arguments,
      };
      if (command.windowEffect !== null) spec.windowEffect = command.windowEffect;
      if (words.length > 1) {
        const parent = words[0];
        if (!groups.has(parent)) {
          const said = this._groups.get(parent) ?? { summary: command.summary, screens: command.screens };
          const group = {
            name: parent, summary: said.summary, details: '', screens: said.screens, arguments: [],
            subcommands: [], requiresSubcommand: true,
          };
          groups.set(parent, group);
          specs.push(group);
        }
        groups.get(parent).subcommands.push(spec);
      } else {
        specs.push(spec);
      }
    }
    const hello = {
      type: 'hello', protocol: this._protocol,
      manifest: { name: this.name, version: this.version, summary: this.summary },
      documentKinds: [...this._kinds.keys()],
      samples: [...this._kinds].flatMap(([kind, samples]) =>
        Object.entries(samples).map(([sample, body]) => ({ name: sample, kind, body: JSON.stringify(body) }))),
      screens: [...this._screens].map(([name, screen]) => ({
        name, documentKind: screen.kind,
        ...(screen.fields ? { fields: screen.fields } : {}),
        ...(screen.lifetime ? { lifetimeFields: screen.lifetime } : {}),
        ...(screen.refusal ? { refusalFields: screen.refusal } : {}),
        ...(screen.own ? { ownFields: screen.own } : {}),
        ...(Object.keys(screen.summaries).length > 0 ? { fieldSummaries: screen.summaries } : {}),
        ...(Object.keys(screen.records).length > 0 ? { recordFields: recordFields(screen.records) } : {}),
      })),
      commands: specs,
      diagrams: this._diagrams,
    };
    // A `timer` request's timer runs even before its time (§14).
    if (this._protocol >= 2) hello.catchUp = true;
    // A `restore` after an undo moves the timers it names (§18).
    if (this._protocol >= 2) hello.undoTimers = true;
    if (this._protocol >= 2 && this._liveSources.size > 0) hello.liveSources = true;
    return hello;
  }

  /** The reply to one request (tests can call it directly). */
  handle(request) {
    // A request this kit cannot read (not an object, a field of the wrong type) gets an error
    // (§7), and the module goes on.
    const problem = requestProblem(request);
    if (problem !== null) {
      const reply = { type: 'error', message: `the module could not read the request: ${problem}` };
      if (isObject(request) && Number.isInteger(request.id)) reply.id = request.id;
      return reply;
    }
    this._answering = true;
    try {
      let reply;
      try {
        reply = this._handle(request);
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        reply = { type: 'error', message: `the module could not read the request: ${error.message}` };
      }
      if ('id' in request) reply.id = request.id; // the reply names the request it answers (§7)
      return reply;
    } finally {
      this._answering = false;
    }
  }

  _handle(request) {
    const number = request.session ?? 0;
    const session = this._session(number);
    if (request.type === 'end') {
      this._sessions.delete(number);
      return { type: 'ok' };
    }
    if (request.type === 'sync') return { type: 'ok' }; // every change went out as it came (§19)
    if (request.type === 'capture') {
      const facts = [];
      for (const [place, capture] of [...session._captures].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const [scope, source] = place.split('\u0000');
        const value = capture();
        if (value !== null && value !== undefined) facts.push({ source, scope, value });
      }
      return { type: 'ok', facts };
    }
    const key = request.key ?? null;
    session._currentKey = key;
    const facts = request.facts ?? null;
    session._relay = facts === null ? null : this._relay(facts, key);
    if (session._relay?.replaying) session.replaying = true;
    // So do windows opened again, served the answers the session already took (`again`).
    session.replayingStart = Boolean(facts?.start || facts?.again);
    const shown = this._documentsShown(session);
    let reply;
    let kept = null;
    try {
      // The session's time is the host's: the clock moves to the time the request carries (a
      // timer due before then runs now; one due at that very time waits for the host's `timer`
      // request for it, in the host's order, as a built-in's waits for the clock to move).
      // The timer a `timer` request names, as it waits now: run before its time if the request's
      // `now` does not reach it (and not one set again under its id meanwhile).
      session._namedTimer = session.clock._timers.get(request.timer) ?? null;
      if (this._protocol >= 2 && Number.isInteger(request.now) && Number.isInteger(request.date)) {
        // The calendar first: a timer that runs now reads the date at its time.
        session.clock._origin = request.date - request.now;
      }
      if (this._protocol >= 2 && Number.isInteger(request.now)) {
        session.clock._advanceTo(request.now, false);
      }
      this._takeIn(request, session);
      // What the module's code does from here on is put back if the request is refused (a
      // timer's work was put back timer by timer, as it ran).
      if (request.type !== 'timer') kept = new Checkpoint(session);
      reply = this._answer(request, session, kept);
    } catch (error) {
      kept?.putBack();
      reply = error instanceof Refused
        ? { type: 'error', message: error.message }
        : { type: 'error', message: `the module could not answer: ${error}` };
    }
    if (session._relay !== null) {
      reply.facts = session._relay.used;
      if (session._relay.divergence) reply.divergence = session._relay.divergence;
    }
    session._relay = null;
    session._currentKey = null;
    if (this._protocol >= 2 && reply.type === 'ok') this._addWork(reply, session, shown);
    if (this._protocol >= 2 && (reply.type === 'result' || reply.type === 'ok')) this._addTimersAndUpdates(reply, session, key);
    return reply;
  }

  _session(number) {
    if (!this._sessions.has(number)) this._sessions.set(number, new Session(this, number));
    return this._sessions.get(number);
  }

  _relay(facts, key) {
    const recorded = new Map();
    if ('replay' in facts && key !== null) recorded.set(`window\u0000${key}`, facts.replay);
    for (const [window, sources] of Object.entries(facts.windows ?? {})) recorded.set(`window\u0000${window}`, sources);
    for (const [scope, sources] of Object.entries(facts.shared ?? {})) recorded.set(`scope\u0000${scope}`, sources);
    return {
      replaying: 'replay' in facts || 'windows' in facts || 'shared' in facts, start: Boolean(facts.start),
      again: Boolean(facts.again),
      recorded, counts: new Map(), used: [], divergence: null, key,
    };
  }

  /** The names of the documents the session's windows show, sorted. */
  _documentsShown(session) {
    const names = new Set();
    for (const window of session.windows.values()) {
      if (session._documents.has(window.documentName)) names.add(window.documentName);
    }
    return [...names].sort();
  }

  /**
   * The text of document `name` as the host holds it: the body it sent, or the one the module
   * last committed (read once, when the host sends the body).
   */
  _committedText(session, name) {
    if (!session._committed.has(name)) session._committed.set(name, stableJSON(session._documents.get(name)));
    return session._committed.get(name);
  }

  /**
   * Adds to an `ok` what its work did besides the windows: the documents it changed (`commits`,
   * each from the revision the host last gave, §14) and the windows it opened or closed (§17). A
   * document counts as changed when its text is not the host's: one encoding of it, not one
   * before the work and one after.
   */
  _addWork(reply, session, shown) {
    const commits = [];
    for (const name of shown) {
      const committed = this._committedText(session, name);
      const after = stableJSON(session._documents.get(name));
      if (after !== committed) {
        const revision = session._revisions.get(name) ?? 1;
        commits.push({ document: name, revision, body: after });
        session._revisions.set(name, revision + 1);
        session._committed.set(name, after);
      }
    }
    if (commits.length > 0) reply.commits = commits;
    this._addWindowsOpenedAndClosed(reply, session);
  }

  _addWindowsOpenedAndClosed(reply, session) {
    if (session._opened.length > 0) {
      reply.opened = session._opened.map(([opened, name]) => {
        const entry = { ...opened.result(), key: opened.key, screen: opened.screenName, document: opened.documentName, name };
        session._lastSent.set(opened.key, stableJSON([entry.frame, entry.state]));
        return entry;
      });
      session._opened = [];
    }
    if (session._closed.length > 0) {
      reply.closed = session._closed;
      session._closed = [];
    }
  }

  _makeWindow(session, key, screenName, documentName, state) {
    const screen = this._screens.get(screenName);
    if (!screen) throw new Refused(`unknown screen '${screenName}'`);
    const window = new Window(session, key, screenName, documentName, state);
    window.screen = new screen.ScreenClass(window);
    session.windows.set(key, window);
    return window;
  }

  /**
   * Takes in what the host's request says of the session: its rows, and the document's revision
   * and body as the host holds them (never put back: they are the host's).
   */
  _takeIn(request, session) {
    if (Number.isInteger(request.rows)) session.rows = Math.min(Math.max(1, request.rows), 10000);
    if (Number.isInteger(request.revision) && typeof request.document === 'string') {
      session._revisions.set(request.document, request.revision);
    }
    if (typeof request.body === 'string' && typeof request.document === 'string') {
      const name = request.document;
      const body = JSON.parse(request.body);
      const text = stableJSON(body);
      const replaced = session._documents.has(name) && stableJSON(session._documents.get(name)) !== text;
      session._documents.set(name, body);
      session._committed.set(name, text);
      if (replaced) {
        for (const window of session.windows.values()) {
          if (window.documentName === name) window.screen.documentReplaced();
        }
      }
    }
  }

  _answer(request, session, kept) {
    const { type, key } = request;
    if (type === 'validate') {
      const validate = this._validators.get(request.kind);
      if (validate) validate(JSON.parse(request.body ?? ''));
      return { type: 'ok' };
    }
    if (type === 'open') {
      const state = request.state ? JSON.parse(request.state) : {};
      return this._result(this._makeWindow(session, key, request.screen, request.document, state));
    }
    if (type === 'close') {
      const window = session.windows.get(key);
      session.windows.delete(key);
      session._lastSent.delete(key);
      if (window) window.screen.closed();
      // Closing stops what the window started; it saves nothing (a close answer commits nothing
      // the user did not save).
      kept.putBackDocuments();
      return { type: 'ok' };
    }
    if (type === 'timer') {
      // The request's `now` ran it already; a host that sends no `now` gets it run here.
      const due = session.clock.due(request.timer);
      if (due !== null && !Number.isInteger(request.now)) session.clock._advanceTo(due);
      // Named before its time: the host catches a window opened again up (§14).
      if (session._namedTimer !== null && session.clock._timers.get(request.timer) === session._namedTimer) {
        // The host's timer is spent: one the work sets again under its id, even for the same
        // time, is told again.
        session._reported.delete(request.timer);
        session.clock._fire(request.timer);
      }
      return { type: 'ok' };
    }
    if (type === 'live') {
      // The events of changes the host takes in now (the module's own, or a replay's recorded
      // ones), applied at the time this request carries.
      for (const event of request.events ?? []) {
        const handler = this._liveSources.get(event?.source);
        if (!handler) throw new Refused(`no live source for the recorded event ${JSON.stringify(event)}`);
        handler(session, event.value);
      }
      return { type: 'ok' };
    }
    if (type === 'command' && (key === undefined || key === null)) {
      return { type: 'ok', output: this._run(null, session, request) };
    }
    if (!['refresh', 'restore', 'command', 'leave'].includes(type)) throw new Refused(`unknown request '${type}'`);
    const window = session.windows.get(key);
    if (!window) throw new Refused(`no window ${key} in the module`);
    if (type === 'restore') {
      const putBack = request.timers ?? [];
      const takeAway = request.cancel ?? [];
      const clock = session.clock;
      // An undo's or redo's timers move first (§18), so the screen finds them as they were; one
      // that sets or cancels timers as it takes the state keeps its own, and those put back go
      // again. The reply says what each named one is now.
      const returned = clock._move(putBack, takeAway);
      const moved = new Map([...clock._timers].map(([timerId, timer]) => [timerId, timer.order]));
      const previous = window.state;
      window.state = request.state ? JSON.parse(request.state) : {};
      window.screen.restored(previous);
      const own =
        clock._timers.size !== moved.size || [...clock._timers].some(([timerId, timer]) => moved.get(timerId) !== timer.order);
      if (own) {
        for (const timerId of returned) {
          if (clock._timers.get(timerId)?.order === moved.get(timerId)) clock.cancel(timerId);
        }
      }
      for (const timerId of [...putBack.map((timer) => timer?.id), ...takeAway]) {
        if (typeof timerId === 'string') session._reported.set(timerId, -1);
      }
      const reply = this._result(window);
      if (own && (putBack.length > 0 || takeAway.length > 0)) reply.ownTimers = true;
      return reply;
    }
    if (type === 'refresh') return this._result(window);
    if (type === 'leave') {
      // The user's choice for the window's unsaved work (§20): saved (the document is
      // committed; a save that throws changes nothing) or dropped (nothing committed).
      const saved = kept.document(window.documentName);
      if (request.choice === 'save') {
        window.screen.save();
      } else {
        window.screen.discard();
        kept.putBackDocuments();
      }
      return this._result(window, null, this._commit(session, window, saved));
    }
    const before = kept.document(window.documentName);
    const output = this._run(window, session, request);
    const reply = this._result(window, output, this._commit(session, window, before));
    this._addWindowsOpenedAndClosed(reply, session);
    return reply;
  }

  /**
   * The body of the window's document when the command changed it (`before` is its text when
   * the command began), now the host's; or null.
   */
  _commit(session, window, before) {
    const after = stableJSON(window.document);
    if (after === before) return null;
    session._committed.set(window.documentName, after);
    return after;
  }

  _run(window, session, request) {
    // Protocol 2 names the command (`network fail`); an older host sends only the line, whose
    // first words name it. Its arguments come bound by the host, by name (a left-out optional
    // one is absent, so null).
    // Protocol 2 gives the command's spec path (`["network", "fail"]`; a host before paths its
    // full name, an older one only the line, whose first words name it). A window argument is the
    // module's window under the key the host gives (null for another module's).
    const name = Array.isArray(request.path) ? request.path.join(' ') : request.command;
    const command = this._commandNamed(name, request.line ?? '');
    const bound = request.arguments ?? {};
    const keys = request.windows ?? {};
    const values = command.arguments.map((argument) =>
      argument.kind === 'window' ? session.windows.get(keys[argument.name]) ?? null : bound[argument.name] ?? null,
    );
    const output = command.handler(window, ...values, session);
    return output === undefined || output === null ? null : String(output);
  }

  _commandNamed(name, line) {
    if (name !== undefined) {
      const command = this._commands.find((candidate) => candidate.name === name);
      if (command === undefined) throw new Refused(`unknown command '${name}'`);
      return command;
    }
    const words = line.split(' ');
    const commands = [...this._commands].sort((a, b) => b.name.split(' ').length - a.name.split(' ').length);
    const command = commands.find((candidate) => candidate.name.split(' ').every((part, index) => words[index] === part));
    if (command === undefined) throw new Refused(`unknown command '${line}'`);
    return command;
  }

  _result(window, output = null, commit = null) {
    return { type: 'result', output, commit, ...window.result() };
  }

  _addTimersAndUpdates(reply, session, key) {
    const timers = [];
    const pending = [...session.clock._timers].sort(([, a], [, b]) => a.order - b.order);
    for (const [timerId, timer] of pending) {
      if (session._reported.get(timerId) !== timer.due) {
        // New, or set again for another time: the host is told when it is due.
        session._reported.set(timerId, timer.due);
        timers.push({ id: timerId, at: timer.due });
      }
    }
    const gone = [...session._reported.keys()].filter((timerId) => !session.clock._timers.has(timerId)).sort();
    for (const timerId of gone) session._reported.delete(timerId);
    if (timers.length > 0) reply.timers = timers;
    if (gone.length > 0) reply.cancel = gone;
    if (key !== null && reply.type === 'result') session._lastSent.set(key, stableJSON([reply.frame, reply.state]));
    const updates = this._changedWindows(session, key);
    if (updates.length > 0) reply.updates = updates;
  }
}

/** A message that was framed whole but is not JSON the kit reads. */
class Unreadable {
  constructor(problem) {
    this.problem = problem;
  }
}

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function jsonType(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'string') return 'text';
  if (typeof value === 'boolean') return 'a boolean';
  return 'an object';
}

// The fields the kit reads from a request, and the JSON types each must have when present.
const FIELD_TYPES = {
  type: ['text'], id: ['integer'], session: ['integer'], key: ['text', 'null'], line: ['text'], command: ['text'],
  path: ['list'], windows: ['object'], arguments: ['object', 'null'], facts: ['object', 'null'], state: ['text', 'null'], body: ['text'],
  document: ['text'], screen: ['text'], kind: ['text'], revision: ['integer'], now: ['integer'], date: ['integer'],
  rows: ['integer'], timer: ['text'], events: ['list'], choice: ['text'],
  timers: ['list'], cancel: ['list'],
};

function hasType(value, type) {
  switch (type) {
    case 'text': return typeof value === 'string';
    case 'integer': return Number.isInteger(value);
    case 'null': return value === null;
    case 'object': return isObject(value);
    case 'list': return Array.isArray(value);
    default: return false;
  }
}

/** Why the kit cannot read `request` (a message from the host), or null. */
function requestProblem(request) {
  if (request instanceof Unreadable) return request.problem;
  if (!isObject(request)) return `expected a JSON object, got ${jsonType(request)}`;
  // The request's own fields: a handful, not the whole table.
  for (const name in request) {
    const types = Object.hasOwn(FIELD_TYPES, name) ? FIELD_TYPES[name] : null;
    if (types !== null && !types.some((type) => hasType(request[name], type))) {
      return `\`${name}\` is ${jsonType(request[name])}`;
    }
  }
  if (isObject(request.facts)) {
    for (const name of ['replay', 'windows', 'shared']) {
      if (name in request.facts && !isObject(request.facts[name])) {
        return `\`facts.${name}\` is ${jsonType(request.facts[name])}`;
      }
    }
  }
  return null;
}

module.exports = {
  Module, Screen, Window, Session, Clock, Refused, integer, word, rest, choice, window, didYouMean, stableJSON, version,
};
