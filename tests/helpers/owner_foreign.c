// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An owner whose sched_state libadaptive cannot read: before its first
 * mutex call it attaches a state of its own, so the library's attempt
 * finds one attached (threads_foreign). It holds the mutex on one CPU
 * until the main thread, on another, has spun and queued for it: under
 * the sched-state policy that waiter spins by the spin-count budget,
 * the fallback for an owner without a state (fallbacks in
 * ADAPTIVE_STATS).
 *
 * usage: owner_foreign
 * Exit status 3 if the process may use fewer than two CPUs or the
 * kernel cannot attach a sched_state.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "queued.h"
#include "rseq-abi.h"
#include "two_cpus.h"

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static struct rseq_abi_sched_state own_state;
/* 1 once the owner holds the mutex, -1 if it could not attach its state. */
static int owner_ready;
static bool queued;

static void *owner(void *arg)
{
	own_state.tid = gettid();
	if (prctl(PR_RSEQ_SCHED_STATE, PR_RSEQ_SCHED_STATE_SET, &own_state, 0, 0)) {
		fprintf(stderr, "owner_foreign: cannot attach a sched_state: %s\n", strerror(errno));
		__atomic_store_n(&owner_ready, -1, __ATOMIC_RELEASE);
		return NULL;
	}
	pthread_mutex_lock(&mutex);
	__atomic_store_n(&owner_ready, 1, __ATOMIC_RELEASE);
	/* On a CPU, so that a waiter that read its state would spin on. */
	queued = wait_until_queued(&mutex, false);
	pthread_mutex_unlock(&mutex);
	return NULL;
}

int main(void)
{
	pthread_t thread;
	int cpus[2], ready;

	if (!two_cpus(cpus)) {
		fprintf(stderr, "owner_foreign: needs two CPUs\n");
		return 3;
	}
	if (stay_on(cpus[0]) || start_on(&thread, owner, NULL, cpus[1]))
		return 1;
	while (!(ready = __atomic_load_n(&owner_ready, __ATOMIC_ACQUIRE)))
		sched_yield();
	if (ready > 0) {
		pthread_mutex_lock(&mutex);
		pthread_mutex_unlock(&mutex);
	}
	pthread_join(thread, NULL);
	if (ready < 0)
		return 3;
	if (!queued) {
		fprintf(stderr, "owner_foreign: the waiter did not queue in %d s\n", QUEUE_TIMEOUT_S);
		return 1;
	}
	return 0;
}
