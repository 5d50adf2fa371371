#ifndef WORKBENCH_C_SYSTEM_CALLS_H
#define WORKBENCH_C_SYSTEM_CALLS_H

#include <spawn.h>

/// pipe2(fds, O_CLOEXEC): both ends close-on-exec from the moment they exist, so a child that
/// another thread starts meanwhile cannot inherit them (GNU; Swift's Glibc module leaves it out).
int workbench_pipe_closed_on_exec(int descriptors[2]);

/// posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor from `lowest` on
/// before it runs, so it holds only what it was given (GNU, glibc 2.34 and later).
int workbench_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// The process groups of the children a process started that must not outlive it (module
/// processes): kept here for a signal handler, which may read nothing else.
void workbench_hold_group(int group);
void workbench_release_group(int group);

/// The workers a process started (this program again, each ending its own module processes
/// when it is ended): kept here for the signal handler, which sends each SIGTERM.
void workbench_hold_worker(int pid);
void workbench_release_worker(int pid);

/// On SIGTERM, SIGHUP and SIGINT: every worker held is sent SIGTERM (it ends its own groups),
/// every group held is killed (SIGKILL), then the process ends as the signal would have ended it.
/// A signal ignored when this is called stays ignored.
void workbench_end_groups_on_termination(void);

/// Catches SIGPIPE with a handler that does nothing, when it is at its default: a write to a
/// pipe whose reader has gone then fails with EPIPE instead of ending the process, and a program
/// the process starts still gets SIGPIPE at its default (exec resets a caught signal, where an
/// ignored one stays ignored). Returns 1 when writes to a gone reader now fail with EPIPE (caught
/// here, or ignored already), 0 when SIGPIPE is left as it was (a handler of the program's own).
int workbench_catch_broken_pipes(void);

/// pidfd_open(pid, 0): a descriptor (close-on-exec) that becomes readable when the process ends,
/// or -1 (a kernel before 5.3, or one that refuses it).
int workbench_process_descriptor(int pid);

#endif
