// The GNU system calls the workbench needs that Swift's Glibc module does not declare.
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "CSystemCalls.h"

int workbench_pipe_closed_on_exec(int descriptors[2]) { return pipe2(descriptors, O_CLOEXEC); }

int workbench_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
  return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

// Held process groups: a fixed table, read and written with atomic operations only, so the
// signal handler below reads it safely whenever it runs.
#define WORKBENCH_GROUPS 256
static volatile int held_groups[WORKBENCH_GROUPS];

void workbench_hold_group(int group) {
  for (int index = 0; index < WORKBENCH_GROUPS; index++) {
    if (__sync_bool_compare_and_swap(&held_groups[index], 0, group)) return;
  }
}

void workbench_release_group(int group) {
  for (int index = 0; index < WORKBENCH_GROUPS; index++) {
    if (__sync_bool_compare_and_swap(&held_groups[index], group, 0)) return;
  }
}

static volatile int held_workers[WORKBENCH_GROUPS];

void workbench_hold_worker(int pid) {
  for (int index = 0; index < WORKBENCH_GROUPS; index++) {
    if (__sync_bool_compare_and_swap(&held_workers[index], 0, pid)) return;
  }
}

void workbench_release_worker(int pid) {
  for (int index = 0; index < WORKBENCH_GROUPS; index++) {
    if (__sync_bool_compare_and_swap(&held_workers[index], pid, 0)) return;
  }
}

static void end_groups(int signal_number) {
  // Workers first: each ends its own module processes as it goes.
  for (int index = 0; index < WORKBENCH_GROUPS; index++) {
    int pid = held_workers[index];
    if (pid > 0) kill(pid, SIGTERM);
  }
  for (int index = 0; index < WORKBENCH_GROUPS; index++) {
    int group = held_groups[index];
    if (group > 0) kill(-group, SIGKILL);
  }
  // Then as the signal would have: its default action, raised again.
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

void workbench_end_groups_on_termination(void) {
  struct sigaction action = {0};
  action.sa_handler = end_groups;
  sigemptyset(&action.sa_mask);
  int signals[] = {SIGTERM, SIGHUP, SIGINT};
  for (int index = 0; index < 3; index++) {
    // A signal the program was started with ignored stays ignored (`nohup`, a job started in
    // the background by a shell without job control): it would not have ended the program.
    struct sigaction current;
    if (sigaction(signals[index], 0, &current) == 0 && current.sa_handler == SIG_IGN) continue;
    sigaction(signals[index], &action, 0);
  }
}

static void broken_pipe(int signal_number) { (void)signal_number; }

int workbench_catch_broken_pipes(void) {
  struct sigaction current;
  if (sigaction(SIGPIPE, 0, &current) != 0) return 0;
  if (current.sa_handler == SIG_IGN) return 1;
  if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) return 0;
  struct sigaction action = {0};
  action.sa_handler = broken_pipe;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  return sigaction(SIGPIPE, &action, 0) == 0;
}

int workbench_process_descriptor(int pid) {
#ifdef SYS_pidfd_open
  return (int)syscall(SYS_pidfd_open, pid, 0);
#else
  (void)pid;
  return -1;
#endif
}
