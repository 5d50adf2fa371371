'use strict';
// The kit's own tests: requests as the host sends them (docs/protocol.md), answered through
// `Module.handle`, and what the module sends unasked read from what it wrote.
//
//     node --test Kits/javascript/test/

const test = require('node:test');
const assert = require('node:assert/strict');
const wb = require('..');

function makeModule() {
  const tally = new wb.Module('tally', '1.0', "a tally for the kit's tests");
  tally._protocol = 2;
  const sent = [];
  tally._send = (message) => sent.push(message);
  tally.sent = sent;
  tally.documentKind('tally', { samples: { tally: { count: 0 } } });
  tally.screen('tally', { kind: 'tally', fields: ['count', 'searched', 'wall'] }, class extends wb.Screen {
    frame() {
      const wall = this.window.session.service('wall', () => ({ on: 0 }));
      return { count: this.window.document.count, searched: this.window.state.searched ?? null, wall: wall.on };
    }

    text(frame) {
      tally.drawn.push(this.window.key);
      return super.text(frame);
    }

    unsaved() { return this.window.state.draft === undefined ? null : `a draft of ${this.window.state.draft}`; }

    save() {
      // Writes the draft, then refuses one it cannot keep: the write must not stay.
      this.window.document = { count: this.window.document.count + this.window.state.draft };
      if (this.window.state.draft > 5) throw new wb.Refused('a draft over 5 cannot be saved');
      delete this.window.state.draft;
    }

    discard() {
      // A careless module that writes as it drops the draft: a discard commits nothing.
      this.window.document = { count: -1 };
      delete this.window.state.draft;
    }

    closed() { this.window.document = { count: -2 }; } // nor does a close
  });
  tally.drawn = []; // the windows whose text was drawn, in order
  tally.command('search', { screens: ['tally'], arguments: [wb.rest('text')] }, (window, text) => {
    // Debounced: the search runs 100 ms after the last keystroke.
    window.session.clock.schedule(100, () => { window.state.searched = text; }, 'debounce');
  });
  tally.command('add', {
    screens: ['tally'], arguments: [wb.integer('n', 1, 10, { optional: true }), wb.word('note', { optional: true })],
  }, (window, n, note) => `n=${n} note=${note}`);
  tally.command('save later', { screens: ['tally'] }, (window) => {
    window.session.clock.schedule(500, () => { window.document = { count: window.document.count + 1 }; });
  });
  tally.command('copy', { screens: ['tally'], arguments: [wb.window('source')] }, (window, source) =>
    // The window argument is the module's own window, or null for another module's.
    source === null ? 'none' : `${source.key}=${source.document.count}`);
  tally.command('bump', { screens: ['tally'] }, (window) => {
    window.document = { count: window.document.count + 1 };
  });
  tally.held = []; // windows a test changes between requests, as a module's own timer or socket would
  tally.command('hold', { screens: ['tally'] }, (window) => { tally.held.push(window); });
  tally.command('spoil', { screens: ['tally'] }, (window) => {
    // Changes everything a command can, then refuses.
    window.document = { count: 99 };
    window.state.searched = 'spoilt';
    window.session.clock.schedule(10, () => {}, 'debounce');
    throw new wb.Refused('not today');
  });
  tally.command('draft', { screens: ['tally'], arguments: [wb.integer('n', 1, 10)] }, (window, n) => {
    window.state.draft = n;
  });
  tally.command('wreck', {}, (window, session) => {
    // Run with no window (§16): changes every window's document and view state, then refuses.
    for (const shown of session.windows.values()) {
      shown.document = { count: 77 };
      shown.state.searched = 'wrecked';
    }
    throw new wb.Refused('wrecked nothing');
  });
  tally.command('fail later', { screens: ['tally'] }, (window) => {
    window.session.clock.schedule(100, () => {
      window.document = { count: 55 };
      window.state.searched = 'failed';
      throw new Error("the timer's work failed");
    });
  });
  tally.liveSource('wall', (session, event) => {
    session.service('wall', () => ({ on: 0 })).on += event.switches;
    if (event.break) {
      for (const shown of session.windows.values()) shown.document = { count: 33 };
      throw new wb.Refused('the wall broke');
    }
  });
  return tally;
}

