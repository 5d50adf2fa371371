#ifndef WORKBENCH_CREADLINE_SHIM_H
#define WORKBENCH_CREADLINE_SHIM_H

#include <stdio.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <poll.h>
#include <readline/readline.h>
#include <readline/history.h>

// Swift 6 refuses to touch C global variables, so the shell reaches readline's globals
// through these small accessors.

// readline keeps the pointers it is given for the rest of the process (it reads
// rl_readline_name while parsing ~/.inputrc and the word-break characters on every Tab), so
// these setters hand it copies that are never freed, not the caller's temporary buffers.
#include <stdlib.h>
#include <string.h>
/// A copy of `text` that lives until the next copy into the same slot replaces it.
static inline const char *wb_keep(char **slot, const char *text) {
  char *copy = strdup(text);
  if (copy == NULL) return *slot;
  free(*slot);
  *slot = copy;
  return copy;
}
// readline exports COLUMNS and LINES as it starts unless told not to: a resize would leave them
// stale, and the shell reads COLUMNS as the user's own choice of width.
static inline void wb_rl_keep_environment(void) { rl_change_environment = 0; }
static inline void wb_rl_set_readline_name(const char *name) {
  static char *kept = NULL;
  rl_readline_name = wb_keep(&kept, name);
}
static inline void wb_rl_set_completion_function(rl_completion_func_t *fn) {
  rl_attempted_completion_function = fn;
}
static inline void wb_rl_set_display_matches_hook(rl_compdisp_func_t *fn) {
  rl_completion_display_matches_hook = fn;
}
/// Writes a completion listing where readline writes, then redraws the prompt and the line.
static inline void wb_rl_show_listing(const char *text) {
  FILE *out = rl_outstream ? rl_outstream : stdout;
  fputs(text, out);
  fflush(out);
  rl_forced_update_display();
}
static inline int wb_rl_screen_width(void) {
  int rows = 0, columns = 0;
  rl_get_screen_size(&rows, &columns);
  return columns > 0 ? columns : 80;
}
static inline int wb_rl_query_items(void) { return rl_completion_query_items; }
static inline void wb_rl_set_attempted_completion_over(int v) { rl_attempted_completion_over = v; }
/// Whether readline sorts the matches as text before listing them; the shell's come in order
/// already (ids numerically).
static inline void wb_rl_set_sort_completion_matches(int v) { rl_sort_completion_matches = v; }
static inline void wb_rl_set_basic_word_break_characters(const char *s) {
  static char *kept = NULL;
  rl_basic_word_break_characters = wb_keep(&kept, s);
}
static inline const char *wb_rl_line_buffer(void) { return rl_line_buffer; }
static inline void wb_rl_set_catch_signals(int v) { rl_catch_signals = v; }
/// readline writes through stdio; the shell writes to the descriptor. Flush before mixing them.
static inline void wb_rl_flush(void) { fflush(rl_outstream ? rl_outstream : stdout); }

// Ctrl-C: the signal handler sets a flag and writes a byte to a pipe (the self-pipe trick),
// so the shell's poll() wakes up even when the signal arrived just before it was called.
static volatile sig_atomic_t wb_interrupted = 0;
static int wb_signal_pipe[2] = {-1, -1};
static inline void wb_on_sigint(int sig) {
  (void)sig;
  wb_interrupted = 1;
  if (wb_signal_pipe[1] >= 0) {
    int saved = errno;
    ssize_t ignored = write(wb_signal_pipe[1], "i", 1);
    (void)ignored;
    errno = saved;
  }
}
/// Installs the SIGINT handler; returns the descriptor to poll for interrupts, or -1.
static inline int wb_install_sigint_handler(void) {
  if (wb_signal_pipe[0] < 0 && pipe(wb_signal_pipe) == 0) {
    for (int i = 0; i < 2; i++) {
      fcntl(wb_signal_pipe[i], F_SETFL, fcntl(wb_signal_pipe[i], F_GETFL) | O_NONBLOCK);
      fcntl(wb_signal_pipe[i], F_SETFD, FD_CLOEXEC);
    }
  }
  struct sigaction action;
  action.sa_handler = wb_on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: poll() returns EINTR so the loop can react
  sigaction(SIGINT, &action, NULL);
  // A parent may have left SIGINT blocked; the shell needs it.
  sigset_t interrupt;
  sigemptyset(&interrupt);
  sigaddset(&interrupt, SIGINT);
  sigprocmask(SIG_UNBLOCK, &interrupt, NULL);
  return wb_signal_pipe[0];
}
/// Whether Ctrl-C was pressed since the last `wb_take_interrupt`, without taking it.
static inline int wb_interrupt_pending(void) { return wb_interrupted; }
/// Whether Ctrl-C was pressed since the last call; empties the pipe.
static inline int wb_take_interrupt(void) {
  char drain[64];
  if (wb_signal_pipe[0] >= 0) {
    while (read(wb_signal_pipe[0], drain, sizeof drain) > 0) {}
  }
  int value = wb_interrupted;
  wb_interrupted = 0;
  return value;
}

/// readline's key reader: waits for a key or Ctrl-C. SIGINT flushes the terminal's input, so
/// a reader blocked in read() would hang until the next key; this one returns Ctrl-C (3),
/// which the shell binds to abandoning the line.
static inline int wb_getc(FILE *stream) {
  int input = fileno(stream);
  for (;;) {
    struct pollfd fds[2] = {{input, POLLIN, 0}, {wb_signal_pipe[0], POLLIN, 0}};
    int ready = poll(fds, wb_signal_pipe[0] >= 0 ? 2 : 1, -1);
    if (wb_take_interrupt()) return 3;
    if (ready < 0) {
      if (errno == EINTR) continue;
      return EOF;
    }
    if (fds[0].revents == 0) continue;
    unsigned char c;
    ssize_t count = read(input, &c, 1);
    if (count == 1) return c;
    if (count == 0) return EOF;
    if (errno == EINTR || errno == EAGAIN) continue;
    return EOF;
  }
}
static inline void wb_rl_use_interruptible_getc(void) { rl_getc_function = wb_getc; }

#endif
