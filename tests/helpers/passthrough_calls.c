// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Each of the five mutex calls once on a robust mutex, which libadaptive
 * leaves to glibc: with libnext_profiler.so preloaded after libadaptive,
 * the profiler must count every one of them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
	pthread_mutexattr_t attr;
	pthread_mutex_t m;
	struct timespec deadline;
	int failures = 0;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&m, &attr);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += 10;
	failures += pthread_mutex_lock(&m) != 0;
	failures += pthread_mutex_unlock(&m) != 0;
	failures += pthread_mutex_trylock(&m) != 0;
	failures += pthread_mutex_unlock(&m) != 0;
	failures += pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &deadline) != 0;
	failures += pthread_mutex_unlock(&m) != 0;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 10;
	failures += pthread_mutex_timedlock(&m, &deadline) != 0;
	failures += pthread_mutex_unlock(&m) != 0;
	printf("passthrough_calls: %d failures\n", failures);
	return failures != 0;
}
