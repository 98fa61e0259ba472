/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The waiting policy: how long a waiter spins before it sleeps in futex.
 * waiter_spin_verdict() is the whole decision.
 */
#ifndef ADAPTIVE_POLICY_H
#define ADAPTIVE_POLICY_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "config.h"
#include "glibc-mutex.h"
#include "sched_state.h"

/* One thread waiting for one mutex, from its first failed attempt. */
struct waiter {
	unsigned long long start_ns;
	/* Deadline of the current spin phase, for the time-bounded policies. */
	unsigned long long phase_end_ns;
	/* Iterations of the current spin phase. */
	unsigned int spins;
	/* It slept in futex, so it must take the lock with 2 (glibc-mutex.h). */
	bool slept;
	/* It waited past the starvation bound and is counted as starving. */
	bool starving;
	/* It spun against an owner whose state it could not find. */
	bool fallback;
};

enum spin_verdict {
	SPIN_ON,
	/* The owner is not on a CPU: it cannot release the lock soon. */
	SPIN_STOP_OWNER_OFF_CPU,
	/* The phase used its time or iteration budget. */
	SPIN_STOP_BOUND,
	/* A starving waiter is owed the lock: queue behind it. */
	SPIN_STOP_STARVING,
};

static inline unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Under the sched-state policy one waiter at a time spins, as the
 * kernel's own mutexes do (the OSQ in kernel/locking/mutex.c): the
 * spinner takes the lock when the running owner releases it, and more
 * spinners would only take CPUs that runnable threads need, the owner's
 * among them when threads outnumber CPUs.
 */
static inline bool policy_single_spinner(void)
{
	return adaptive_config.policy == POLICY_SCHED_STATE;
}

static inline bool policy_is_time_bounded(void)
{
	return adaptive_config.policy == POLICY_SCHED_STATE || adaptive_config.policy == POLICY_SPIN;
}

static inline void waiter_start_spin(struct waiter *w)
{
	w->spins = 0;
	if (policy_is_time_bounded())
		w->phase_end_ns = now_ns() + adaptive_config.spin_ns;
}

/* Reading the clock costs about as much as a pause: look every 16 spins. */
static inline enum spin_verdict spin_within_time(struct waiter *w)
{
	if ((++w->spins & 15) || now_ns() < w->phase_end_ns)
		return SPIN_ON;
	return SPIN_STOP_BOUND;
}

static inline enum spin_verdict spin_within_count(struct waiter *w)
{
	return w->spins++ < adaptive_config.spin_count ? SPIN_ON : SPIN_STOP_BOUND;
}

/*
 * Whether @w spins once more on @m, or sleeps. Under the sched-state
 * policy it spins while the owner runs, within the time bound since the
 * flag is only a hint (an owner whose vCPU was preempted still reads on
 * CPU), and falls back to the spin-count budget for an owner without a
 * state (none attached, or a kernel without the feature).
 */
static inline enum spin_verdict waiter_spin_verdict(struct waiter *w, const pthread_mutex_t *m)
{
	const struct rseq_abi_sched_state *owner;
	int owner_tid;

	if (!w->starving && mutex_starving_waiters(m))
		return SPIN_STOP_STARVING;
	switch (adaptive_config.policy) {
	case POLICY_SCHED_STATE:
		owner_tid = __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED);
		/* 0: the lock is changing hands. */
		if (!owner_tid)
			return spin_within_time(w);
		owner = sched_state_of(owner_tid);
		if (!owner) {
			w->fallback = true;
			return spin_within_count(w);
		}
		if (!sched_state_on_cpu(owner))
			return SPIN_STOP_OWNER_OFF_CPU;
		return spin_within_time(w);
	case POLICY_SPIN:
		return spin_within_time(w);
	case POLICY_SPIN_COUNT:
		return spin_within_count(w);
	default:
		return SPIN_STOP_BOUND;
	}
}

#endif /* ADAPTIVE_POLICY_H */
