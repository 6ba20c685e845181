// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stop requests by signal: see stop.h.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "handoff.h"
#include "stop.h"

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t rearmed; /* the trace is written: stop__rearm */
/* Written by the handlers only, before stop_signal (clock_gettime is async-signal-safe). */
static volatile uint64_t requested_ns;

static void note_request(void)
{
	struct timespec ts;

	if (!clock_gettime(CLOCK_MONOTONIC, &ts))
		requested_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void on_signal(int sig)
{
	static const char msg[] = "\nbpfgraph: stopped at once (second signal): what was "
				  "traced is not printed\n";
	static const char msg_after[] = "\nbpfgraph: stopped at once (second signal)\n";

	if (stop_signal) {
		const char *m = rearmed ? msg_after : msg;
		size_t len = rearmed ? sizeof(msg_after) - 1 : sizeof(msg) - 1;

		/* Async-signal-safe only: write, the hand-off and _exit. */
		if (write(STDERR_FILENO, m, len) < 0) {
			/* nothing else to tell */
		}
		/* The hooks' release would hold up the exit: a child does it. */
		handoff__at_exit();
		_exit(128 + sig);
	}
	note_request();
	stop_signal = sig;
}

/* The end of -d: a stop request, never the second signal that ends at once. */
static void on_alarm(int sig)
{
	if (!stop_signal) {
		note_request();
		stop_signal = sig;
	}
}

void stop__after_ms(uint64_t ms)
{
	struct itimerval it = { .it_value = { (time_t)(ms / 1000),
					      (suseconds_t)(ms % 1000) * 1000 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	if (ms)
		sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
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

uint64_t stop__requested_ns(void)
{
	return stop_signal ? requested_ns : 0;
}

void stop__rearm(void)
{
	rearmed = 1;
	stop_signal = 0;
}
