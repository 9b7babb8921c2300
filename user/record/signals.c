/* signals.c - SIGINT/SIGTERM ask the recording to stop. */
#include "record/signals.h"

#include <signal.h>

static volatile sig_atomic_t stop_signal;

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
