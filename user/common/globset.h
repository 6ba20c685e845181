/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A fixed list of shell patterns matched against many names: the deny
 * list and the wide net's hot list, each against every traceable function
 * of the kernel (about 40 000) at start. Each pattern's shape is found
 * once, so the common ones ("name", "prefix*", "*suffix", "*infix*") cost
 * a strcmp, strncmp or memcmp, or a strstr where the name holds every
 * pair of adjacent bytes of the infix; the others go to fnmatch() once
 * their literal start matches. A name is only tested against the patterns
 * its first byte allows (a mask per byte).
 */
#ifndef BG_GLOBSET_H
#define BG_GLOBSET_H

#include <stddef.h>

struct globset;

/* globs: NULL-terminated, kept by reference. NULL + errno on failure. */
struct globset *globset__new(const char *const *globs);
void globset__free(struct globset *g);
/* The first pattern, in list order, that matches name as fnmatch(glob, name, 0) would; or NULL. */
const char *globset__match(const struct globset *g, const char *name);

/* The length of glob's literal start, before its first metacharacter. */
size_t globset__literal_len(const char *glob);

#endif
