/* lazyfs: a FUSE passthrough over a backing directory that forgets, on command, every write and every folder change
 * not yet made durable by fsync (a simulated power loss). Usage: lazyfs BACKING MOUNTPOINT [fuse options]. Control:
 * write "crash" to MOUNTPOINT/.lazyfs-ctl (then unmount), or "fail-write N ERRNO" (the N-th next write fails with
 * ENOSPC or EIO). See docs/lazyfs.md for the semantics and limits. */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>

#include "lazyfs.h"

static int crashed;          /* after a crash every operation fails: the harness unmounts and mounts again */
static long fail_countdown;  /* > 0: the fail_countdown-th next write fails with fail_errno */
static int fail_errno;

#define CTL_FH UINT64_MAX /* the control file's handle (paths may be NULL: the handle tells) */
#define FD(fi) ((fi) && (fi)->fh && (fi)->fh != CTL_FH ? (int)(fi)->fh - 1 : -1)
#define GUARD() do { if (crashed) return -EIO; } while (0)
#define BP(var, path) char var[PATH_MAX]; lazy_backing_path(var, path)

static int is_ctl(const char *path) { return path && strcmp(path, "/" LAZYFS_CTL) == 0; }
static int is_grave(const char *path) {
  return path && strncmp(path, "/" LAZYFS_GRAVEYARD, sizeof LAZYFS_GRAVEYARD) == 0 &&
         (path[sizeof LAZYFS_GRAVEYARD] == '\0' || path[sizeof LAZYFS_GRAVEYARD] == '/');
}

static void *lz_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
  (void)conn;
  cfg->use_ino = 1;
  cfg->hard_remove = 1;
  cfg->nullpath_ok = 1;
  cfg->entry_timeout = 0;
  cfg->attr_timeout = 0;
  cfg->negative_timeout = 0;
  return NULL;
}

static int lz_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  GUARD();
  if (is_ctl(path) || (fi && fi->fh == CTL_FH)) {
    memset(st, 0, sizeof *st);
    st->st_mode = S_IFREG | 0600;
    st->st_nlink = 1;
    st->st_ino = 1;
    return 0;
  }
  if (is_grave(path)) return -ENOENT;
  int r = FD(fi) >= 0 ? fstat(FD(fi), st) : ({ BP(p, path); lstat(p, st); });
  return r < 0 ? -errno : 0;
}

static int lz_readlink(const char *path, char *buf, size_t size) {
  GUARD();
  BP(p, path);
  ssize_t n = readlink(p, buf, size - 1);
  if (n < 0) return -errno;
  buf[n] = '\0';
  return 0;
}

static int lz_mkdir(const char *path, mode_t mode) {
  GUARD();
  BP(p, path);
  int r = lazy_snapshot_parent(path);
  if (r < 0) return r;
  if (mkdir(p, mode) < 0) return -errno;
  struct stat st;
  if (lstat(p, &st) == 0) lazy_snapshot_dir_empty(st.st_ino);
  return 0;
}

static int lz_unlink(const char *path) {
  GUARD();
  if (is_ctl(path)) return -EPERM;
  BP(p, path);
  int r = lazy_snapshot_parent(path);
  if (r < 0) return r;
  if ((r = lazy_bury(p, 0)) < 0) return r;
  return unlink(p) < 0 ? -errno : 0;
}

static int dir_is_empty(const char *p) {
  DIR *d = opendir(p);
  if (!d) return -errno;
  struct dirent *de;
  int n = 0;
  while ((de = readdir(d)) != NULL) if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
  closedir(d);
  return n == 0 ? 0 : -ENOTEMPTY;
}

static int lz_rmdir(const char *path) {
  GUARD();
  BP(p, path);
  int r = dir_is_empty(p);
  if (r < 0) return r;
  if ((r = lazy_snapshot_parent(path)) < 0) return r;
  return lazy_bury(p, 1); /* moved into the graveyard: the same inode comes back if the rmdir is forgotten */
}

static int lz_symlink(const char *target, const char *path) {
  GUARD();
  BP(p, path);
  int r = lazy_snapshot_parent(path);
  if (r < 0) return r;
  return symlink(target, p) < 0 ? -errno : 0;
}

