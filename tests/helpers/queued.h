/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Waiting, as a mutex's holder, until another thread has queued for it:
 * asleep in futex or about to be, its lock word at 2 (glibc's lock word
 * protocol, which libadaptive keeps).
 */
#ifndef QUEUED_H
#define QUEUED_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>

/* Seconds a helper gives a thread to queue before it reports a failure. */
#define QUEUE_TIMEOUT_S 10

/*
 * Whether a thread queued for @mutex within QUEUE_TIMEOUT_S. The caller
 * stays on its CPU (@yield false: a waiter that reads the holder's state
 * finds it running) or yields it between looks.
 */
static inline bool wait_until_queued(pthread_mutex_t *mutex, bool yield)
{
	time_t give_up = time(NULL) + QUEUE_TIMEOUT_S;

	while (__atomic_load_n(&mutex->__data.__lock, __ATOMIC_RELAXED) != 2) {
		if (time(NULL) >= give_up)
			return false;
		if (yield)
			sched_yield();
	}
	return true;
}

#endif /* QUEUED_H */
