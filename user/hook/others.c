// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Another bpfgraph on this kernel: see others.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "others.h"

/* Our programs' names as the kernel keeps them (at most 15 characters). */
static const char *const names[] = {
	"bg_entry", "bg_exit", "bg_entry_graph", "bg_kentry", "bg_kexit", "bg_mentry",
	"bg_mexit", "bg_wide", "bg_switch", "bg_icall",
};

static int is_ours(const char *name)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

uint32_t others__find(char *name, size_t len)
{
	__u32 id = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info;
		__u32 ilen = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);
		int found;

		/* Freed meanwhile, or not ours to open. */
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		found = !bpf_obj_get_info_by_fd(fd, &info, &ilen) && is_ours(info.name);
		close(fd);
		if (found) {
			snprintf(name, len, "%s", info.name);
			return id;
		}
	}
	return 0;
}

int others__check(unsigned int wait_ms)
{
	struct timespec nap = { 0, 100 * 1000000L };
	char name[32] = "";
	uint32_t id;

	for (unsigned int waited = 0;; waited += 100) {
		id = others__find(name, sizeof(name));
		if (!id)
			return 0;
		if (waited >= wait_ms)
			break;
		nanosleep(&nap, NULL);
	}
	fprintf(stderr, "bpfgraph: another bpfgraph is tracing on this kernel (its program "
		"'%s', id %u; 'bpftool prog show id %u' names its process): each would draw "
		"the other's work into its graphs; stop it first\n", name, id, id);
	return -EBUSY;
}