static int lz_rename(const char *from, const char *to, unsigned int flags) {
  GUARD();
  if (flags & ~RENAME_NOREPLACE) return -EINVAL;
  if (is_ctl(from) || is_ctl(to)) return -EPERM;
  BP(pf, from);
  BP(pt, to);
  int r;
  if ((r = lazy_snapshot_parent(from)) < 0 || (r = lazy_snapshot_parent(to)) < 0) return r;
  struct stat st;
  if (lstat(pt, &st) == 0) {
    if (flags & RENAME_NOREPLACE) return -EEXIST;
    if (S_ISDIR(st.st_mode) && (r = dir_is_empty(pt)) < 0) return r;
    if ((r = lazy_bury(pt, S_ISDIR(st.st_mode))) < 0) return r;
  }
  return renameat2(AT_FDCWD, pf, AT_FDCWD, pt, flags) < 0 ? -errno : 0;
}

static int lz_link(const char *from, const char *to) {
  GUARD();
  BP(pf, from);
  BP(pt, to);
  int r = lazy_snapshot_parent(to);
  if (r < 0) return r;
  return link(pf, pt) < 0 ? -errno : 0;
}

static int lz_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
  GUARD();
  if (is_ctl(path)) return 0;
  if (FD(fi) >= 0) return fchmod(FD(fi), mode) < 0 ? -errno : 0;
  BP(p, path);
  return chmod(p, mode) < 0 ? -errno : 0;
}

static int lz_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
  GUARD();
  if (is_ctl(path)) return 0;
  if (FD(fi) >= 0) return fchown(FD(fi), uid, gid) < 0 ? -errno : 0;
  BP(p, path);
  return lchown(p, uid, gid) < 0 ? -errno : 0;
}

static int lz_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
  GUARD();
  if (is_ctl(path) || (fi && fi->fh == CTL_FH)) return 0;
  int fd = FD(fi), own = 0;
  if (fd < 0) {
    BP(p, path);
    if ((fd = open(p, O_RDWR)) < 0) return -errno;
    own = 1;
  }
  struct stat st;
  int r = fstat(fd, &st) < 0 ? -errno : lazy_snapshot_content(st.st_ino, fd);
  if (r == 0 && ftruncate(fd, size) < 0) r = -errno;
  if (own) close(fd);
  return r;
}

static int open_backing(const char *path, int flags, mode_t mode, int create) {
  BP(p, path);
  int f = flags & ~(O_APPEND | O_TRUNC | O_CREAT | O_EXCL);
  if ((flags & O_ACCMODE) != O_RDONLY) f = (f & ~O_ACCMODE) | O_RDWR; /* read access for the undo copy */
  int fd = create ? open(p, f | O_CREAT | O_EXCL, mode) : open(p, f);
  if (fd < 0 && errno == EACCES && !create) fd = open(p, flags & ~(O_APPEND | O_TRUNC));
  return fd < 0 ? -errno : fd;
}

static int lz_open(const char *path, struct fuse_file_info *fi) {
  GUARD();
  if (is_ctl(path)) { fi->fh = CTL_FH; fi->direct_io = 1; return 0; }
  int fd = open_backing(path, fi->flags, 0, 0);
  if (fd < 0) return fd;
  fi->fh = (uint64_t)fd + 1;
  return 0;
}

static int lz_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
  GUARD();
  if (is_ctl(path)) { fi->fh = CTL_FH; fi->direct_io = 1; return 0; }
  int r = lazy_snapshot_parent(path);
  if (r < 0) return r;
  int fd = open_backing(path, fi->flags, mode, 1);
  if (fd < 0) return fd;
  struct stat st;
  if (fstat(fd, &st) == 0) lazy_snapshot_empty(st.st_ino);
  fi->fh = (uint64_t)fd + 1;
  return 0;
}

static int lz_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  (void)path;
  GUARD();
  if (FD(fi) < 0) return 0;
  ssize_t n = pread(FD(fi), buf, size, off);
  return n < 0 ? -errno : (int)n;
}

static int control(const char *buf, size_t size) {
  char cmd[128] = { 0 };
  memcpy(cmd, buf, size < sizeof cmd - 1 ? size : sizeof cmd - 1);
  char name[32] = { 0 };
  long n = 0;
  if (strncmp(cmd, "crash", 5) == 0) {
    int r = lazy_recover();
    crashed = 1;
    fprintf(stderr, "lazyfs: crash: un-synced writes dropped%s\n", r < 0 ? " (with errors)" : "");
    return r < 0 ? r : (int)size;
  }
  if (sscanf(cmd, "fail-write %ld %31s", &n, name) == 2 && n > 0) {
    if (strcmp(name, "ENOSPC") == 0) fail_errno = ENOSPC;
    else if (strcmp(name, "EIO") == 0) fail_errno = EIO;
    else return -EINVAL;
    fail_countdown = n;
    return (int)size;
  }
  if (strncmp(cmd, "clear", 5) == 0) { fail_countdown = 0; return (int)size; }
  return -EINVAL;
}

