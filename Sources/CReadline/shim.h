#ifndef WORKBENCH_CREADLINE_SHIM_H
#define WORKBENCH_CREADLINE_SHIM_H

#include <stdio.h>
#include <signal.h>
#include <readline/readline.h>
#include <readline/history.h>

// Swift 6 refuses to touch C global variables, so the shell reaches readline's globals
// through these small accessors.

static inline void wb_rl_set_readline_name(const char *name) { rl_readline_name = name; }
static inline const char *wb_rl_library_version(void) { return rl_library_version; }
static inline void wb_rl_set_completion_function(rl_completion_func_t *fn) {
  rl_attempted_completion_function = fn;
}
static inline void wb_rl_set_completion_append_character(int c) { rl_completion_append_character = c; }
static inline void wb_rl_set_attempted_completion_over(int v) { rl_attempted_completion_over = v; }
static inline void wb_rl_set_basic_word_break_characters(const char *s) {
  rl_basic_word_break_characters = s;
}
static inline const char *wb_rl_line_buffer(void) { return rl_line_buffer; }
static inline int wb_rl_point(void) { return rl_point; }
static inline void wb_rl_set_catch_signals(int v) { rl_catch_signals = v; }
static inline void wb_rl_set_catch_sigwinch(int v) { rl_catch_sigwinch = v; }
static inline void wb_rl_set_sort_completion_matches(int v) { rl_sort_completion_matches = v; }

// Ctrl-C: a flag set by the signal handler, read by the shell's poll loop.
static volatile sig_atomic_t wb_interrupted = 0;
static inline void wb_on_sigint(int sig) { (void)sig; wb_interrupted = 1; }
static inline void wb_install_sigint_handler(void) {
  struct sigaction action;
  action.sa_handler = wb_on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: poll() returns EINTR so the loop can react
  sigaction(SIGINT, &action, NULL);
}
static inline int wb_take_interrupt(void) {
  int value = wb_interrupted;
  wb_interrupted = 0;
  return value;
}

#endif
