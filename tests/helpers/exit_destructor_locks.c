// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A thread that locks a contended mutex in a thread-specific data
 * destructor that runs after libadaptive's own (glibc runs them in the
 * order their keys were created): the library must not attach the
 * thread's sched_state then, since nothing would clear the thread's
 * slot afterwards, and a later thread with the same tid would be read
 * by the state of this one. The owner, the main thread, has published
 * its state and keeps its CPU while it holds the mutex, so the exiting
 * thread spins on a running owner, which attaches a waiter's own state
 * at any other time: ADAPTIVE_STATS counts one thread attached, the
 * owner, where the thread attaching late would make it two. The owner
 * keeps the mutex until the thread has queued (spun, then slept).
 *
 * usage: exit_destructor_locks
 * Exit status 3 if the process may use fewer than two CPUs, 4 if the
 * exiting thread did not queue within QUEUE_TIMEOUT_S.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "publish_state.h"
#include "queued.h"
#include "two_cpus.h"

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t late_key;

static void late_destructor(void *arg)
{
	(void) arg;
	pthread_mutex_lock(&mutex);
	pthread_mutex_unlock(&mutex);
}

static void *exiting(void *arg)
{
	pthread_mutex_t first_use = PTHREAD_MUTEX_INITIALIZER;

	/* Set up by the library, whose exit destructor it now has. */
	pthread_mutex_lock(&first_use);
	pthread_mutex_unlock(&first_use);
	pthread_setspecific(late_key, arg);
	return NULL;
}

int main(void)
{
	pthread_t thread;
	int cpus[2], ret;
	bool queued;

	if (!two_cpus(cpus)) {
		fprintf(stderr, "exit_destructor_locks: needs two CPUs\n");
		return 3;
	}
	/* The first mutex call also creates the library's key, before ours. */
	if (stay_on(cpus[0]) || publish_state())
		return 1;
	ret = pthread_key_create(&late_key, late_destructor);
	if (ret) {
		fprintf(stderr, "exit_destructor_locks: pthread_key_create: %s\n", strerror(ret));
		return 1;
	}
	pthread_mutex_lock(&mutex);
	if (start_on(&thread, exiting, &late_key, cpus[1]))
		return 1;
	/* On the CPU all along, so that the thread spins on a running owner. */
	queued = wait_until_queued(&mutex, false);
	pthread_mutex_unlock(&mutex);
	pthread_join(thread, NULL);
	if (!queued) {
		fprintf(stderr, "exit_destructor_locks: the thread did not queue in %d s\n",
			QUEUE_TIMEOUT_S);
		return 4;
	}
	printf("exit_destructor_locks: done\n");
	return 0;
}
