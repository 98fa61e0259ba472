// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An owner that runs on one CPU, holding the mutex, while a waiter on
 * another CPU tries to take it: prints the CPU time the waiter burned.
 * With "shared", a thread that never sleeps runs on the waiter's CPU
 * too, so that the kernel switches the waiter in with another task
 * runnable there (CPU_CONTENDED): under the sched-state policy the
 * waiter then sleeps at once, however long ADAPTIVE_SPIN_US allows it to
 * spin on a running owner. With "alone", it spins. The owner publishes
 * its state first (publish_state.h); the waiter attaches its own when it
 * is first to spin, and reads CPU_CONTENDED from then on.
 *
 * usage: waiter_shares_cpu shared|alone [HOLD_MS]   (default 300)
 * Exit status 3 if the process may use fewer than two CPUs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock_ms.h"
#include "publish_state.h"
#include "two_cpus.h"

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static int stop_hog;
static double waiter_cpu_ms;

static void *hog(void *arg)
{
	while (!__atomic_load_n(&stop_hog, __ATOMIC_RELAXED))
		;
	return NULL;
}

static void *waiter(void *arg)
{
	/* A sleep, so that the lock below follows a switch in beside the hog. */
	struct timespec pause = { .tv_nsec = 20000000 };
	double start;

	nanosleep(&pause, NULL);
	start = clock_ms(CLOCK_THREAD_CPUTIME_ID);
	pthread_mutex_lock(&mutex);
	pthread_mutex_unlock(&mutex);
	waiter_cpu_ms = clock_ms(CLOCK_THREAD_CPUTIME_ID) - start;
	return NULL;
}

int main(int argc, char **argv)
{
	long hold_ms = argc > 2 ? strtol(argv[2], NULL, 10) : 300;
	pthread_t waiter_thread, hog_thread;
	bool shared;
	int cpus[2];

	if (argc < 2 || (strcmp(argv[1], "shared") && strcmp(argv[1], "alone")) || hold_ms <= 0) {
		fprintf(stderr, "usage: %s shared|alone [HOLD_MS]\n", argv[0]);
		return 2;
	}
	shared = !strcmp(argv[1], "shared");
	if (!two_cpus(cpus)) {
		fprintf(stderr, "waiter_shares_cpu: needs two CPUs\n");
		return 3;
	}
	if (stay_on(cpus[0]) || publish_state())
		return 1;
	pthread_mutex_lock(&mutex);
	if ((shared && start_on(&hog_thread, hog, NULL, cpus[1])) ||
	    start_on(&waiter_thread, waiter, NULL, cpus[1]))
		return 1;
	/* The owner stays on its CPU, holding the mutex. */
	busy_ms(hold_ms);
	pthread_mutex_unlock(&mutex);
	pthread_join(waiter_thread, NULL);
	if (shared) {
		__atomic_store_n(&stop_hog, 1, __ATOMIC_RELAXED);
		pthread_join(hog_thread, NULL);
	}
	printf("cpu=%s hold_ms=%ld waiter_cpu_ms=%.1f\n", argv[1], hold_ms, waiter_cpu_ms);
	return 0;
}
