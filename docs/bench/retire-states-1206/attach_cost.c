// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What an attached sched_state costs a context switch: two threads
 * pinned to CPU 0 yield to each other, each with a state attached
 * (ATTACH 1) or not (ATTACH 0); prints "ATTACH switches-per-second".
 * No library: the states are attached here with the prctl.
 *
 * usage: attach_cost ITERATIONS ATTACH   (yields per thread; 0 or 1)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../../tests/helpers/two_cpus.h"

#define PR_RSEQ_SCHED_STATE	0x52535354
#define PR_RSEQ_SCHED_STATE_SET	2

struct rseq_sched_state {
	uint32_t version, state, tid;
} __attribute__((aligned(64)));

static struct rseq_sched_state states[2];
static long iterations;
static int attach;

static void *yield_loop(void *arg)
{
	struct rseq_sched_state *state = arg;
	long i;

	if (stay_on(0))
		exit(1);
	if (attach) {
		state->tid = syscall(SYS_gettid);
		if (prctl(PR_RSEQ_SCHED_STATE, PR_RSEQ_SCHED_STATE_SET, state, 0, 0))
			perror("attach"), exit(1);
	}
	for (i = 0; i < iterations; i++)
		sched_yield();
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec start, end;
	pthread_t threads[2];
	int i;

	if (argc != 3 || (iterations = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: %s ITERATIONS 0|1\n", argv[0]);
		return 2;
	}
	attach = atoi(argv[2]);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < 2; i++)
		if (pthread_create(&threads[i], NULL, yield_loop, &states[i]))
			return 1;
	for (i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &end);
	printf("%d %.1f\n", attach, 2.0 * iterations /
	       (end.tv_sec - start.tv_sec + (end.tv_nsec - start.tv_nsec) / 1e9));
	return 0;
}
