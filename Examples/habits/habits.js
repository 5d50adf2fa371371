#!/usr/bin/env node
'use strict';
// Habits on the JavaScript kit (`npm install` here links Kits/javascript), the same module as
// habits.py on the Python kit and Sources/Habits on the Swift one: each habit keeps the day it was
// last done and its streak, `done ID` marks it done today, `filter due` lists only what is not
// done today in one window, and a day passes at midnight on the session's calendar
// (`session.clock.date`), which a scenario's `date:` states and a recording keeps.
//
//     workbench run --module ./habits.js Scenarios/

const wb = require('workbench-module');

const DAY = 86400000; // milliseconds

const habits = new wb.Module('habits', '1.0', "habits done once a day, with their streaks, on the session's calendar");
habits.documentKind('habits', {
  samples: {
    routine: {
      habits: [
        { id: 1, name: 'Read', lastDone: null, streak: 0 },
        { id: 2, name: 'Walk', lastDone: null, streak: 0 },
      ],
    },
  },
});

/** The session's day: days since 1970-01-01 on its calendar. */
function today(session) {
  return Math.floor(session.clock.date / DAY);
}

function dayText(day) {
  return new Date(day * DAY).toISOString().slice(0, 10);
}

/** Wakes the session's habits windows at the next midnight, so the new day shows unasked. */
function atMidnight(session) {
  session.clock.schedule(DAY - (session.clock.date % DAY), () => atMidnight(session), 'midnight');
}

habits.screen('habits', {
  kind: 'habits', fields: ['today', 'filter', 'rows'],
  summaries: {
    today: "the session's day, as YYYY-MM-DD",
    filter: 'which habits this window lists: all, or due (not done today)',
    rows: 'the habits listed',
  },
  records: {
    rows: {
      id: "the habit's id, what `done` takes", name: 'what the habit is',
      streak: 'days in a row it was done; 0 once a day is missed',
      doneToday: "whether it was done on the session's day",
    },
  },
}, class extends wb.Screen {
  constructor(window) {
    super(window);
    if (window.session.clock.due('midnight') === null) atMidnight(window.session);
  }

  frame() {
    const day = today(this.window.session);
    const shown = this.window.state.filter ?? 'all';
    const listed = this.window.document.habits.filter((habit) => shown === 'all' || habit.lastDone !== day);
    const rows = listed.map((habit) => {
      const last = habit.lastDone;
      const kept = last !== null && last >= day - 1; // done today or yesterday: the streak holds
      return { id: habit.id, name: habit.name, streak: kept ? habit.streak : 0, doneToday: last === day };
    });
    return { today: dayText(day), filter: shown, rows };
  }

  text(frame) {
    const lines = frame.rows.map(
      (row) => `  ${row.id}  ${row.name}  streak ${row.streak}${row.doneToday ? '  done today' : ''}`);
    return [frame.today + (frame.filter === 'due' ? ' (due only)' : ''), ...lines].join('\n');
  }
});

habits.command('done', {
  screens: ['habits'], summary: 'mark a habit done today',
  arguments: [wb.integer('id', 1, 1000000, { help: "the habit's id" })],
}, (window, id) => {
  const day = today(window.session);
  const listed = window.document.habits;
  const habit = listed.find((each) => each.id === id);
  if (habit === undefined) throw new wb.Refused(`no habit ${id} (habits: ${listed.map((each) => each.id).join(', ')})`);
  if (habit.lastDone === day) throw new wb.Refused(`habit ${id} is done today already`);
  const streak = habit.lastDone === day - 1 ? habit.streak + 1 : 1;
  const changed = { ...habit, lastDone: day, streak };
  window.document = { ...window.document, habits: listed.map((each) => (each.id === id ? changed : each)) };
});

habits.command('filter', {
  screens: ['habits'], summary: 'list every habit in this window, or only those due today',
  arguments: [wb.choice('which', ['all', 'due'], { help: 'all, or due: only those not done today' })],
}, (window, which) => {
  window.state = { ...window.state, filter: which };
});

habits.run();
