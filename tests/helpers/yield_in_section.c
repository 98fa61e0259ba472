// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Two threads on one CPU take one mutex in turn and yield inside the
 * critical section, as stress-ng's mutex stressor does: a waiter runs
 * only while the owner is off CPU, so no spin can win, and every unlock
 * wakes a sleeper. Under the sched-state policies the threads' states
 * are of no use to a spin here; the library detaches them after a
 * review period and attaches them again later (preload/sched_state.h).
 * Each thread asks the kernel every SAMPLE_PERIOD turns whether it has
 * a state attached, and counts the changes it sees, so that a test can
 * tell a detach that reached the kernel from one the library only
 * counted.
 *
 * usage: yield_in_section [ITERATIONS]   (per thread, default 30000)
 * Prints "iterations=N kernel_detaches=D kernel_reattaches=R": the
 * changes seen from attached to not and back, both threads together.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "rseq-abi.h"
#include "two_cpus.h"

#define SAMPLE_PERIOD	64

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static long iterations = 30000;
static long kernel_detaches, kernel_reattaches;

/* The first CPU this process may use, or -1. */
static int first_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

static int state_attached(void)
{
	return prctl(PR_RSEQ_SCHED_STATE, PR_RSEQ_SCHED_STATE_GET, 0, 0, 0) ==
	       PR_RSEQ_SCHED_STATE_ATTACHED;
}

static void *take_turns(void *arg)
{
	int was_attached = 0, attached;
	long i, detaches = 0, reattaches = 0;

	for (i = 0; i < iterations; i++) {
		pthread_mutex_lock(&mutex);
		sched_yield();
		pthread_mutex_unlock(&mutex);
		if (i % SAMPLE_PERIOD)
			continue;
		attached = state_attached();
		if (was_attached && !attached)
			detaches++;
		else if (!was_attached && attached && detaches)
			reattaches++;
		was_attached = attached;
	}
	__atomic_add_fetch(&kernel_detaches, detaches, __ATOMIC_RELAXED);
	__atomic_add_fetch(&kernel_reattaches, reattaches, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t other;
	int cpu = first_cpu();

	if (argc > 1)
		iterations = strtol(argv[1], NULL, 10);
	if (iterations <= 0) {
		fprintf(stderr, "usage: %s [ITERATIONS]\n", argv[0]);
		return 2;
	}
	if (cpu < 0 || stay_on(cpu) || start_on(&other, take_turns, NULL, cpu))
		return 1;
	take_turns(NULL);
	pthread_join(other, NULL);
	printf("iterations=%ld kernel_detaches=%ld kernel_reattaches=%ld\n", iterations,
	       kernel_detaches, kernel_reattaches);
	return 0;
}
