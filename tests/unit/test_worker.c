/* Unit tests: the bounded worker thread (init/worker.c), the one every
 * thread hardinit starts goes through: a worker done in time is joined,
 * a late one is abandoned and frees what it holds itself, one that
 * claimed its results is waited for past the bound, and a join is never
 * a second one. The threads are held by pipes, not by sleeps: nothing here
 * depends on how fast the machine is. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker.h"
#include "tap.h"

struct job {
	struct hi_worker w;
	int hold;          /* read end: the worker waits for a byte */
	int said;          /* write end: the worker or its orphan says it ran */
	bool claim;
	int ran;
};

static void wait_byte(int fd)
{
	char c;
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
}

static void say(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		printf("# write: %s\n", strerror(errno));
}

static void run(void *arg)
{
	struct job *j = arg;

	if (j->claim) {
		hi_worker_claim(&j->w);
		say(j->said, 'c');
	}
	if (j->hold >= 0)
		wait_byte(j->hold);
	j->ran = 1;
}

static int orphan_said = -1;

static void orphan(void *arg)
{
	free(arg);
	say(orphan_said, 'o');
}

static void test_in_time(void)
{
	struct job j = { .hold = -1, .said = -1 };

	tap_ok(hi_worker_start(&j.w, run, &j, 64 * 1024, NULL) == 0 && j.w.started, "a worker starts");
	tap_ok(hi_worker_join(&j.w, 60 * 1000) == 0 && j.ran && j.w.joined, "one done in time is joined, its results read");
	tap_ok(hi_worker_join(&j.w, 0) == 0, "  a second join is not a second pthread_join: 0 again");
	tap_ok(!hi_worker_running(&j.w), "  and it runs no more");
	struct hi_worker never = { 0 };
	tap_ok(hi_worker_join(&never, 10) == EINVAL && !hi_worker_running(&never), "a worker never started: EINVAL");
}

static void test_late(void)
{
	int hold[2], said[2];
	struct job *j = calloc(1, sizeof *j);

	if (!j || pipe(hold) < 0 || pipe(said) < 0) {
		tap_ok(0, "late: setup");
		return;
	}
	j->hold = hold[0];
	j->said = -1;
	orphan_said = said[1];
	tap_ok(hi_worker_start(&j->w, run, j, 0, orphan) == 0, "late: a worker that waits for a byte starts");
	tap_ok(hi_worker_join(&j->w, 10) == ETIMEDOUT, "a worker late past the bound: ETIMEDOUT, abandoned");
	/* j is the thread's now: its orphan frees it. */
	say(hold[1], 'x');
	char c = 0;
	tap_ok(read(said[0], &c, 1) == 1 && c == 'o', "  once it ends, its orphan runs on its thread and frees its job");
	close(hold[0]);
	close(hold[1]);
	close(said[0]);
	close(said[1]);
}

static int late_byte_fd = -1;

/* Another worker lets the claimed one go well after the join's bound. */
static void late_byte(void *arg)
{
	(void)arg;
	usleep(100 * 1000);
	say(late_byte_fd, 'x');
}

static void test_claimed(void)
{
	int hold[2], said[2];
	struct job j = { .claim = true };

	if (pipe(hold) < 0 || pipe(said) < 0) {
		tap_ok(0, "claimed: setup");
		return;
	}
	j.hold = hold[0];
	j.said = said[1];
	tap_ok(hi_worker_start(&j.w, run, &j, 0, NULL) == 0, "claimed: a worker starts");
	wait_byte(said[0]);
	/* Claimed: the join waits past its bound. The byte that lets the
	 * worker end comes about 100 ms after the join began, far past its
	 * 1 ms; however slow the machine, the answer is the same: joined. */
	struct hi_worker letter;
	late_byte_fd = hold[1];
	hi_worker_start(&letter, late_byte, NULL, 0, NULL);
	tap_ok(hi_worker_join(&j.w, 1) == 0 && j.ran, "a worker that claimed its results is joined past the bound");
	hi_worker_join(&letter, 60 * 1000);
	tap_ok(!hi_worker_running(&j.w), "  and has ended");
	close(hold[0]);
	close(hold[1]);
	close(said[0]);
	close(said[1]);
}

int main(void)
{
	test_in_time();
	test_late();
	test_claimed();
	return tap_done();
}
