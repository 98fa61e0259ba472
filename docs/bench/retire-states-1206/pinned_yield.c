// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pattern of stress-ng's mutex stressor at 2 threads per CPU, with
 * the placement fixed: two threads pinned to CPU 0 take one mutex in
 * turn and yield inside the section. Prints acquisitions per second of
 * the monotonic clock.
 *
 * usage: pinned_yield ITERATIONS   (per thread)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../../tests/helpers/two_cpus.h"

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static long iterations;

static void *take_turns(void *arg)
{
	long i;

	if (stay_on(0))
		exit(1);
	for (i = 0; i < iterations; i++) {
		pthread_mutex_lock(&mutex);
		sched_yield();
		pthread_mutex_unlock(&mutex);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec start, end;
	pthread_t other;

	iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	if (iterations <= 0) {
		fprintf(stderr, "usage: %s ITERATIONS\n", argv[0]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (pthread_create(&other, NULL, take_turns, NULL))
		return 1;
	take_turns(NULL);
	pthread_join(other, NULL);
	clock_gettime(CLOCK_MONOTONIC, &end);
	printf("%.0f\n", 2.0 * iterations /
	       (end.tv_sec - start.tv_sec + (end.tv_nsec - start.tv_nsec) / 1e9));
	return 0;
}