const OPEN = {
  type: 'open', key: 'w1', screen: 'tally', document: 'tally', kind: 'tally', revision: 1, state: null,
  body: '{"count": 0}', session: 1, now: 0,
};

function command(line, now, args = {}) {
  return {
    type: 'command', key: 'w1', screen: 'tally', document: 'tally', kind: 'tally', revision: 1, state: '{}',
    line, arguments: args, session: 1, now,
  };
}

test('the clock reads the date the request carries and keeps its origin', () => {
  const tally = makeModule();
  tally.handle({ ...OPEN, date: 1765100000000 });
  const clock = tally._session(1).clock;
  assert.equal(clock.date, 1765100000000);
  tally.handle({ ...command('search r', 2500, { text: 'r' }), date: 1765100002500 });
  assert.equal(clock.date, 1765100002500);
  // A request without a date (a host of before 2.6) keeps the origin it had.
  tally.handle(command('search s', 4000, { text: 's' }));
  assert.equal(clock.date, 1765100004000);
  assert.equal(clock.toDate().toISOString(), '2025-12-07T09:33:24.000Z');
});

test('without a date the clock starts on the scenarios default', () => {
  const tally = makeModule();
  tally.handle(OPEN);
  assert.equal(tally._session(1).clock.date, 1767225600000);
});

test('a timer counts from the time the request carries', () => {
  const tally = makeModule();
  tally.handle(OPEN);
  assert.deepEqual(tally.handle(command('search r', 2500, { text: 'r' })).timers, [{ id: 'debounce', at: 2600 }]);
});

test('a timer set again later is reported again for its new time', () => {
  const tally = makeModule();
  tally.handle(OPEN);
  tally.handle(command('search r', 1000, { text: 'r' }));
  const reply = tally.handle(command('search re', 1099, { text: 're' }));
  assert.deepEqual(reply.timers, [{ id: 'debounce', at: 1199 }]);
  const done = tally.handle({ type: 'timer', timer: 'debounce', session: 1, now: 1199 });
  assert.equal(done.type, 'ok');
  assert.deepEqual(done.updates.map((update) => [update.key, update.frame.searched]), [['w1', 're']]);
});

test('a timer the host names before its time runs then', () => {
  // Catching up (§14): a window opened again in a settled session finishes at once the work the
  // one it replaces had finished; the host names the timer before its time, the kit runs it with
  // the clock where it is, and says in its hello that it does.
  const tally = makeModule();
  assert.equal(tally._hello().catchUp, true);
  tally.handle(OPEN);
  tally.handle(command('search r', 1000, { text: 'r' }));
  const early = tally.handle({ type: 'timer', timer: 'debounce', session: 1, now: 1000 });
  assert.deepEqual(early.updates.map((update) => update.frame.searched), ['r']);
  assert.equal(tally.handle(command('add 1', 1000, { n: 1 })).frame.searched, 'r');
});

test("a timer due at the request's time waits for the host's timer request", () => {
  // Due at 1100: a command at 1100 does not run it, as a built-in's timer waits for the clock to
  // move; the host's `timer` request does, and a request after 1100 runs one not fired yet.
  const tally = makeModule();
  tally.handle(OPEN);
  tally.handle(command('search r', 1000, { text: 'r' }));
  assert.equal(tally.handle(command('add 1', 1100, { n: 1 })).frame.searched, null);
  const done = tally.handle({ type: 'timer', timer: 'debounce', session: 1, now: 1100 });
  assert.deepEqual(done.updates.map((update) => update.frame.searched), ['r']);
  tally.handle(command('search s', 2000, { text: 's' }));
  assert.equal(tally.handle(command('add 1', 2101, { n: 1 })).frame.searched, 's');
});

test('another window is drawn only when its frame changed', () => {
  const tally = makeModule();
  tally.handle(OPEN);
  const { body, ...withoutBody } = OPEN;
  assert.equal(tally.handle({ ...withoutBody, key: 'w2' }).type, 'result');
  tally.drawn.length = 0;
  let reply = tally.handle(command('add 1', 10, { n: 1 })); // w2 shows what it showed
  assert.equal(reply.updates, undefined);
  assert.deepEqual(tally.drawn, ['w1']);
  tally.drawn.length = 0;
  reply = tally.handle(command('bump', 20)); // the document both show changed
  assert.deepEqual(reply.updates.map((update) => update.key), ['w2']);
  assert.deepEqual(JSON.parse(reply.updates[0].text), reply.updates[0].frame);
  assert.deepEqual([...tally.drawn].sort(), ['w1', 'w2']);
});

