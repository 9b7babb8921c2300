/* signals.h - SIGINT/SIGTERM ask the recording to stop. */
#ifndef MEMTRACE_RECORD_SIGNALS_H
#define MEMTRACE_RECORD_SIGNALS_H

/* Installs SIGINT/SIGTERM handlers that ask the record loop to stop; ignores SIGPIPE. */
void record_install_signals(void);

/* Non-zero once SIGINT or SIGTERM arrived. */
int record_stop_signalled(void);

/* record --switch-output: SIGHUP asks for a new file. */
void record_install_switch_signal(void);
/* Non-zero once if SIGHUP arrived since the last call. */
int record_switch_signalled(void);

#endif
