/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Subcommands: each takes the argv from its own word on (argv[0] is
 * "record", "report", ...) and returns main()'s exit status (BG_EXIT_*).
 */
#ifndef BG_CMD_H
#define BG_CMD_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
