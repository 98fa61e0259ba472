// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An owner that sleeps inside its critical section while waiters try to
 * take the mutex: prints the CPU time the waiters burned. Under the
 * sched-state policy a waiter sees the owner off CPU and sleeps at once,
 * however long ADAPTIVE_SPIN_US allows it to spin. The owner publishes
 * its state first (publish_state.h): without one, its waiters would spin
 * by count.
 *
 * usage: owner_blocks [HOLD_MS]   (default 300)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock_ms.h"
#include "publish_state.h"

#define NR_WAITERS 2

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static double waiter_cpu_ms[NR_WAITERS];
static long hold_ms = 300;

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void *waiter(void *arg)
{
	double *cpu_ms = arg;
	double start;

	/*
	 * Once the owner sleeps: a waiter that came while it still ran
	 * (starting the other waiter) would spin its bound on it, rightly.
	 */
	sleep_ms(hold_ms / 4);
	start = clock_ms(CLOCK_THREAD_CPUTIME_ID);
	pthread_mutex_lock(&mutex);
	pthread_mutex_unlock(&mutex);
	*cpu_ms = clock_ms(CLOCK_THREAD_CPUTIME_ID) - start;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[NR_WAITERS];
	double total = 0;
	int i, ret;

	if (argc > 1)
		hold_ms = strtol(argv[1], NULL, 10);
	if (hold_ms <= 0) {
		fprintf(stderr, "usage: %s [HOLD_MS]\n", argv[0]);
		return 2;
	}
	if (publish_state())
		return 1;
	pthread_mutex_lock(&mutex);
	for (i = 0; i < NR_WAITERS; i++) {
		ret = pthread_create(&threads[i], NULL, waiter, &waiter_cpu_ms[i]);
		if (ret) {
			fprintf(stderr, "owner_blocks: pthread_create: %s\n", strerror(ret));
			return 1;
		}
	}
	sleep_ms(hold_ms);
	pthread_mutex_unlock(&mutex);
	for (i = 0; i < NR_WAITERS; i++) {
		pthread_join(threads[i], NULL);
		total += waiter_cpu_ms[i];
	}
	printf("hold_ms=%ld waiters=%d waiter_cpu_ms=%.1f\n", hold_ms, NR_WAITERS, total);
	return 0;
}
