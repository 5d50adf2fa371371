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

/// On SIGTERM, SIGHUP and SIGINT: every group held is killed (SIGKILL), then the process ends as
/// the signal would have ended it. For processes whose parent may end them (a worker).
void workbench_end_groups_on_termination(void);

#endif
