// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The baseline's programs: as small as a tracing program gets. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("fentry")
int BPF_PROG(bl_entry)
{
	return 0;
}

SEC("fexit")
int BPF_PROG(bl_exit)
{
	return 0;
}
