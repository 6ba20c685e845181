// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stop requests by signal: see stop.h.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "stop.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	static const char msg[] = "\nbpfgraph: stopped at once (second signal): what was "
				  "traced is not printed\n";

	if (stop_signal) {
		/* Async-signal-safe only: write and _exit. */
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
			/* nothing else to tell */
		}
		_exit(128 + sig);
	}
	stop_signal = sig;
}

void stop__catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int stop__signal(void)
{
	return stop_signal;
}
