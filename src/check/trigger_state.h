/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `fgraphtop check --trigger` leaves for the next run to undo, and how
 * it is kept from being turned against root:
 *  - the owner of a change is a process across PID namespaces: its pid, its
 *    PID namespace and its start time. Tracefs instances are global, so a run
 *    in another container, with its own /run and its own pids, must never
 *    mistake a live run's instance for a dead one's, nor collide with its
 *    name: the instance name carries the owner, and only an owner provably
 *    dead (same PID namespace, no process with that pid and start time) has
 *    its state undone;
 *  - the state directory must be a real directory owned by the effective uid
 *    and writable by no one else; files in it are opened relative to its fd,
 *    O_NOFOLLOW, temporary ones O_EXCL;
 *  - a state file's contents are not trusted: an instance name must be one of
 *    ours, a top-level function one of the cold functions, and the tracefs
 *    path never comes from the file.
 */
#ifndef FGT_TRIGGER_STATE_H
#define FGT_TRIGGER_STATE_H

#include <stdbool.h>
#include <stddef.h>

#define FGT_INSTANCE_PREFIX	"fgraphtop-check-"

struct fgt_owner {
	long pid;
	unsigned long long pidns;	/* inode of /proc/PID/ns/pid, 0 unknown */
	unsigned long long start;	/* start time, clock ticks since boot (proc(5) stat field 22) */
};

/* This process. proc: "/proc" (tests: a fake tree). 0 or -errno. */
int fgt_owner_self(struct fgt_owner *o, const char *proc);
/* 1 alive, 0 dead, -1 cannot tell (another PID namespace, or unknown). */
int fgt_owner_alive(const struct fgt_owner *o, const char *proc);

/* FGT_INSTANCE_PREFIX "PID-PIDNS-START". */
void fgt_instance_name(const struct fgt_owner *o, char *buf, size_t len);
/* Whose instance is it? 0, or -1 when the name is not one of ours. The old
 * form "fgraphtop-check-PID" is accepted with an unknown namespace and start. */
int fgt_instance_owner(const char *name, struct fgt_owner *o);

struct fgt_state {
	struct fgt_owner owner;
	char instance[96];		/* our instance's name, "" none */
	char toplevel[128];		/* cold function set at the top level, "" none */
	bool link;			/* a kretprobe.multi link (gone with its process) */
};

/*
 * A state file's text into st. Returns 0, or -1 when it is not a state file
 * of ours: no pid, or an instance name or top-level function it may not name
 * (funcs: the cold functions, NULL-ended). Unknown lines are ignored.
 */
int fgt_state_parse(const char *text, struct fgt_state *st, const char *const *funcs);
/* The text fgt_state_parse() reads back. */
void fgt_state_render(const struct fgt_state *st, char *buf, size_t len);

/*
 * The state directory, made (0700) when missing, and checked: a real
 * directory (not a symlink), owned by the effective uid, not group- or
 * world-writable. Its fd, or -errno with msg.
 */
int fgt_state_dir_open(const char *path, char *msg, size_t len);
/* Replace name in dirfd with text: NAME.tmp opened O_CREAT|O_EXCL|O_NOFOLLOW,
 * written, fsynced, renamed over name, the directory fsynced. 0 or -errno. */
int fgt_state_write(int dirfd, const char *name, const char *text);
/* A small regular file of dirfd (O_NOFOLLOW) into buf. 0 or -errno. */
int fgt_state_read(int dirfd, const char *name, char *buf, size_t len);

#endif
