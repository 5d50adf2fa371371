#!/usr/bin/env node
// Notes with a draft that saves itself five seconds after the last typing, on the JavaScript
// kit: the same module as main.swift and drafts.py beside it.
'use strict';
const wb = require('workbench-module');

const drafts = new wb.Module('drafts', '1.0', 'notes with an autosave');
drafts.documentKind('note', { samples: { memo: { text: '' } } });

drafts.screen('note', { kind: 'note', fields: ['text', 'draft', 'autosave'] }, class extends wb.Screen {
  constructor(window) {
    super(window);
    // A window is its document and view state: one opened on a draft whose autosave waits sets
    // it again, due when the view state says.
    const due = window.state.autosave ?? null;
    const clock = window.session.clock;
    if (due !== null) clock.schedule(Math.min(5000, Math.max(0, due - clock.now)), () => save(window), `autosave ${window.key}`);
  }

  restored() {
    // Given a view state back (`undo view`, a relaunch): the autosave it says waits, set if none
    // waits then (an undo put back the one `discard` cancelled), and none when it says none.
    const clock = this.window.session.clock;
    const timerId = `autosave ${this.window.key}`;
    const due = this.window.state.autosave ?? null;
    if (due !== null && clock.due(timerId) !== Math.min(due, clock.now + 5000)) {
      clock.schedule(Math.min(5000, Math.max(0, due - clock.now)), () => save(this.window), timerId);
    } else if (due === null) {
      clock.cancel(timerId);
    }
  }

  closed() {
    this.window.session.clock.cancel(`autosave ${this.window.key}`);
  }

  frame() {
    const state = this.window.state;
    return { text: this.window.document.text, draft: state.draft ?? '', autosave: state.autosave ?? null };
  }

  text(frame) {
    return `${frame.text} | draft: ${frame.draft}`;
  }
});

function save(window) {
  window.document = { ...window.document, text: window.document.text + (window.state.draft ?? '') };
  window.state = { draft: '', autosave: null };
}

drafts.command('type', { screens: ['note'], summary: 'type into the draft', arguments: [wb.rest('words')] },
  (window, words) => {
    const clock = window.session.clock;
    window.state = { draft: (window.state.draft ?? '') + words, autosave: clock.now + 5000 };
    clock.schedule(5000, () => save(window), `autosave ${window.key}`);
  });

drafts.command('discard', { screens: ['note'], summary: 'drop the draft and its autosave' }, (window) => {
  window.state = { draft: '', autosave: null };
  window.session.clock.cancel(`autosave ${window.key}`);
});

drafts.run();
