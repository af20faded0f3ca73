/* lazyfs undo logs: the durable content of files and entries of folders changed since their last fsync, and the
 * recovery that puts the backing directory back to that durable state on a simulated power loss. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lazyfs.h"

char lazy_backing[4096];

struct content { ino_t ino; char *buf; size_t len; };
struct entry { char *name; ino_t ino; };
struct dirlog { ino_t ino; struct entry *e; size_t n; };
struct place { ino_t ino; int is_dir; char *path; };

static struct content *contents; static size_t ncontents, capcontents;
static struct dirlog *dirs; static size_t ndirs, capdirs;
static struct place *places; static size_t nplaces, capplaces;
static unsigned long buried;

#define GROW(arr, n, cap) do { if ((n) == (cap)) { (cap) = (cap) ? (cap) * 2 : 16; \
  (arr) = realloc((arr), (cap) * sizeof *(arr)); if (!(arr)) abort(); } } while (0)

void lazy_backing_path(char *out, const char *path) {
  snprintf(out, PATH_MAX, "%s%s", lazy_backing, strcmp(path, "/") == 0 ? "" : path);
}

static struct content *find_content(ino_t ino) {
  for (size_t i = 0; i < ncontents; i++) if (contents[i].ino == ino) return &contents[i];
  return NULL;
}

static struct dirlog *find_dir(ino_t ino) {
  for (size_t i = 0; i < ndirs; i++) if (dirs[i].ino == ino) return &dirs[i];
  return NULL;
}

int lazy_snapshot_content(ino_t ino, int fd) {
  if (find_content(ino)) return 0;
  struct stat st;
  if (fstat(fd, &st) < 0) return -errno;
  char *buf = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
  if (!buf) return -ENOMEM;
  size_t got = 0;
  while (got < (size_t)st.st_size) {
    ssize_t r = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);
    if (r < 0) { int e = errno; free(buf); return -e; }
    if (r == 0) break;
    got += (size_t)r;
  }
  GROW(contents, ncontents, capcontents);
  contents[ncontents++] = (struct content){ ino, buf, got };
  return 0;
}

void lazy_snapshot_empty(ino_t ino) {
  lazy_content_synced(ino); /* a new inode: a log under its number is of a freed one */
  lazy_dir_synced(ino);     /* (a freed folder's too: recovery would open this file as that folder) */
  GROW(contents, ncontents, capcontents);
  contents[ncontents++] = (struct content){ ino, NULL, 0 };
}

void lazy_content_synced(ino_t ino) {
  struct content *c = find_content(ino);
  if (!c) return;
  free(c->buf);
  *c = contents[--ncontents];
}

static int hidden(const char *dir, const char *name) {
  if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return 1;
  return strcmp(dir, lazy_backing) == 0 && strcmp(name, LAZYFS_GRAVEYARD) == 0;
}

int lazy_snapshot_dir(const char *dir) {
  struct stat st;
  if (lstat(dir, &st) < 0) return -errno;
  if (find_dir(st.st_ino)) return 0;
  DIR *d = opendir(dir);
  if (!d) return -errno;
  struct dirlog log = { st.st_ino, NULL, 0 };
  size_t cap = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (hidden(dir, de->d_name)) continue;
    GROW(log.e, log.n, cap);
    log.e[log.n++] = (struct entry){ strdup(de->d_name), de->d_ino };
  }
  closedir(d);
  GROW(dirs, ndirs, capdirs);
  dirs[ndirs++] = log;
  return 0;
}

int lazy_snapshot_parent(const char *path) {
  char full[PATH_MAX];
  lazy_backing_path(full, path);
  char *slash = strrchr(full, '/');
  if (!slash) return -EINVAL;
  *slash = '\0';
  int r = lazy_snapshot_dir(full);
  *slash = '/';
  return r;
}

void lazy_snapshot_dir_empty(ino_t ino) {
  lazy_dir_synced(ino);     /* a new inode: a log under its number is of a freed one */
  lazy_content_synced(ino); /* (a freed file's too) */
  GROW(dirs, ndirs, capdirs);
  dirs[ndirs++] = (struct dirlog){ ino, NULL, 0 };
}

static void free_dirlog(struct dirlog *d) {
  for (size_t i = 0; i < d->n; i++) free(d->e[i].name);
  free(d->e);
}

void lazy_dir_synced(ino_t ino) {
  struct dirlog *d = find_dir(ino);
  if (!d) return;
  free_dirlog(d);
  *d = dirs[--ndirs];
}

static int ensure_graveyard(char *out) {
  snprintf(out, PATH_MAX, "%s/%s", lazy_backing, LAZYFS_GRAVEYARD);
  if (mkdir(out, 0700) < 0 && errno != EEXIST) return -errno;
  return 0;
}

int lazy_bury(const char *backing, int is_dir) {
  char grave[PATH_MAX], dst[PATH_MAX];
  int r = ensure_graveyard(grave);
  if (r < 0) return r;
  snprintf(dst, sizeof dst, "%s/g%lu", grave, ++buried);
  if ((is_dir ? rename(backing, dst) : link(backing, dst)) < 0) return -errno;
  return 0;
}

/* Index every inode under the backing root (graveyard included) by its number. */
static void walk(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
    struct stat st;
    if (lstat(p, &st) < 0) continue;
    GROW(places, nplaces, capplaces);
    places[nplaces++] = (struct place){ st.st_ino, S_ISDIR(st.st_mode), strdup(p) };
    if (S_ISDIR(st.st_mode)) walk(p);
  }
  closedir(d);
}

