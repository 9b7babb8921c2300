/* vgtool_fork.c - forks twice; the children exit at once (the memtrace
 * Valgrind tool streams only the process memtracectl started: a warning says so). */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
	for (int i = 0; i < 2; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		waitpid(p, NULL, 0);
	}
	return 0;
}
