// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A thread that locks a normal mutex it already holds, and so waits
 * until another thread unlocks it: the way rt-tests' ptsematest, and
 * programs that use a mutex as a binary semaphore, hand it over (glibc
 * lets any thread unlock a normal mutex). Prints the CPU time the
 * waiter burned. The owner the waiter reads is itself, always running:
 * under the sched-state policy it must sleep at once, however long
 * ADAPTIVE_SPIN_US allows it to spin on a running owner.
 *
 * usage: relock_waits [HOLD_MS]   (default 300)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock_ms.h"

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

static void *unlocker(void *arg)
{
	long hold_ms = *(long *) arg;
	struct timespec ts = { .tv_sec = hold_ms / 1000, .tv_nsec = (hold_ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	pthread_mutex_unlock(&mutex);
	return NULL;
}

int main(int argc, char **argv)
{
	long hold_ms = argc > 1 ? strtol(argv[1], NULL, 10) : 300;
	pthread_t thread;
	double start;
	int ret;

	if (hold_ms <= 0) {
		fprintf(stderr, "usage: %s [HOLD_MS]\n", argv[0]);
		return 2;
	}
	pthread_mutex_lock(&mutex);
	ret = pthread_create(&thread, NULL, unlocker, &hold_ms);
	if (ret) {
		fprintf(stderr, "relock_waits: pthread_create: %s\n", strerror(ret));
		return 1;
	}
	start = clock_ms(CLOCK_THREAD_CPUTIME_ID);
	pthread_mutex_lock(&mutex);
	printf("hold_ms=%ld waiter_cpu_ms=%.1f\n", hold_ms, clock_ms(CLOCK_THREAD_CPUTIME_ID) - start);
	pthread_mutex_unlock(&mutex);
	pthread_join(thread, NULL);
	return 0;
}
