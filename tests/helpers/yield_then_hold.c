// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Two threads whose waits first always sleep, then could always spin.
 * In the first phase both run on one CPU and yield inside the section,
 * so that each waiter finds the owner off CPU or its own CPU wanted,
 * and sleeps: under the sched-state policy, enough waits that find the
 * owner off CPU make a thread skip the spin decision (preload/mutex.c).
 * In the second phase the waiter moves to the other CPU and the owner
 * holds the mutex on its own for HOLD_US each round: a waiter that
 * decides again spins on the running owner and wins. The owner
 * publishes its state first (publish_state.h).
 *
 * usage: yield_then_hold [YIELDS [ROUNDS [HOLD_US]]]   (default 200 64 2000)
 * Exit status 3 if the process may use fewer than two CPUs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clock_ms.h"
#include "publish_state.h"
#include "two_cpus.h"

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t phase;
static long yields, rounds, hold_us;
static int cpus[2];
static int posted, acked;

static void take_turns(void)
{
	for (long i = 0; i < yields; i++) {
		pthread_mutex_lock(&mutex);
		sched_yield();
		pthread_mutex_unlock(&mutex);
	}
}

static void *worker(void *arg)
{
	take_turns();
	pthread_barrier_wait(&phase);
	if (stay_on(cpus[1]))
		exit(1);
	pthread_barrier_wait(&phase);
	for (int round = 1; round <= rounds; round++) {
		while (__atomic_load_n(&posted, __ATOMIC_ACQUIRE) != round)
			;
		pthread_mutex_lock(&mutex);
		pthread_mutex_unlock(&mutex);
		__atomic_store_n(&acked, round, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t thread;

	yields = argc > 1 ? strtol(argv[1], NULL, 10) : 200;
	rounds = argc > 2 ? strtol(argv[2], NULL, 10) : 64;
	hold_us = argc > 3 ? strtol(argv[3], NULL, 10) : 2000;
	if (yields <= 0 || rounds <= 0 || hold_us <= 0) {
		fprintf(stderr, "usage: %s [YIELDS [ROUNDS [HOLD_US]]]\n", argv[0]);
		return 2;
	}
	if (!two_cpus(cpus)) {
		fprintf(stderr, "yield_then_hold: needs two CPUs\n");
		return 3;
	}
	if (stay_on(cpus[0]) || publish_state())
		return 1;
	pthread_barrier_init(&phase, NULL, 2);
	if (start_on(&thread, worker, NULL, cpus[0]))
		return 1;
	take_turns();
	pthread_barrier_wait(&phase);
	pthread_barrier_wait(&phase);
	/* The worker waits while this thread holds the mutex on its CPU. */
	for (int round = 1; round <= rounds; round++) {
		pthread_mutex_lock(&mutex);
		__atomic_store_n(&posted, round, __ATOMIC_RELEASE);
		busy_ms(hold_us / 1e3);
		pthread_mutex_unlock(&mutex);
		while (__atomic_load_n(&acked, __ATOMIC_ACQUIRE) != round)
			;
	}
	pthread_join(thread, NULL);
	printf("yields=%ld rounds=%ld hold_us=%ld\n", yields, rounds, hold_us);
	return 0;
}
