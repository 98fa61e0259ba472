/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Making libadaptive publish the calling thread's sched_state before a
 * helper's measured part. The library attaches a thread's state only
 * once a waiter may read it (preload/sched_state.h): here a waiter
 * queues for a mutex that the caller holds, finds the caller without a
 * state and asks for one, and the caller attaches it when it releases
 * the mutex to the sleeping waiter. Without the library, or under a
 * policy that reads no states, it is only a handoff.
 * Include it with _GNU_SOURCE defined.
 */
#ifndef PUBLISH_STATE_H
#define PUBLISH_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "queued.h"

static void *publish_state_waiter(void *arg)
{
	pthread_mutex_t *mutex = arg;

	pthread_mutex_lock(mutex);
	pthread_mutex_unlock(mutex);
	return NULL;
}

/* Returns 0, or -1 with a message if no waiter started or queued. */
static inline int publish_state(void)
{
	pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
	pthread_t waiter;
	bool queued;
	int ret;

	pthread_mutex_lock(&mutex);
	ret = pthread_create(&waiter, NULL, publish_state_waiter, &mutex);
	if (ret) {
		fprintf(stderr, "publish_state: pthread_create: %s\n", strerror(ret));
		pthread_mutex_unlock(&mutex);
		return -1;
	}
	queued = wait_until_queued(&mutex, true);
	pthread_mutex_unlock(&mutex);
	pthread_join(waiter, NULL);
	if (!queued) {
		fprintf(stderr, "publish_state: the waiter did not queue in %d s\n",
			QUEUE_TIMEOUT_S);
		return -1;
	}
	return 0;
}

#endif /* PUBLISH_STATE_H */
