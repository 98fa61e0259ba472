// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An owner that holds the mutex on its CPU for HOLD_US each round, busy,
 * while a waiter on the other CPU tries to take it once a round: the
 * waiter spins on a running owner every round, and the spin wins if the
 * spin bound outlasts what is left of the hold. Between holds the owner
 * works outside the mutex for a fifth of the hold, during which the
 * waiter takes it, and then waits for the next hold to begin. The owner
 * publishes its state first (publish_state.h). Prints the rounds.
 *
 * usage: long_holds HOLD_US [ROUNDS]   (default 96 rounds)
 * Exit status 3 if the process may use fewer than two CPUs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock_ms.h"
#include "publish_state.h"
#include "two_cpus.h"

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static double hold_ms;
static long rounds = 96;
/* Rounds the owner began; the waiter locks once in each. */
static long round_started;

static void *waiter(void *arg)
{
	long round;

	for (round = 1; round <= rounds; round++) {
		/* Once the owner holds the mutex for round @round. */
		while (__atomic_load_n(&round_started, __ATOMIC_ACQUIRE) < round)
			;
		if (pthread_mutex_lock(&mutex) || pthread_mutex_unlock(&mutex))
			return "lock or unlock failed";
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t waiter_thread;
	void *waiter_error;
	long round;
	int cpus[2], ret;

	if (argc < 2 || argc > 3 || (hold_ms = strtol(argv[1], NULL, 10) / 1e3) <= 0 ||
	    (argc > 2 && (rounds = strtol(argv[2], NULL, 10)) <= 0)) {
		fprintf(stderr, "usage: %s HOLD_US [ROUNDS]\n", argv[0]);
		return 2;
	}
	if (!two_cpus(cpus)) {
		fprintf(stderr, "long_holds: needs two CPUs\n");
		return 3;
	}
	if (stay_on(cpus[0]) || publish_state() ||
	    start_on(&waiter_thread, waiter, NULL, cpus[1]))
		return 1;
	for (round = 1; round <= rounds; round++) {
		if (pthread_mutex_lock(&mutex)) {
			fprintf(stderr, "long_holds: the owner's lock failed\n");
			return 1;
		}
		__atomic_store_n(&round_started, round, __ATOMIC_RELEASE);
		busy_ms(hold_ms);
		if (pthread_mutex_unlock(&mutex)) {
			fprintf(stderr, "long_holds: the owner's unlock failed\n");
			return 1;
		}
		busy_ms(hold_ms / 5);
	}
	ret = pthread_join(waiter_thread, &waiter_error);
	if (ret || waiter_error) {
		fprintf(stderr, "long_holds: waiter: %s\n",
			ret ? strerror(ret) : (const char *) waiter_error);
		return 1;
	}
	printf("rounds=%ld\n", rounds);
	return 0;
}
