// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Another bpfgraph on this kernel: see others.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

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

/* Offset of variable var in the DATASEC value_type_id of BTF object btf_id, or -1. */
static long var_offset(__u32 btf_id, __u32 value_type_id, const char *var)
{
	struct btf *btf = btf__load_from_kernel_by_id(btf_id);
	const struct btf_type *t = btf ? btf__type_by_id(btf, value_type_id) : NULL;
	long off = -1;

	if (t && btf_is_datasec(t)) {
		const struct btf_var_secinfo *vi = btf_var_secinfos(t);

		for (__u16 i = 0; i < btf_vlen(t) && off < 0; i++, vi++) {
			const struct btf_type *v = btf__type_by_id(btf, vi->type);

			if (v && !strcmp(btf__name_by_offset(btf, v->name_off), var))
				off = vi->offset;
		}
	}
	btf__free(btf);
	return off;
}

/* bg_stopped in map map_id, a .bss (see state.bpf.h): -1 when not there. */
static int map_says_stopped(__u32 map_id)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info), zero = 0, val = 0;
	int fd = bpf_map_get_fd_by_id(map_id), ret = -1;
	size_t nlen;
	long off;
	void *buf;

	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.btf_id)
		goto out;
	nlen = strlen(info.name);
	if (nlen < 4 || strcmp(info.name + nlen - 4, ".bss"))
		goto out;
	off = var_offset(info.btf_id, info.btf_value_type_id, "bg_stopped");
	buf = off >= 0 && (size_t)off + sizeof(val) <= info.value_size ?
		      calloc(1, info.value_size) : NULL;
	if (buf && !bpf_map_lookup_elem(fd, &zero, buf)) {
		memcpy(&val, (char *)buf + off, sizeof(val));
		ret = val != 0;
	}
	free(buf);
out:
	close(fd);
	return ret;
}

/*
 * Has the instance owning program fd stopped tracing (its hooks are being
 * released, its programs return at once)? Read in its .bss; a bpfgraph
 * without bg_stopped counts as tracing.
 */
static bool stopped(int fd)
{
	__u32 ids[16], len;
	struct bpf_prog_info info;

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(uintptr_t)ids;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	for (__u32 i = 0; i < info.nr_map_ids && i < sizeof(ids) / sizeof(ids[0]); i++) {
		int st = map_says_stopped(ids[i]);

		if (st >= 0)
			return st;
	}
	return false;
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
		found = !bpf_obj_get_info_by_fd(fd, &info, &ilen) && is_ours(info.name) &&
			!stopped(fd);
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