static void reindex(void) {
  for (size_t i = 0; i < nplaces; i++) free(places[i].path);
  nplaces = 0;
  struct stat st;
  if (lstat(lazy_backing, &st) == 0) {
    GROW(places, nplaces, capplaces);
    places[nplaces++] = (struct place){ st.st_ino, 1, strdup(lazy_backing) };
  }
  walk(lazy_backing);
}

static const struct place *where(ino_t ino) {
  for (size_t i = 0; i < nplaces; i++) if (places[i].ino == ino) return &places[i];
  return NULL;
}

static const struct entry *durable_entry(const struct dirlog *d, const char *name) {
  for (size_t i = 0; i < d->n; i++) if (strcmp(d->e[i].name, name) == 0) return &d->e[i];
  return NULL;
}

/* Put file contents back to what was last synced. */
static int restore_contents(void) {
  int bad = 0;
  for (size_t i = 0; i < ncontents; i++) {
    const struct place *p = where(contents[i].ino);
    if (!p || p->is_dir) continue; /* an inode no durable name reaches (it goes with its names), or a freed one's */
    int fd = open(p->path, O_WRONLY | O_TRUNC);
    if (fd < 0) { fprintf(stderr, "lazyfs: cannot restore %s: %s\n", p->path, strerror(errno)); bad = 1; continue; }
    size_t off = 0;
    while (off < contents[i].len) {
      ssize_t w = pwrite(fd, contents[i].buf + off, contents[i].len - off, (off_t)off);
      if (w <= 0) { bad = 1; break; }
      off += (size_t)w;
    }
    close(fd);
  }
  return bad ? -EIO : 0;
}

/* Phase a: move every entry a folder did not durably have (or had as another inode) into the graveyard. */
static int remove_undurable(void) {
  for (size_t i = 0; i < ndirs; i++) {
    const struct place *dp = where(dirs[i].ino);
    if (!dp || !dp->is_dir) continue; /* gone, or its number now names a file: the log is of a freed folder */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", dp->path);
    DIR *d = opendir(dir);
    if (!d) return -errno;
    struct dirent *de;
    int moved_dir = 0;
    while ((de = readdir(d)) != NULL) {
      if (hidden(dir, de->d_name)) continue;
      const struct entry *e = durable_entry(&dirs[i], de->d_name);
      if (e && e->ino == de->d_ino) continue;
      char p[PATH_MAX];
      snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
      struct stat st;
      if (lstat(p, &st) < 0) continue;
      int r = lazy_bury(p, 1); /* rename: the name goes, the inode stays reachable */
      if (r < 0) { closedir(d); return r; }
      if (S_ISDIR(st.st_mode)) moved_dir = 1;
    }
    closedir(d);
    if (moved_dir) reindex();
  }
  return 0;
}

/* Phase b: give every folder back the durable names it lost, from wherever their inodes are now. */
static int add_durable(void) {
  int bad = 0;
  for (size_t i = 0; i < ndirs; i++) {
    for (size_t k = 0; k < dirs[i].n; k++) {
      const struct place *dp = where(dirs[i].ino);
      if (!dp || !dp->is_dir) break;
      char p[PATH_MAX];
      snprintf(p, sizeof p, "%s/%s", dp->path, dirs[i].e[k].name);
      struct stat st;
      if (lstat(p, &st) == 0 && st.st_ino == dirs[i].e[k].ino) continue;
      const struct place *src = where(dirs[i].e[k].ino);
      if (!src) { fprintf(stderr, "lazyfs: durable inode of %s is gone\n", p); bad = 1; continue; }
      if (src->is_dir) {
        if (rename(src->path, p) < 0) { bad = 1; continue; }
        reindex();
      } else if (link(src->path, p) < 0) {
        bad = 1;
      }
    }
  }
  return bad ? -EIO : 0;
}

static void rm_tree(const char *p) {
  struct stat st;
  if (lstat(p, &st) < 0) return;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(p);
    if (d) {
      struct dirent *de;
      while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        char c[PATH_MAX];
        snprintf(c, sizeof c, "%s/%s", p, de->d_name);
        rm_tree(c);
      }
      closedir(d);
    }
    rmdir(p);
  } else {
    unlink(p);
  }
}

int lazy_recover(void) {
  reindex();
  int r1 = restore_contents();
  int r2 = remove_undurable();
  reindex();
  int r3 = r2 < 0 ? r2 : add_durable();
  char grave[PATH_MAX];
  snprintf(grave, sizeof grave, "%s/%s", lazy_backing, LAZYFS_GRAVEYARD);
  rm_tree(grave);
  for (size_t i = 0; i < ncontents; i++) free(contents[i].buf);
  ncontents = 0;
  for (size_t i = 0; i < ndirs; i++) free_dirlog(&dirs[i]);
  ndirs = 0;
  sync();
  return r1 < 0 ? r1 : r2 < 0 ? r2 : r3;
}

int lazy_trim(void) {
  char grave[PATH_MAX];
  snprintf(grave, sizeof grave, "%s/%s", lazy_backing, LAZYFS_GRAVEYARD);
  DIR *d = opendir(grave);
  if (!d) return 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    int needed = 0;
    for (size_t i = 0; i < ndirs && !needed; i++)
      for (size_t k = 0; k < dirs[i].n && !needed; k++) needed = dirs[i].e[k].ino == de->d_ino;
    if (needed) continue;
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", grave, de->d_name);
    struct stat st;
    if (lstat(p, &st) == 0 && st.st_nlink <= 1 && !S_ISDIR(st.st_mode)) lazy_content_synced(st.st_ino);
    rm_tree(p);
  }
  closedir(d);
  return 0;
}

void lazy_counts(size_t *files, size_t *dirs_out) {
  *files = ncontents;
  *dirs_out = ndirs;
}
