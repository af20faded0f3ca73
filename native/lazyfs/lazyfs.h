/* lazyfs: shared state of the lazy file system (undo logs of what is not yet durable, and the recovery that applies them). */
#ifndef LAZYFS_H
#define LAZYFS_H

#include <stddef.h>
#include <sys/types.h>

/* Name of the hidden folder (in the backing root) that keeps unlinked inodes a durable name may still need. */
#define LAZYFS_GRAVEYARD ".lazyfs-graveyard"
/* Name of the control file at the mount's root: write "crash" or "fail-write N ERRNO" to it. */
#define LAZYFS_CTL ".lazyfs-ctl"

/* The backing directory's path (absolute, no trailing slash). */
extern char lazy_backing[4096];

/* Backing path of mount path `path` into `out` (PATH_MAX bytes). */
void lazy_backing_path(char *out, const char *path);

/* Remember the durable content of regular file `ino` (read from `fd`) unless already remembered. 0 or -errno. */
int lazy_snapshot_content(ino_t ino, int fd);
/* Remember that `ino` is new: its durable content is empty. */
void lazy_snapshot_empty(ino_t ino);
/* The content of `ino` is durable now (fsync, fdatasync, O_SYNC write). */
void lazy_content_synced(ino_t ino);

/* Remember the durable entries of the directory at backing path `dir` unless already remembered. 0 or -errno. */
int lazy_snapshot_dir(const char *dir);
/* Remember the durable entries of the directory at backing path holding mount path `path` (its parent). */
int lazy_snapshot_parent(const char *path);
/* Remember that new directory `ino` has no durable entries. */
void lazy_snapshot_dir_empty(ino_t ino);
/* The entries of directory `ino` are durable now (fsyncdir). */
void lazy_dir_synced(ino_t ino);

/* Keep backing file or folder `backing` reachable in the graveyard (link for files, rename for folders). 0 or -errno. */
int lazy_bury(const char *backing, int is_dir);

/* Drop graveyard inodes no remembered folder entry needs (after a folder became durable). */
int lazy_trim(void);

/* Power loss: put the backing directory back to its durable state and forget every undo log. 0 or -errno. */
int lazy_recover(void);

/* How many un-synced files and folders are remembered (for the "stats" line). */
void lazy_counts(size_t *files, size_t *dirs);

#endif
