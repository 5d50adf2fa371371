#!/usr/bin/env node
'use strict';
// A countdown on the JavaScript kit (`npm install` here links Kits/javascript), the same module
// as countdown.py on the Python kit: `start` counts down the document's seconds on the
// session's clock, a timer a second that sets the next; `pause` keeps what was left to the
// millisecond; a finished countdown is saved in the document by the timer's work; `press` plays
// the button on the device, an event its live source reports.
//
//     workbench run --module ./countdown.js Scenarios/

const wb = require('workbench-module');

const countdown = new wb.Module('countdown', '1.0', "a countdown on the session's clock, with a button");
countdown.documentKind('countdown', { samples: { egg: { seconds: 5, finished: 0 } } });

function timer(session, document) {
  return session.service(`countdown ${document}`, () => ({ state: 'idle', left: null, since: 0, presses: 0 }));
}

function windowOn(session, document) {
  return [...session.windows.values()].find((window) => window.documentName === document) ?? null;
}

countdown.screen('countdown', {
  kind: 'countdown', fields: ['state', 'left', 'finished', 'presses'],
  summaries: { left: 'milliseconds left, as of the last tick or pause' },
}, class extends wb.Screen {
  frame() {
    const counting = timer(this.window.session, this.window.documentName);
    const left = counting.left ?? this.window.document.seconds * 1000;
    return { state: counting.state, left, finished: this.window.document.finished, presses: counting.presses };
  }

  text(frame) {
    return `${frame.state}: ${frame.left} ms left (finished ${frame.finished}, presses ${frame.presses})`;
  }
});

/** Counts on from now: the next tick is at the next whole second left (or the end). */
function run(session, document) {
  const counting = timer(session, document);
  counting.state = 'running';
  counting.since = session.clock.now;
  const left = counting.left;
  session.clock.schedule(Math.min(left, left % 1000 || 1000), () => tick(session, document), `tick ${document}`);
}

function tick(session, document) {
  const counting = timer(session, document);
  counting.left = Math.max(0, counting.left - (session.clock.now - counting.since));
  counting.since = session.clock.now;
  if (counting.left > 0) {
    session.clock.schedule(Math.min(1000, counting.left), () => tick(session, document), `tick ${document}`);
    return;
  }
  counting.state = 'done';
  const window = windowOn(session, document);
  // The timer's work saves it: committed like a command's change.
  if (window !== null) window.document = { ...window.document, finished: window.document.finished + 1 };
}

function pause(session, document) {
  const counting = timer(session, document);
  counting.left = Math.max(0, counting.left - (session.clock.now - counting.since));
  counting.state = 'paused';
  session.clock.cancel(`tick ${document}`);
}

countdown.command('start', { screens: ['countdown'], summary: 'start counting down, or go on after a pause' }, (window) => {
  const counting = timer(window.session, window.documentName);
  if (counting.state === 'running') throw new wb.Refused('the countdown is running already (pause it, or reset it)');
  if (counting.state === 'idle' || counting.state === 'done') counting.left = window.document.seconds * 1000;
  run(window.session, window.documentName);
});

countdown.command('pause', { screens: ['countdown'], summary: 'stop counting, keeping what is left' }, (window) => {
  if (timer(window.session, window.documentName).state !== 'running') throw new wb.Refused('the countdown is not running');
  pause(window.session, window.documentName);
});

countdown.command('reset', {
  screens: ['countdown'], summary: "stop, and start again from the document's seconds",
}, (window) => {
  const counting = timer(window.session, window.documentName);
  counting.state = 'idle';
  counting.left = null;
  window.session.clock.cancel(`tick ${window.documentName}`);
});

countdown.command('seconds', {
  screens: ['countdown'], summary: 'set how many seconds the countdown counts', arguments: [wb.integer('seconds', 1, 3600)],
}, (window, seconds) => {
  window.document = { ...window.document, seconds };
});

countdown.command('press', {
  screens: ['countdown'], summary: 'press the button on the device (pauses or goes on)',
}, (window) => {
  // Plays the device: its event comes in through the live source, as a real one's would.
  window.session.live('button', { document: window.documentName });
});

// The button on the device: it pauses a running countdown and starts a paused one again.
countdown.liveSource('button', (session, event) => {
  const counting = timer(session, event.document);
  counting.presses += 1;
  if (counting.state === 'running') pause(session, event.document);
  else if (counting.state === 'paused') run(session, event.document);
});

countdown.run();