test('arguments come bound by name and a left-out one is null', () => {
  const tally = makeModule();
  tally.handle(OPEN);
  assert.equal(tally.handle(command('add 3', 0, { n: 3 })).output, 'n=3 note=null');
  assert.equal(tally.handle(command('add 2 "a b"', 0, { n: 2, note: 'a b' })).output, 'n=2 note=a b');
  assert.equal(tally.handle(command('save later', 0)).type, 'result');
  assert.equal(tally.handle(command('nope', 0)).type, 'error');
});

test('a command is found by its spec path', () => {
  // Protocol 2 gives the spec's path, name by name; it wins over the full name and the line.
  const tally = makeModule();
  tally.handle(OPEN);
  assert.equal(tally.handle({ ...command('shown only', 0, { n: 4 }), path: ['add'], command: 'nope' }).output,
    'n=4 note=null');
  assert.equal(tally.handle({ ...command('add 1', 0), path: ['save', 'later'] }).type, 'result');
  const unknown = tally.handle({ ...command('add 1', 0), path: ['save', 'never'] });
  assert.deepEqual([unknown.type, unknown.message], ['error', "unknown command 'save never'"]);
});

test("a window argument is the module's window under the key the host gives", () => {
  const tally = makeModule();
  tally.handle(OPEN);
  tally.handle({ ...OPEN, key: 'w2', body: '{"count": 5}' });
  const mine = { ...command('copy left', 0, { source: 7 }), path: ['copy'], windows: { source: 'w2' } };
  assert.equal(tally.handle(mine).output, 'w2=5');
  // A window of another module's has no key here.
  assert.equal(tally.handle({ ...command('copy right', 0, { source: 9 }), path: ['copy'] }).output, 'none');
});

test('a command the host names is found by its name, not the line', () => {
  // Protocol 2 names the command; the line is then only for showing.
  const tally = makeModule();
  tally.handle(OPEN);
  assert.equal(tally.handle({ ...command('shown only', 0, { n: 4 }), command: 'add' }).output, 'n=4 note=null');
  assert.equal(tally.handle({ ...command('add 1', 0), command: 'save later' }).type, 'result');
  const unknown = tally.handle({ ...command('add 1', 0, { n: 1 }), command: 'nope' });
  assert.deepEqual([unknown.type, unknown.message], ['error', "unknown command 'nope'"]);
  assert.equal(tally.handle({ ...command('add 1', 0, { n: 1 }), command: 3 }).type, 'error');
});

test("a timer's change to the document is committed from the revision it had", () => {
  const tally = makeModule();
  tally.handle(OPEN);
  tally.handle(command('save later', 0));
  const reply = tally.handle({ type: 'timer', timer: 't1', session: 1, now: 500 });
  assert.deepEqual(reply.commits, [{ document: 'tally', revision: 1, body: '{"count": 1}' }]);
});

test("a command's change is committed once, not again by the next timer's work", () => {
  const tally = makeModule();
  tally.handle(OPEN);
  assert.equal(tally.handle(command('bump', 0)).commit, '{"count": 1}');
  tally.handle(command('save later', 0));
  assert.equal(tally.handle({ type: 'timer', timer: 'none', session: 1, now: 100 }).commits, undefined);
  const reply = tally.handle({ type: 'timer', timer: 't1', session: 1, now: 500 });
  assert.deepEqual(reply.commits, [{ document: 'tally', revision: 1, body: '{"count": 2}' }]);
});

test("a document changed between requests is committed by the next one's work", () => {
  const tally = makeModule();
  tally.handle(OPEN);
  tally.handle(command('hold', 0));
  tally.held[0].document.count = 5; // in place, outside any request
  const reply = tally.handle({ type: 'timer', timer: 'none', session: 1, now: 100 });
  assert.deepEqual(reply.commits, [{ document: 'tally', revision: 1, body: '{"count": 5}' }]);
  assert.equal(tally.handle({ type: 'timer', timer: 'none', session: 1, now: 200 }).commits, undefined);
});

