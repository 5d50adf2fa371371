#include "sqlite_faults.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

// Faults are kept per database path, so tests running in parallel on their own files do not
// disturb each other.
#define WB_MAX_ARMED 64
struct wb_fault {
  char *path;
  int kind;
  long long writes_allowed;
  long long failed;
};
static struct wb_fault wb_faults[WB_MAX_ARMED];
static pthread_mutex_t wb_lock = PTHREAD_MUTEX_INITIALIZER;
static sqlite3_vfs *wb_base = NULL;
static sqlite3_vfs wb_vfs;
static __thread int wb_last_errno = 0;

struct wb_file {
  sqlite3_file base;    // must come first: SQLite sees this struct as an sqlite3_file
  char *database;       // the database path this file belongs to (companions share it)
  sqlite3_file *real;   // the default VFS's file, allocated after this struct
};

static char *wb_database_of(const char *name) {
  if (name == NULL) return NULL;
  size_t length = strlen(name);
  const char *suffixes[] = {"-wal", "-shm", "-journal"};
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(suffixes[i]);
    if (length > n && strcmp(name + length - n, suffixes[i]) == 0) return strndup(name, length - n);
  }
  return strdup(name);
}

static struct wb_fault *wb_find(const char *path) {
  for (int i = 0; i < WB_MAX_ARMED; i++) {
    if (wb_faults[i].path != NULL && strcmp(wb_faults[i].path, path) == 0) return &wb_faults[i];
  }
  return NULL;
}

// Whether this write must fail, and with which code; counts the write either way.
static int wb_write_fault(const char *database) {
  if (database == NULL) return SQLITE_OK;
  int code = SQLITE_OK;
  pthread_mutex_lock(&wb_lock);
  struct wb_fault *fault = wb_find(database);
  if (fault != NULL && fault->kind != WB_FAULT_NONE) {
    if (fault->writes_allowed > 0) {
      fault->writes_allowed--;
    } else {
      fault->failed++;
      switch (fault->kind) {
        case WB_FAULT_DISK_FULL: wb_last_errno = ENOSPC; code = SQLITE_FULL; break;
        case WB_FAULT_IO_ERROR: wb_last_errno = EIO; code = SQLITE_IOERR_WRITE; break;
        default: wb_last_errno = EROFS; code = SQLITE_IOERR_WRITE; break;
      }
    }
  }
  pthread_mutex_unlock(&wb_lock);
  return code;
}

#define REAL(file) (((struct wb_file *)(file))->real)

static int wb_close(sqlite3_file *file) {
  struct wb_file *f = (struct wb_file *)file;
  int result = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
  free(f->database);
  return result;
}
static int wb_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
  return REAL(file)->pMethods->xRead(REAL(file), buffer, amount, offset);
}
static int wb_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
  int fault = wb_write_fault(((struct wb_file *)file)->database);
  if (fault != SQLITE_OK) return fault;
  return REAL(file)->pMethods->xWrite(REAL(file), buffer, amount, offset);
}
static int wb_truncate(sqlite3_file *file, sqlite3_int64 size) {
  return REAL(file)->pMethods->xTruncate(REAL(file), size);
}
static int wb_sync(sqlite3_file *file, int flags) {
  int fault = wb_write_fault(((struct wb_file *)file)->database);
  if (fault == SQLITE_FULL) fault = SQLITE_IOERR_FSYNC;
  if (fault != SQLITE_OK) return fault;
  return REAL(file)->pMethods->xSync(REAL(file), flags);
}
static int wb_file_size(sqlite3_file *file, sqlite3_int64 *size) {
  return REAL(file)->pMethods->xFileSize(REAL(file), size);
}
static int wb_lock_file(sqlite3_file *file, int level) { return REAL(file)->pMethods->xLock(REAL(file), level); }
static int wb_unlock_file(sqlite3_file *file, int level) { return REAL(file)->pMethods->xUnlock(REAL(file), level); }
static int wb_check_reserved(sqlite3_file *file, int *out) {
  return REAL(file)->pMethods->xCheckReservedLock(REAL(file), out);
}
static int wb_file_control(sqlite3_file *file, int op, void *arg) {
  return REAL(file)->pMethods->xFileControl(REAL(file), op, arg);
}
static int wb_sector_size(sqlite3_file *file) { return REAL(file)->pMethods->xSectorSize(REAL(file)); }
static int wb_device_characteristics(sqlite3_file *file) {
  return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file));
}
static int wb_shm_map(sqlite3_file *file, int page, int size, int extend, void volatile **out) {
  return REAL(file)->pMethods->xShmMap(REAL(file), page, size, extend, out);
}
static int wb_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
  return REAL(file)->pMethods->xShmLock(REAL(file), offset, n, flags);
}
static void wb_shm_barrier(sqlite3_file *file) { REAL(file)->pMethods->xShmBarrier(REAL(file)); }
static int wb_shm_unmap(sqlite3_file *file, int delete_flag) {
  return REAL(file)->pMethods->xShmUnmap(REAL(file), delete_flag);
}
static int wb_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
  *out = NULL;  // no memory-mapped reads: every page goes through xRead
  return SQLITE_OK;
}
static int wb_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *page) { return SQLITE_OK; }

