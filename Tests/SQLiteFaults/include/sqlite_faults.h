#ifndef WORKBENCH_SQLITE_FAULTS_H
#define WORKBENCH_SQLITE_FAULTS_H

// A fault-injecting SQLite VFS for the store's tests: it passes everything to the default VFS
// until a fault is armed for a database file, then fails that file's writes (the database and
// its -wal and -shm companions) the way a full disk, a failing disk or a file system remounted
// read-only would. Open a database through it with the URI `file:PATH?vfs=workbench-faults`.

enum wb_fault_kind {
  WB_FAULT_NONE = 0,
  WB_FAULT_DISK_FULL = 1,  // writes fail as with ENOSPC
  WB_FAULT_IO_ERROR = 2,   // writes fail as with EIO
  WB_FAULT_READ_ONLY = 3,  // writes fail as with EROFS
};

/// Registers the VFS (once; later calls do nothing). Returns an SQLite result code.
int wb_faults_register(void);

/// Arms a fault for the database at `path` (and its companions): after `writes_allowed` more
/// successful writes, every write fails as `kind` says. `WB_FAULT_NONE` disarms.
void wb_faults_arm(const char *path, int kind, long long writes_allowed);

/// How many writes failed on purpose for `path` since it was armed.
long long wb_faults_failed_writes(const char *path);

#endif
