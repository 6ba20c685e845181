// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "ftrecs.h"

/* The member called name of struct type t: its byte offset and size. */
static int member(const struct btf *btf, const struct btf_type *t, const char *name,
		  uint32_t *off, uint32_t *size)
{
	const struct btf_member *m = btf_members(t);

	for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
		uint32_t bits = btf_member_bit_offset(t, i);
		__s64 sz;

		if (strcmp(btf__name_by_offset(btf, m->name_off), name) || bits % 8 ||
		    btf_member_bitfield_size(t, i))
			continue;
		sz = btf__resolve_size(btf, m->type);
		if (sz <= 0)
			return -ENOENT;
		*off = bits / 8;
		if (size)
			*size = (uint32_t)sz;
		return 0;
	}
	return -ENOENT;
}

static const struct btf_type *struct_named(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);

	return id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
}

/* The value of the enumerator called name in any enum of btf, 0: none. */
static uint64_t enumerator(const struct btf *btf, const char *name)
{
	uint32_t n = btf__type_cnt(btf);

	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_enum(t)) {
			for (uint16_t i = 0; i < btf_vlen(t); i++)
				if (!strcmp(btf__name_by_offset(btf, btf_enum(t)[i].name_off), name))
					return (uint32_t)btf_enum(t)[i].val;
		} else if (btf_is_enum64(t)) {
			for (uint16_t i = 0; i < btf_vlen(t); i++)
				if (!strcmp(btf__name_by_offset(btf, btf_enum64(t)[i].name_off), name))
					return btf_enum64_value(&btf_enum64(t)[i]);
		}
	}
	return 0;
}

int ftrecs__layout(const struct btf *btf, struct ftrecs_layout *l)
{
	const struct btf_type *pg = struct_named(btf, "ftrace_page");
	const struct btf_type *rec = struct_named(btf, "dyn_ftrace");
	uint32_t sz;

	memset(l, 0, sizeof(*l));
	if (!pg || !rec || member(btf, pg, "next", &l->pg_next, &sz) || sz != 8 ||
	    member(btf, pg, "records", &l->pg_records, &sz) || sz != 8 ||
	    member(btf, pg, "index", &l->pg_index, &l->pg_index_size) ||
	    (l->pg_index_size != 4 && l->pg_index_size != 8) ||
	    member(btf, rec, "ip", &l->rec_ip, &sz) || sz != 8 ||
	    member(btf, rec, "flags", &l->rec_flags, &sz) || sz != 8)
		return -ENOENT;
	l->pg_size = pg->size;
	l->rec_size = rec->size;
	if (l->rec_size < l->rec_ip + 8 || l->rec_size < l->rec_flags + 8 ||
	    l->pg_size < l->pg_index + l->pg_index_size)
		return -ENOENT;
	l->fl_disabled = enumerator(btf, "FTRACE_FL_DISABLED");
	return 0;
}

static uint64_t word(const uint8_t *p, uint32_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, size); /* little-endian, as every kernel bpfgraph reads */
	return v;
}

long ftrecs__walk(const struct ftrecs_layout *l, uint64_t head, ftrecs_read_fn read, void *rctx,
		  ftrecs_site_fn site, void *sctx)
{
	uint8_t pgbuf[256];
	uint8_t *recs = NULL;
	size_t cap = 0;
	uint64_t pg = 0;
	long seen = 0;
	int err;

	if (l->pg_size > sizeof(pgbuf) || !l->rec_size)
		return -EINVAL;
	err = read(rctx, head, &pg, sizeof(pg));
	for (uint32_t np = 0; !err && pg; np++) {
		uint64_t n, at;
		size_t len;

		if (np >= FTRECS_MAX_PAGES) {
			err = -ELOOP;
			break;
		}
		err = read(rctx, pg, pgbuf, l->pg_size);
		if (err)
			break;
		n = word(pgbuf + l->pg_index, l->pg_index_size);
		at = word(pgbuf + l->pg_records, 8);
		pg = word(pgbuf + l->pg_next, 8);
		if (n > FTRECS_MAX_PER_PAGE || (n && !at)) {
			err = -EIO;
			break;
		}
		len = (size_t)n * l->rec_size;
		if (len > cap) {
			uint8_t *b = realloc(recs, len);

			if (!b) {
				err = -ENOMEM;
				break;
			}
			recs = b;
			cap = len;
		}
		if (n)
			err = read(rctx, at, recs, len);
		for (uint64_t i = 0; !err && i < n; i++) {
			const uint8_t *r = recs + i * l->rec_size;

			seen++;
			if (l->fl_disabled && (word(r + l->rec_flags, 8) & l->fl_disabled))
				continue;
			err = site(sctx, word(r + l->rec_ip, 8));
		}
	}
	free(recs);
	return err ? err : seen;
}