test('an event is sent after any reply, and applied when the host hands it back', () => {
  const tally = makeModule();
  tally.handle(OPEN);
  assert.equal(tally._hello().liveSources, true);
  const session = tally._sessions.get(1);
  tally._answering = true;
  session.live('wall', { switches: 2 });
  assert.deepEqual(tally.sent, []); // not inside a reply
  tally._answering = false;
  tally._sendLiveEvents();
  const [change] = tally.sent;
  assert.deepEqual(change.event, { source: 'wall', value: { switches: 2 } });
  assert.deepEqual(change.updates, []); // not applied yet: the host says when
  const reply = tally.handle({ type: 'live', session: 1, now: 40, events: [change.event] });
  assert.equal(reply.updates[0].frame.wall, 2);
  assert.equal(session.clock.now, 40); // applied at the time the host took it in
});

test("a replay hands the recorded events back and ignores the sources' own", () => {
  const tally = makeModule();
  tally.handle({ ...OPEN, facts: { replay: {} } });
  tally._sessions.get(1).live('wall', { switches: 5 }); // the device, during the replay: ignored
  assert.deepEqual(tally.sent, []);
  const reply = tally.handle({
    type: 'live', session: 1, now: 10, events: [{ source: 'wall', value: { switches: 1 } }],
  });
  assert.equal(reply.type, 'ok');
  assert.equal(tally._sessions.get(1).windows.get('w1').screen.frame().wall, 1);
});

test('sync is answered with ok', () => {
  const tally = makeModule();
  tally.handle(OPEN);
  assert.deepEqual(tally.handle({ type: 'sync', session: 1, now: 0, id: 7 }), { type: 'ok', id: 7 });
});

test('stable JSON sorts keys as the Python kit writes them', () => {
  assert.equal(wb.stableJSON({ b: [1, { d: null, c: 'x' }], a: true }), '{"a": true, "b": [1, {"c": "x", "d": null}]}');
  assert.equal(wb.didYouMean('strat', ['start', 'stop']), ". Did you mean 'start'?");
});

test('refusal and own fields are declared in hello, and left out when not given', () => {
  const tally = makeModule();
  tally.screen('feed', { kind: 'tally', fields: ['rows', 'message'], refusal: ['message'], own: ['rows'] },
    class extends wb.Screen { frame() { return { rows: [], message: null }; } });
  const screens = Object.fromEntries(tally._hello().screens.map((screen) => [screen.name, screen]));
  assert.deepEqual(screens.feed.refusalFields, ['message']);
  assert.deepEqual(screens.feed.ownFields, ['rows']);
  assert.equal(screens.tally.refusalFields, undefined);
  assert.equal(screens.tally.ownFields, undefined);
});

test("the fields of a frame's records are declared in hello, to any depth", () => {
  const tally = makeModule();
  tally.screen('feed', {
    kind: 'tally', fields: ['rows'],
    records: { rows: { id: "the row's id", owner: ['who has it', { name: 'their name' }] } },
  }, class extends wb.Screen { frame() { return { rows: [] }; } });
  const screens = Object.fromEntries(tally._hello().screens.map((screen) => [screen.name, screen]));
  assert.deepEqual(screens.feed.recordFields, [{ name: 'rows', fields: [
    { name: 'id', summary: "the row's id" },
    { name: 'owner', summary: 'who has it', fields: [{ name: 'name', summary: 'their name' }] },
  ] }]);
  assert.equal(screens.tally.recordFields, undefined);
});

test('a record given without a meaning is declared without one', () => {
  const tally = makeModule();
  tally.screen('feed', {
    kind: 'tally', fields: ['rows'],
    records: { rows: { owner: { name: 'their name' }, shelf: [null, { n: 'its number' }] } },
  }, class extends wb.Screen { frame() { return { rows: [] }; } });
  const screens = Object.fromEntries(tally._hello().screens.map((screen) => [screen.name, screen]));
  assert.deepEqual(screens.feed.recordFields, [{ name: 'rows', fields: [
    { name: 'owner', fields: [{ name: 'name', summary: 'their name' }] },
    { name: 'shelf', fields: [{ name: 'n', summary: 'its number' }] },
  ] }]);
});

