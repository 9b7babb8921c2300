/* commands.h - the verbs of memtracectl.  Each takes the verb's own argv
 * (argv[0] is the verb name), parses it with getopt_long (so --help works
 * on every verb) and returns the process exit status: 0 on success, 1 on a
 * runtime error, 2 on a usage error. */
#ifndef MEMTRACE_CMD_COMMANDS_H
#define MEMTRACE_CMD_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif
