/* module_limits.h - what memtrace.ko allows a caller (docs/kernel-module.md,
 * "Who may use it"): the default ring sized to the module's max_ring_mb, and
 * one-line explanations of its refusals (open, CONFIGURE, START).
 */
#ifndef MEMTRACE_SOURCE_MODULE_MODULE_LIMITS_H
#define MEMTRACE_SOURCE_MODULE_MODULE_LIMITS_H

#include <stdint.h>
#include <sys/types.h>

#include "source/source.h"

#define MOD_PARAMS	"/sys/module/memtrace/parameters/"

/* A numeric module parameter, or -1 if the module or parameter is absent. */
long mod_param_long(const char *name);
/* The module's ring bytes for records per CPU (header page + records). */
size_t mod_ring_bytes(uint32_t records);
/* records, halved while the rings of all possible CPUs exceed max_ring_mb. */
uint32_t mod_fit_ring(uint32_t records);
/* Why open(/dev/memtrace) failed with err. */
const char *mod_open_error(int err);
/* Prints why CONFIGURE failed with err (mt_err). */
void mod_configure_error(int err, const struct record_opts *o, int npids, pid_t target,
			 uint32_t records);
/* Prints why START failed with err, if the module's rules explain it; 0 if not. */
int mod_start_error(int err, const struct record_opts *o);

#endif
