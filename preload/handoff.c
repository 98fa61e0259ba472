// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The heir's side and the unlocker's side of the handoff (handoff.h).
 *
 * The bound it gives: a waiter that has waited B (ADAPTIVE_STARVE_US)
 * claims the heir word at its next wake-up that finds it free, and is
 * granted the lock by the first unlock through libadaptive that comes a
 * grant interval I after the mutex's last grant, I = max(B, 64 L) where
 * L is the heir's measured wake-up latency. With N waiters, each of
 * which is heir once before any waits B again, a waiter has the lock
 * within about B + N (I + S), S the longest section. Its cost: the lock
 * is held idle for L at most once per I, at most 1/64 of its time.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "handoff.h"
#include "mutex.h"
#include "policy.h"

/*
 * Grants on one mutex are spaced by at least GRANT_SPACING wake-up
 * latencies, so that the time the lock spends granted but not yet
 * running is at most 1/GRANT_SPACING of its time.
 */
#define GRANT_SPACING	64

/* The heir's wake-up latency, a moving average over 8 grants, in ns. */
static unsigned long long grant_latency_ns;

static unsigned long long grant_interval_ns(void)
{
	unsigned long long spaced = GRANT_SPACING *
				    __atomic_load_n(&grant_latency_ns, __ATOMIC_RELAXED);

	return spaced > adaptive_config.starve_ns ? spaced : adaptive_config.starve_ns;
}

static uint32_t now_us(void)
{
	return now_ns() / 1000;
}

/* Racy updates lose a sample now and then, which an average can afford. */
static void grant_latency_add(unsigned long long sample_ns)
{
	unsigned long long avg = __atomic_load_n(&grant_latency_ns, __ATOMIC_RELAXED);

	__atomic_store_n(&grant_latency_ns, avg - avg / 8 + sample_ns / 8, __ATOMIC_RELAXED);
}

