// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A library whose constructor uses mutexes before libadaptive's own
 * constructor has run (LD_PRELOAD="libadaptive.so libearly_lock.so" runs
 * the constructors right to left): earlier interposers crashed here on
 * function pointers that their constructor had not filled in yet.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static void __attribute__((constructor)) early_lock(void)
{
	pthread_mutex_t normal = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_t recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	struct timespec deadline;
	int failures = 0;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 1;
	failures += pthread_mutex_lock(&normal) != 0;
	failures += pthread_mutex_trylock(&normal) != EBUSY;
	failures += pthread_mutex_unlock(&normal) != 0;
	failures += pthread_mutex_timedlock(&normal, &deadline) != 0;
	failures += pthread_mutex_unlock(&normal) != 0;
	failures += pthread_mutex_clocklock(&normal, CLOCK_MONOTONIC, &deadline) != 0;
	failures += pthread_mutex_unlock(&normal) != 0;
	failures += pthread_mutex_lock(&recursive) != 0;
	failures += pthread_mutex_lock(&recursive) != 0;
	failures += pthread_mutex_unlock(&recursive) != 0;
	failures += pthread_mutex_unlock(&recursive) != 0;
	printf("early_lock: %d failures\n", failures);
	fflush(stdout);
}