static const sqlite3_io_methods wb_methods = {
  3, wb_close, wb_read, wb_write, wb_truncate, wb_sync, wb_file_size, wb_lock_file, wb_unlock_file,
  wb_check_reserved, wb_file_control, wb_sector_size, wb_device_characteristics, wb_shm_map, wb_shm_lock,
  wb_shm_barrier, wb_shm_unmap, wb_fetch, wb_unfetch,
};

static int wb_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
  struct wb_file *f = (struct wb_file *)file;
  f->real = (sqlite3_file *)&f[1];
  f->database = wb_database_of(name);
  int result = wb_base->xOpen(wb_base, name, f->real, flags, out_flags);
  file->pMethods = f->real->pMethods ? &wb_methods : NULL;
  if (file->pMethods == NULL) {
    free(f->database);
    f->database = NULL;
  }
  return result;
}
static int wb_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
  return wb_base->xDelete(wb_base, name, sync_dir);
}
static int wb_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
  return wb_base->xAccess(wb_base, name, flags, out);
}
static int wb_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
  return wb_base->xFullPathname(wb_base, name, size, out);
}
static void *wb_dl_open(sqlite3_vfs *vfs, const char *name) { return wb_base->xDlOpen(wb_base, name); }
static void wb_dl_error(sqlite3_vfs *vfs, int size, char *out) { wb_base->xDlError(wb_base, size, out); }
static void (*wb_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
  return wb_base->xDlSym(wb_base, handle, symbol);
}
static void wb_dl_close(sqlite3_vfs *vfs, void *handle) { wb_base->xDlClose(wb_base, handle); }
static int wb_randomness(sqlite3_vfs *vfs, int size, char *out) { return wb_base->xRandomness(wb_base, size, out); }
static int wb_sleep(sqlite3_vfs *vfs, int microseconds) { return wb_base->xSleep(wb_base, microseconds); }
static int wb_current_time(sqlite3_vfs *vfs, double *out) { return wb_base->xCurrentTime(wb_base, out); }
static int wb_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
  // The error number of an injected failure, as the unix VFS reports errno.
  // SQLite may ask more than once on its way out of a failed statement, so the number stays
  // until the fault is armed again.
  if (wb_last_errno != 0) return wb_last_errno;
  return wb_base->xGetLastError ? wb_base->xGetLastError(wb_base, size, out) : 0;
}
static int wb_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
  return wb_base->xCurrentTimeInt64(wb_base, out);
}

int wb_faults_register(void) {
  pthread_mutex_lock(&wb_lock);
  int result = SQLITE_OK;
  if (wb_base == NULL) {
    wb_base = sqlite3_vfs_find(NULL);
    if (wb_base == NULL) {
      result = SQLITE_ERROR;
    } else {
      memset(&wb_vfs, 0, sizeof wb_vfs);
      wb_vfs.iVersion = 2;
      wb_vfs.szOsFile = (int)sizeof(struct wb_file) + wb_base->szOsFile;
      wb_vfs.mxPathname = wb_base->mxPathname;
      wb_vfs.zName = "workbench-faults";
      wb_vfs.xOpen = wb_open;
      wb_vfs.xDelete = wb_delete;
      wb_vfs.xAccess = wb_access;
      wb_vfs.xFullPathname = wb_full_pathname;
      wb_vfs.xDlOpen = wb_dl_open;
      wb_vfs.xDlError = wb_dl_error;
      wb_vfs.xDlSym = wb_dl_sym;
      wb_vfs.xDlClose = wb_dl_close;
      wb_vfs.xRandomness = wb_randomness;
      wb_vfs.xSleep = wb_sleep;
      wb_vfs.xCurrentTime = wb_current_time;
      wb_vfs.xGetLastError = wb_get_last_error;
      wb_vfs.xCurrentTimeInt64 = wb_current_time_int64;
      result = sqlite3_vfs_register(&wb_vfs, 0);
    }
  }
  pthread_mutex_unlock(&wb_lock);
  return result;
}

void wb_faults_arm(const char *path, int kind, long long writes_allowed) {
  pthread_mutex_lock(&wb_lock);
  wb_last_errno = 0;
  struct wb_fault *fault = wb_find(path);
  if (fault == NULL) {
    for (int i = 0; i < WB_MAX_ARMED && fault == NULL; i++) {
      if (wb_faults[i].path == NULL) {
        fault = &wb_faults[i];
        fault->path = strdup(path);
      }
    }
  }
  if (fault != NULL) {
    fault->kind = kind;
    fault->writes_allowed = writes_allowed;
    fault->failed = 0;
  }
  pthread_mutex_unlock(&wb_lock);
}

long long wb_faults_failed_writes(const char *path) {
  pthread_mutex_lock(&wb_lock);
  struct wb_fault *fault = wb_find(path);
  long long failed = fault ? fault->failed : 0;
  pthread_mutex_unlock(&wb_lock);
  return failed;
}
