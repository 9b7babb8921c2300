/* signals.c - SIGINT/SIGTERM ask the recording to stop; SIGHUP, with
 * --switch-output, for a new file. */
#include "record/signals.h"

#include <signal.h>

static volatile sig_atomic_t stop_signal, switch_signal;

static void on_switch_signal(int sig)
{
	(void)sig;
	switch_signal = 1;
}

void record_install_switch_signal(void)
{
	struct sigaction sa = { .sa_handler = on_switch_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
}

int record_switch_signalled(void)
{
	int s = switch_signal != 0;

	switch_signal = 0;
	return s;
}

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_signal = 1;
}

void record_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int record_stop_signalled(void)
{
	return stop_signal != 0;
}