static int lz_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  GUARD();
  (void)path;
  if (fi->fh == CTL_FH) return control(buf, size);
  int fd = FD(fi);
  if (fd < 0) return -EBADF;
  if (fail_countdown > 0 && --fail_countdown == 0) return -fail_errno;
  struct stat st;
  if (fstat(fd, &st) < 0) return -errno;
  int r = lazy_snapshot_content(st.st_ino, fd);
  if (r < 0) return r;
  ssize_t n = pwrite(fd, buf, size, off);
  if (n < 0) return -errno;
  if (fi->flags & (O_SYNC | O_DSYNC)) lazy_content_synced(st.st_ino);
  return (int)n;
}

static int lz_statfs(const char *path, struct statvfs *sv) {
  (void)path;
  GUARD();
  return statvfs(lazy_backing, sv) < 0 ? -errno : 0;
}

static int lz_release(const char *path, struct fuse_file_info *fi) {
  (void)path;
  if (FD(fi) >= 0) close(FD(fi));
  return 0;
}

static int lz_opendir(const char *path, struct fuse_file_info *fi) {
  GUARD();
  BP(p, path);
  int fd = open(p, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return -errno;
  fi->fh = (uint64_t)fd + 1;
  return 0;
}

static int lz_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
  (void)path; (void)datasync;
  GUARD();
  if (FD(fi) < 0) return 0;
  struct stat st;
  if (fstat(FD(fi), &st) < 0) return -errno;
  lazy_content_synced(st.st_ino);
  return 0;
}

static int lz_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags) {
  (void)path; (void)off; (void)flags;
  GUARD();
  int fd = dup(FD(fi));
  if (fd < 0) return -errno;
  DIR *d = fdopendir(fd);
  if (!d) { close(fd); return -errno; }
  rewinddir(d);
  struct stat me, top;
  int root = fstat(FD(fi), &me) == 0 && stat(lazy_backing, &top) == 0 && me.st_ino == top.st_ino && me.st_dev == top.st_dev;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (root && strcmp(de->d_name, LAZYFS_GRAVEYARD) == 0) continue;
    struct stat st = { .st_ino = de->d_ino, .st_mode = (mode_t)de->d_type << 12 };
    if (fill(buf, de->d_name, &st, 0, 0)) break;
  }
  closedir(d);
  return 0;
}

static int lz_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi) {
  (void)path; (void)datasync;
  GUARD();
  struct stat st;
  if (fstat(FD(fi), &st) < 0) return -errno;
  lazy_dir_synced(st.st_ino);
  return lazy_trim();
}

static int lz_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
  GUARD();
  if (is_ctl(path)) return 0;
  if (FD(fi) >= 0) return futimens(FD(fi), tv) < 0 ? -errno : 0;
  BP(p, path);
  return utimensat(AT_FDCWD, p, tv, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static const struct fuse_operations ops = {
  .init = lz_init,
  .getattr = lz_getattr,
  .readlink = lz_readlink,
  .mkdir = lz_mkdir,
  .unlink = lz_unlink,
  .rmdir = lz_rmdir,
  .symlink = lz_symlink,
  .rename = lz_rename,
  .link = lz_link,
  .chmod = lz_chmod,
  .chown = lz_chown,
  .truncate = lz_truncate,
  .open = lz_open,
  .create = lz_create,
  .read = lz_read,
  .write = lz_write,
  .statfs = lz_statfs,
  .release = lz_release,
  .fsync = lz_fsync,
  .opendir = lz_opendir,
  .readdir = lz_readdir,
  .releasedir = lz_release,
  .fsyncdir = lz_fsyncdir,
  .utimens = lz_utimens,
};

int main(int argc, char *argv[]) {
  if (argc < 3) {
    fprintf(stderr, "usage: lazyfs BACKING MOUNTPOINT [fuse options]\n");
    return 2;
  }
  if (!realpath(argv[1], lazy_backing)) {
    fprintf(stderr, "lazyfs: backing directory %s: %s\n", argv[1], strerror(errno));
    return 2;
  }
  /* fuse_main sees: prog MOUNTPOINT -f -s [options]: foreground, one thread (operations never interleave). */
  char **args = calloc((size_t)argc + 3, sizeof *args);
  int n = 0;
  args[n++] = argv[0];
  args[n++] = argv[2];
  args[n++] = "-f";
  args[n++] = "-s";
  for (int i = 3; i < argc; i++) args[n++] = argv[i];
  return fuse_main(n, args, &ops, NULL);
}