// Whole messages a kit cannot take as a request (what module-check's "malformed message" stage
// sends): each gets an error, and the module goes on to answer the next.
const SHAPES = [
  '{nope', 'null', '42', '[]', '['.repeat(100000) + ']'.repeat(100000),
  JSON.stringify({ ...command('add', 0), session: [1] }),
  JSON.stringify({ ...OPEN, facts: 'text' }),
  JSON.stringify({ ...command('add', 0), arguments: [1] }),
];

function replies(bodies) {
  const { spawnSync } = require('node:child_process');
  const path = require('node:path');
  const script = `
    const wb = require(${JSON.stringify(path.join(__dirname, '..'))});
    const tally = new wb.Module('tally', '1.0', 'a tally');
    tally.documentKind('tally', { samples: { tally: { count: 0 } } });
    tally.screen('tally', { kind: 'tally', fields: ['count'] }, class extends wb.Screen {
      frame() { return { count: this.window.document.count }; }
    });
    tally.run();`;
  const input = Buffer.concat(bodies.map((body) => {
    const bytes = Buffer.from(body, 'utf8');
    const header = Buffer.alloc(4);
    header.writeUInt32BE(bytes.length);
    return Buffer.concat([header, bytes]);
  }));
  const done = spawnSync(process.execPath, ['-e', script], { input, timeout: 60000 });
  assert.equal(done.status, 0, done.stderr.toString());
  const messages = [];
  let data = done.stdout;
  while (data.length >= 4) {
    const length = data.readUInt32BE(0);
    messages.push(JSON.parse(data.subarray(4, 4 + length).toString('utf8')));
    data = data.subarray(4 + length);
  }
  return messages.slice(1); // after the hello
}

test('a request of any shape is answered with an error, and the module goes on', () => {
  const answers = replies([...SHAPES, JSON.stringify(OPEN)]);
  assert.deepEqual(answers.map((reply) => reply.type), [...SHAPES.map(() => 'error'), 'result']);
  assert.deepEqual(answers.at(-1).frame, { count: 0 });
});

test('handle refuses what is not a request by saying what', () => {
  const tally = makeModule();
  assert.equal(tally.handle(null).message, 'the module could not read the request: expected a JSON object, got null');
  assert.deepEqual(tally.handle({ ...OPEN, facts: 'text', id: 4 }), {
    type: 'error', message: 'the module could not read the request: `facts` is text', id: 4,
  });
});

test('a refused command leaves the window, the document and the timers as they were', () => {
  const tally = makeModule();
  tally.handle(OPEN);
  tally.handle(command('search r', 1000, { text: 'r' })); // a debounce pending at 1100
  const refused = tally.handle(command('spoil', 1010));
  assert.equal(refused.type, 'error');
  assert.equal(refused.message, 'not today');
  const again = tally.handle(command('add', 1020));
  assert.equal(again.frame.count, 0);
  assert.equal(again.frame.searched, null);
  assert.equal(again.commit, null);
  assert.equal(again.timers, undefined); // the debounce is still the one at 1100, reported before
  assert.equal(tally._sessions.get(1).clock.due('debounce'), 1100);
});

test('a window says what it holds unsaved, and leave saves or discards it', () => {
  const notes = new wb.Module('jotter', '1.0', 'lines typed into a draft first');
  notes._protocol = 2;
  notes._send = () => {};
  notes.documentKind('jotter', { samples: { jots: { lines: [] } } });
  notes.screen('jotter', { kind: 'jotter', fields: ['lines', 'draft'] }, class extends wb.Screen {
    frame() { return { lines: this.window.document.lines, draft: this.window.state.draft ?? null }; }
    unsaved() { return this.window.state.draft === undefined ? null : `a draft line '${this.window.state.draft}'`; }
    save() {
      this.window.document = { lines: [...this.window.document.lines, this.window.state.draft] };
      delete this.window.state.draft;
    }
    discard() { delete this.window.state.draft; }
  });
  notes.command('type', { screens: ['jotter'], arguments: [wb.rest('text')] }, (window, text) => {
    window.state.draft = text;
  });
  const open = {
    type: 'open', key: 'w1', screen: 'jotter', document: 'jots', kind: 'jotter', revision: 1, state: null,
    body: '{"lines": []}', session: 1, now: 0,
  };
  assert.equal(notes.handle(open).unsaved, undefined);
  const typed = notes.handle({ ...open, type: 'command', state: '{}', line: 'type hi', arguments: { text: 'hi' } });
  assert.equal(typed.unsaved, "a draft line 'hi'");
  const saved = notes.handle({ type: 'leave', key: 'w1', choice: 'save', session: 1, now: 0 });
  assert.equal(saved.type, 'result');
  assert.deepEqual(JSON.parse(saved.commit), { lines: ['hi'] });
  assert.equal(saved.unsaved, undefined);
  notes.handle({ ...open, type: 'command', revision: 2, state: '{}', line: 'type gone', arguments: { text: 'gone' } });
  const dropped = notes.handle({ type: 'leave', key: 'w1', choice: 'discard', session: 1, now: 0 });
  assert.equal(dropped.commit, null);
  assert.equal(dropped.unsaved, undefined);
});

