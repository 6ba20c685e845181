// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where tracefs is, mounted for bpfgraph alone if need be (tracefs.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracefs.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool looked;
static char root[64];
static char failed[192]; /* why there is none */
static int mnt_fd = -1;

/* A tracefs bpfgraph can set up: a read-only mount (a container's /sys) is not. */
static bool has_tracer(const char *dir)
{
	char probe[128];

	snprintf(probe, sizeof(probe), "%s/current_tracer", dir);
	return !access(probe, W_OK);
}

/*
 * A tracefs mount attached nowhere: only its descriptor reaches it, and
 * it goes with the last one. 0 or -errno.
 */
static int mount_own(void)
{
	int fs, mnt, err = 0;

	fs = (int)syscall(SYS_fsopen, "tracefs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		err = -errno;
	mnt = err ? -1 :
		    (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
				 MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (!err && mnt < 0)
		err = -errno;
	close(fs);
	if (err)
		return err;
	/* Above the standard descriptors, which a forked process replaces. */
	if (mnt < 3) {
		int high = fcntl(mnt, F_DUPFD_CLOEXEC, 3);

		err = high < 0 ? -errno : 0;
		close(mnt);
		if (err)
			return err;
		mnt = high;
	}
	snprintf(root, sizeof(root), "/proc/self/fd/%d", mnt);
	if (!has_tracer(root)) {
		err = -errno;
		close(mnt);
		return err ? err : -ENOENT;
	}
	mnt_fd = mnt;
	return 0;
}

static void look(void)
{
	int err;

	if (has_tracer("/sys/kernel/tracing")) {
		snprintf(root, sizeof(root), "/sys/kernel/tracing");
		return;
	}
	if (has_tracer("/sys/kernel/debug/tracing")) {
		snprintf(root, sizeof(root), "/sys/kernel/debug/tracing");
		return;
	}
	err = mount_own();
	if (err) {
		root[0] = 0;
		snprintf(failed, sizeof(failed),
			 "tracefs is not mounted writable (/sys/kernel/tracing, "
			 "/sys/kernel/debug/tracing) and bpfgraph cannot mount it for itself: %s",
			 strerror(-err));
	}
}

const char *tracefs__root(bool *private_mount, char *why, size_t cap)
{
	const char *r;

	pthread_mutex_lock(&lock);
	if (!looked) {
		look();
		looked = true;
	}
	r = root[0] ? root : NULL;
	if (!r && why && cap)
		snprintf(why, cap, "%s", failed);
	if (private_mount)
		*private_mount = mnt_fd >= 0;
	pthread_mutex_unlock(&lock);
	return r;
}

int tracefs__fd(void)
{
	int fd;

	pthread_mutex_lock(&lock);
	fd = mnt_fd;
	pthread_mutex_unlock(&lock);
	return fd;
}
