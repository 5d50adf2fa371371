// The GNU system calls the workbench needs that Swift's Glibc module does not declare.
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include "CSystemCalls.h"

int workbench_pipe_closed_on_exec(int descriptors[2]) { return pipe2(descriptors, O_CLOEXEC); }

int workbench_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
  return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