bool heir_claim(pthread_mutex_t *m)
{
	uint32_t old = __atomic_load_n(heir_word(m), __ATOMIC_RELAXED);

	/* Free, or another process's (inherited by fork): take it. */
	if (heir_state_of(old))
		return false;
	return __atomic_compare_exchange_n(heir_word(m), &old, heir_pack(HEIR_WAITING), false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

static void heir_leave(pthread_mutex_t *m)
{
	__atomic_store_n(heir_word(m), 0, __ATOMIC_RELAXED);
}

/*
 * Sleep as the heir in state @state until a grant or a nudge changes
 * the word, or until the caller's deadline, or for a grant interval:
 * an unlock that reaches glibc directly (a condition variable's, for
 * one) releases the lock without a grant or a nudge, so the heir looks
 * at the lock word now and then. Returns -ETIMEDOUT only at the
 * caller's deadline.
 */
static long heir_sleep(pthread_mutex_t *m, const struct waiter *w, uint32_t state,
		       clockid_t clockid, const struct timespec *abstime)
{
	unsigned long long until = now_ns() + grant_interval_ns();
	struct timespec ts;
	long ret;

	if (abstime && abstime->tv_sec < 0)
		return -ETIMEDOUT;
	if (abstime && w->deadline_ns <= until)
		return futex_wait((int *) heir_word(m), heir_pack(state), clockid, abstime);
	ts.tv_sec = until / 1000000000ULL;
	ts.tv_nsec = until % 1000000000ULL;
	ret = futex_wait((int *) heir_word(m), heir_pack(state), CLOCK_MONOTONIC, &ts);
	return ret == -ETIMEDOUT ? 0 : ret;
}

/* The lock was granted to the heir, which returns owning it. */
static void heir_take_grant(pthread_mutex_t *m, struct adaptive_thread *self)
{
	uint32_t granted_us = __atomic_load_n(grant_time_word(m), __ATOMIC_RELAXED);

	grant_latency_add((uint32_t) (now_us() - granted_us) * 1000ULL);
	heir_leave(m);
	stat_inc(self, STAT_HANDOFF);
}

/*
 * Give up the heir word at the caller's deadline; false if the lock was
 * granted meanwhile, which the heir then owns.
 */
static bool heir_resign(pthread_mutex_t *m, struct adaptive_thread *self)
{
	uint32_t old = __atomic_load_n(heir_word(m), __ATOMIC_ACQUIRE);

	while (heir_state_of(old) != HEIR_GRANTED)
		if (__atomic_compare_exchange_n(heir_word(m), &old, 0, true, __ATOMIC_ACQUIRE,
						__ATOMIC_ACQUIRE))
			return true;
	heir_take_grant(m, self);
	return false;
}

/*
 * The heir waits for the lock word to be granted, or to be free, which
 * it takes with 2 as every sleeper does. Before it sleeps it makes sure
 * the word is 2: the owner's unlock then either grants, or, having
 * released, nudges it (adaptive_mutex_wake()).
 */
int heir_wait(pthread_mutex_t *m, const struct waiter *w, struct adaptive_thread *self,
	      clockid_t clockid, const struct timespec *abstime)
{
	int *word = &m->__data.__lock;
	uint32_t state = HEIR_WAITING;
	int val;

	stat_inc(self, STAT_STARVING);
	for (;;) {
		val = __atomic_load_n(word, __ATOMIC_SEQ_CST);
		if (!val) {
			if (lock_word_take(m, 2)) {
				heir_leave(m);
				return 0;
			}
			continue;
		}
		if (val == 1 && !__atomic_compare_exchange_n(word, &val, 2, false,
							     __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			continue;
		if (heir_sleep(m, w, state, clockid, abstime) == -ETIMEDOUT)
			return heir_resign(m, self) ? ETIMEDOUT : 0;
		state = heir_state_of(__atomic_load_n(heir_word(m), __ATOMIC_ACQUIRE));
		if (state == HEIR_GRANTED) {
			heir_take_grant(m, self);
			return 0;
		}
		/* Nudged: take the nudge back, and look at the lock word again. */
		if (state == HEIR_NUDGED) {
			uint32_t nudged = heir_pack(HEIR_NUDGED);

			__atomic_compare_exchange_n(heir_word(m), &nudged, heir_pack(HEIR_WAITING),
						    false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE);
			state = HEIR_WAITING;
		}
	}
}

/* Grant the held lock to a waiting heir, if the interval allows; true if so. */
static bool unlock_grant(pthread_mutex_t *m)
{
	uint32_t old = __atomic_load_n(heir_word(m), __ATOMIC_RELAXED);
	uint32_t now = now_us();

	if (!heir_state_of(old)) {
		/* Another process's heir: forget it. */
		__atomic_compare_exchange_n(heir_word(m), &old, 0, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
		return false;
	}
	/* Modulo 2^32 us: a grant is late by at most I once every 71 minutes. */
	if ((uint32_t) (now - __atomic_load_n(grant_time_word(m), __ATOMIC_RELAXED)) <
	    grant_interval_ns() / 1000)
		return false;
	__atomic_store_n(grant_time_word(m), now, __ATOMIC_RELAXED);
	do {
		/* Resigned at its deadline meanwhile; granted it cannot be. */
		if (heir_state_of(old) != HEIR_WAITING && heir_state_of(old) != HEIR_NUDGED)
			return false;
	} while (!__atomic_compare_exchange_n(heir_word(m), &old, heir_pack(HEIR_GRANTED), true,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	futex_wake_one((int *) heir_word(m));
	return true;
}

/*
 * The unlocker compares heir words with its process's epoch, which it
 * may not have started yet: a forked child's first call can be the
 * unlock of a mutex held across fork(), whose heir is its parent's.
 */
static void unlocker_enter_process(void)
{
	thread_enter_process(adaptive_thread_self());
}

void adaptive_mutex_unlock_heir(pthread_mutex_t *m)
{
	unlocker_enter_process();
	if (unlock_grant(m))
		return;
	if (__atomic_exchange_n(&m->__data.__lock, 0, __ATOMIC_RELEASE) > 1)
		adaptive_mutex_wake(m);
}

void adaptive_mutex_wake(pthread_mutex_t *m)
{
	uint32_t waiting;

	futex_wake_one(&m->__data.__lock);
	unlocker_enter_process();
	waiting = heir_pack(HEIR_WAITING);
	/*
	 * After the release (a locked exchange, and the system call a
	 * compiler barrier): an heir that came after unlock looked at the
	 * heir word has made the lock word 2 before it sleeps, so this
	 * unlock's exchange found 2 and the heir's claim is visible here.
	 */
	if (__atomic_compare_exchange_n(heir_word(m), &waiting, heir_pack(HEIR_NUDGED), false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		futex_wake_one((int *) heir_word(m));
}