test('a refused save changes nothing, and a close after it commits nothing', () => {
  // Before, the kit kept what the refused save wrote and sent it as `commits` in its answer to
  // the `close` of `close W discard`: the host stored the draft the user discarded.
  const tally = makeModule();
  tally.handle(OPEN);
  assert.equal(tally.handle(command('draft 9', 10, { n: 9 })).unsaved, 'a draft of 9');
  const refused = tally.handle({ type: 'leave', key: 'w1', choice: 'save', session: 1, now: 20 });
  assert.deepEqual([refused.type, refused.message], ['error', 'a draft over 5 cannot be saved']);
  const session = tally._sessions.get(1);
  assert.deepEqual([session._documents.get('tally'), session.windows.get('w1').state], [{ count: 0 }, { draft: 9 }]);
  const discarded = tally.handle({ type: 'leave', key: 'w1', choice: 'discard', session: 1, now: 30 });
  assert.deepEqual([discarded.commit, discarded.frame.count, discarded.unsaved], [null, 0, undefined]);
  assert.deepEqual(tally.handle({ type: 'close', key: 'w1', session: 1, now: 40 }), { type: 'ok' });
  assert.deepEqual(session._documents.get('tally'), { count: 0 });
});

test('a save commits what it saved', () => {
  const tally = makeModule();
  tally.handle(OPEN);
  tally.handle(command('draft 4', 10, { n: 4 }));
  const saved = tally.handle({ type: 'leave', key: 'w1', choice: 'save', session: 1, now: 20 });
  assert.deepEqual([saved.type, saved.commit, saved.unsaved], ['result', '{"count": 4}', undefined]);
});

test('a refused command with no window changes nothing', () => {
  // Before, what it changed stayed in the kit, and the next `ok` committed it.
  const tally = makeModule();
  tally.handle(OPEN);
  const refused = tally.handle({ type: 'command', command: 'wreck', line: 'wreck', arguments: {}, session: 1, now: 10 });
  assert.deepEqual([refused.type, refused.message], ['error', 'wrecked nothing']);
  const later = tally.handle({ type: 'timer', timer: 'none', session: 1, now: 20 });
  assert.deepEqual([later.commits, later.updates], [undefined, undefined]);
  assert.deepEqual(tally._sessions.get(1).windows.get('w1').state, {});
});

test("a timer's work that fails is put back", () => {
  const tally = makeModule();
  tally.handle(OPEN);
  tally.handle(command('fail later', 0));
  const originalError = console.error;
  console.error = () => {}; // the kit says the failure in the module's log
  let done;
  try {
    done = tally.handle({ type: 'timer', timer: 't1', session: 1, now: 100 });
  } finally {
    console.error = originalError;
  }
  assert.deepEqual([done.type, done.commits, done.updates], ['ok', undefined, undefined]);
});

test('a live event that is refused is put back', () => {
  const tally = makeModule();
  tally.handle(OPEN);
  const events = [{ source: 'wall', value: { switches: 1, break: true } }];
  assert.equal(tally.handle({ type: 'live', events, session: 1, now: 10 }).type, 'error');
  assert.equal(tally.handle({ type: 'timer', timer: 'none', session: 1, now: 20 }).commits, undefined);
});
