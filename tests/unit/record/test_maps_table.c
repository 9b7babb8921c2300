/* test_maps_table.c - the recorder's table of processes with MAPS snapshots
 * follows the live processes: gone ones leave it (with their maps text) at
 * the next sweep, so a long recording of short-lived processes stays small. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../test.h"
#include "record/recorder_impl.h"
#include "trace/writer.h"

#define CHILDREN 50

TEST(gone_processes_leave_the_maps_table)
{
	char path[] = "/tmp/memtrace-maps-XXXXXX";
	int fd = mkstemp(path);
	pid_t kids[CHILDREN];

	CHECK(fd >= 0);
	close(fd);
	struct recorder *r = recorder_open(path, "test", WRITER_FORCE);
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK(!recorder_publish(r));
	CHECK(!recorder_begin(r, mt_now_ns(), 0));
	for (int i = 0; i < CHILDREN; i++) {
		kids[i] = fork();
		if (!kids[i]) {
			pause();
			_exit(0);
		}
		recorder_maps_changed(r, kids[i]);
	}
	recorder_maps_changed(r, getpid());
	CHECK(!recorder_tick(r, mt_now_ns()));
	CHECK_EQ_U64(r->nmaps, CHILDREN + 1);
	int texts = 0;
	for (int i = 0; i < r->nmaps; i++)
		texts += r->maps_text[i] != NULL;
	CHECK_EQ_U64(texts, CHILDREN + 1);	/* each snapshotted */
	for (int i = 0; i < CHILDREN; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	r->maps_swept_at = 0;	/* the next tick sweeps (else once a second) */
	CHECK(!recorder_tick(r, mt_now_ns()));
	CHECK_EQ_U64(r->nmaps, 1);
	CHECK_EQ_U64(r->maps_pid[0], getpid());
	CHECK(r->maps_text[0] != NULL);
	recorder_maps_changed(r, kids[0]);	/* a late event of a gone pid: back, no text */
	CHECK_EQ_U64(r->nmaps, 2);
	CHECK(!recorder_end(r, "test"));
	CHECK(!recorder_close(r));
	unlink(path);
}

int main(void)
{
	return test_main();
}
