/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The waiting policy: how long a waiter spins before it sleeps in futex.
 * waiter_spin_verdict() is the whole decision.
 */
#ifndef ADAPTIVE_POLICY_H
#define ADAPTIVE_POLICY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "config.h"
#include "glibc-mutex.h"
#include "sched_state.h"
#include "waiter-marks.h"

/* One thread waiting for one mutex, from its first failed attempt. */
struct waiter {
	/*
	 * Monotonic times: the start of the wait (0 until the clock is first
	 * read: on entry for a timed call, else at its first time-bounded
	 * spin or its first wake-up that finds the lock taken), the
	 * caller's deadline.
	 */
	unsigned long long start_ns;
	unsigned long long deadline_ns;
	/*
	 * End of the current spin phase: its time bound, or the deadline. A
	 * single spinner's phase first runs a quarter of the bound;
	 * @extend_ns is the rest, which it may spin on for from there (0
	 * under other policies, or once granted). The lock's spin history
	 * may deny it (@long_denied, mutex.c), which then cuts the phase
	 * at the quarter (@cut_short); a phase granted the whole rest, its
	 * deadline later, and not past it already, spins long (@spun_long).
	 */
	unsigned long long phase_end_ns;
	unsigned long long extend_ns;
	bool long_denied;
	bool cut_short;
	bool spun_long;
	/* Iterations of the current spin phase. */
	unsigned int spins;
	/*
	 * It spins before each sleep: the policy spins, and it is not
	 * relocking a normal mutex that it holds, which only another
	 * thread's unlock releases (a mutex used as a binary semaphore, as
	 * rt-tests' ptsematest does): no spin can end that wait, and its
	 * owner, itself, always reads running. Such a waiter waits as
	 * glibc's does, without the spin's set-up on the handoff's path
	 * (1 to 2% of ptsematest's latency under QEMU's icount).
	 */
	bool may_spin;
	/* It spun on an owner whose state it could not find (SPIN_ON_BLIND). */
	bool fallback;
	/* A verdict told it to spin (mutex.c's skip). */
	bool chose_spin;
	/* It was refused a spin with the owner off CPU (mutex.c's skip). */
	bool saw_owner_off_cpu;
	/* Its own state under the sched-state policies, NULL otherwise or if none. */
	const struct rseq_abi_sched_state *own;
	/*
	 * The owner whose state it last read on CPU in this spin phase, 0 if
	 * none: a win is that state's (sched_state_note_win()).
	 */
	int spun_on;
};

/* The deadline of a call without one. */
#define NO_DEADLINE	(~0ULL)

enum spin_verdict {
	SPIN_ON,
	/*
	 * Spin on by the spin-count budget: the sched-state policies' fallback
	 * for an owner whose state they cannot find.
	 */
	SPIN_ON_BLIND,
	/* The owner cannot release the lock soon: it is not on a CPU. */
	SPIN_STOP_OWNER_OFF_CPU,
	/* The owner detached its state, on which no spin won: sleep as glibc's waiters. */
	SPIN_STOP_OWNER_RETIRED,
	/* The phase used its time or iteration budget. */
	SPIN_STOP_BOUND,
	/* Other tasks wait for the waiter's own CPU. */
	SPIN_STOP_CPU_CONTENDED,
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
 * among them when threads outnumber CPUs. The single spinner also keeps
 * the lock's spin history (below), which needs one writer. The ablations
 * spin-single and sched-state-multi move only this limit and the
 * history with it, so that vm-bench can tell their effect from that of
 * the owner's state.
 */
static inline bool policy_single_spinner(void)
{
	return adaptive_config.policy == POLICY_SCHED_STATE ||
	       adaptive_config.policy == POLICY_SPIN_SINGLE;
}

/* futex never spins: its waiters wait as glibc's __lll_lock_wait does. */
static inline bool policy_spins(void)
{
	return adaptive_config.policy != POLICY_FUTEX;
}

static inline bool policy_is_time_bounded(void)
{
	switch (adaptive_config.policy) {
	case POLICY_SCHED_STATE:
	case POLICY_SCHED_STATE_MULTI:
	case POLICY_SPIN:
	case POLICY_SPIN_SINGLE:
		return true;
	default:
		return false;
	}
}

/*
 * A spin phase ends at the caller's deadline, or sooner at its time
 * bound (spin_phase_bound(), and for a single spinner first at a
 * quarter of it) or its count.
 */
static inline void waiter_start_spin(struct waiter *w)
{
	w->spins = 0;
	w->spun_on = 0;
	w->phase_end_ns = w->deadline_ns;
	w->extend_ns = 0;
	w->long_denied = false;
	w->cut_short = false;
	w->spun_long = false;
}

/*
 * The single spinner's spin history (waiter-marks.h): a time-bounded
 * phase runs a quarter of the bound, and the rest only on a lock where
 * spins that went on past that quarter lost at most three times in
 * four (below). Such a spin costs CPU that glibc's waiter, asleep, does
 * not spend; it pays for itself where the owner releases the lock
 * before the bound (it saves the sleep and the wake-up's latency), and
 * is pure loss where it ends at the bound, asleep after all. Which
 * prevails is a property of the lock's critical sections. In the TCG
 * guest at 4 threads, long spins won 70% of the time on sysbench
 * threads' lock and 79% on our multimodal sweep's first point (on-CPU
 * sections of 1 and 10 us), where they win throughput; 31% on our
 * multimodal mix (sections of 20 us, which last about 32 us of guest
 * time there, beside 100 ns ones), where they cost CPU for no
 * throughput; and 3% where every section is 100 us on CPU
 * (docs/bench/spin-history-1207).
 *
 * The history is the share of those spins that lost, a moving average
 * of weight 1/16 in units of 1/65520: each spin granted the rest of
 * the bound moves it a 16th of the way to 0 (it won) or 65520 (it ran
 * to the bound); a spin stopped otherwise leaves it. Above three
 * quarters, the lock's phases stop at the quarter, but for one in
 * LONG_SPIN_PROBE_PERIOD of a thread's, which keeps the history current
 * if the lock changes its ways.
 *
 * On CPU alone, a spin past the quarter breaks even where two thirds of
 * them win (a win saves a sleep, about 15 us of CPU in the guest, for
 * 7.5 us of spin on the mean; a loss spins 15 us for nothing), but the
 * wins also take the wake-up off the lock's critical path. The cut is
 * therefore late, since losses come in bursts: a cut at half, with a
 * weight of 1/32, cut a third of the phases of sysbench threads at 4
 * threads and cost it 6 to 7% of its throughput at 2 and 4.
 */
#define SPIN_HISTORY_LOST	(MARKS_SPIN_HISTORY / 16)
#define SPIN_HISTORY_ALL_LOST	(16 * SPIN_HISTORY_LOST)
_Static_assert(SPIN_HISTORY_ALL_LOST <= MARKS_SPIN_HISTORY, "the history fits its bits");
/*
 * A cut lock's phases then spin at most 1/4 + 3/4 x 1/8, about a third,
 * of the bound on the mean, and a history just over the cut falls back
 * below it after one probe that wins.
 */
#define LONG_SPIN_PROBE_PERIOD	8

static inline uint32_t spin_history_add(uint32_t history, bool lost)
{
	return history - history / 16 + (lost ? SPIN_HISTORY_LOST : 0);
}

static inline bool spin_history_says_cut(uint32_t history)
{
	return history > SPIN_HISTORY_ALL_LOST / 4 * 3;
}

/*
 * The time bound starts at a phase's first spin, not before its first
 * verdict: a waiter that sleeps at once, its owner off CPU, reads no
 * clock for it.
 */
static inline void spin_phase_bound(struct waiter *w)
{
	unsigned long long now, bound, first = adaptive_config.spin_ns;

	if (w->spins || !policy_is_time_bounded())
		return;
	now = now_ns();
	if (!w->start_ns)
		w->start_ns = now;
	if (policy_single_spinner()) {
		first /= 4;
		w->extend_ns = adaptive_config.spin_ns - first;
	}
	bound = now + first;
	if (bound < w->phase_end_ns)
		w->phase_end_ns = bound;
}

/*
 * At @now, past the quarter's end: whether the phase goes on for the
 * rest of its bound. Only a phase that spins the whole rest before its
 * deadline, and was not held off its CPU past the rest already, tells
 * the lock's history anything.
 */
static inline bool spin_phase_extend(struct waiter *w, unsigned long long now)
{
	unsigned long long end = w->phase_end_ns + w->extend_ns;

	if (!w->extend_ns || w->phase_end_ns >= w->deadline_ns || now >= w->deadline_ns ||
	    now >= end)
		return false;
	if (w->long_denied) {
		w->cut_short = true;
		return false;
	}
	w->extend_ns = 0;
	w->spun_long = end <= w->deadline_ns;
	w->phase_end_ns = w->spun_long ? end : w->deadline_ns;
	return true;
}

/*
 * Whether the phase is over; at the quarter's end, it extends the phase
 * if it may. Reading the clock costs about as much as a pause: look
 * every 16 spins.
 */
static inline bool spin_past_phase_end(struct waiter *w)
{
	unsigned long long now;

	if (w->spins & 15)
		return false;
	now = now_ns();
	return now >= w->phase_end_ns && !spin_phase_extend(w, now);
}

static inline bool verdict_spins(enum spin_verdict verdict)
{
	return verdict == SPIN_ON || verdict == SPIN_ON_BLIND;
}

static inline enum spin_verdict spin_within_time(struct waiter *w)
{
	spin_phase_bound(w);
	w->spins++;
	return spin_past_phase_end(w) ? SPIN_STOP_BOUND : SPIN_ON;
}

static inline enum spin_verdict spin_within_count(struct waiter *w)
{
	spin_phase_bound(w);
	if (w->spins++ >= adaptive_config.spin_count) {
		/* The count, not the time bound, ended it: no long spin lost. */
		w->spun_long = false;
		return SPIN_STOP_BOUND;
	}
	if (w->deadline_ns != NO_DEADLINE && spin_past_phase_end(w))
		return SPIN_STOP_BOUND;
	return SPIN_ON;
}

/*
 * Under a sched-state policy, attach the state of @self if it is to spin
 * on a running owner (@spins) and has none or retired its own, or if, at
 * a contended unlock, it has none and a waiter asked it for one
 * (sched_state.h).
 */
static inline void policy_attach_state(struct adaptive_thread *self, bool spins)
{
	if (!policy_reads_sched_state(adaptive_config.policy))
		return;
	if ((self->mode == RSEQ_MODE_NONE && (spins || sched_state_wanted(self->tid))) ||
	    (self->retired_reviews && spins))
		thread_attach_state(self);
}

/*
 * Under a sched-state policy, at a contended unlock: review the state of
 * @self if it has one, attached or retired (whose timer runs here).
 */
static inline void policy_review_state(struct adaptive_thread *self)
{
	if (policy_reads_sched_state(adaptive_config.policy) &&
	    (self->mode == RSEQ_MODE_ATTACHED || self->mode == RSEQ_MODE_OWN))
		thread_review_state(self);
}

/*
 * Whether @w, under a sched-state policy (the only ones that give it its
 * own state), must not spin because other tasks wait for its own CPU, as
 * the kernel sampled when it last stored @w's ON_CPU (at least once per
 * switch in): a spin would delay them, the owners of other locks among
 * them, and sleeping costs what glibc's waiter pays. Checked before the
 * spin and at each iteration, so that a spinner preempted meanwhile stops
 * if it came back to a contended CPU.
 */
static inline bool waiter_cpu_contended(const struct waiter *w)
{
	return w->own && sched_state_cpu_contended(w->own);
}

/*
 * The state of @m's owner, with its tid in @owner_tid; NULL if the lock
 * is changing hands (@owner_tid 0) or the owner has no state.
 */
static inline const struct rseq_abi_sched_state *mutex_owner_state(const pthread_mutex_t *m,
								   int *owner_tid)
{
	*owner_tid = __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED);
	return *owner_tid ? sched_state_of(*owner_tid) : NULL;
}

/* Whether the owner of @m has a state that reads off CPU. */
static inline bool mutex_owner_off_cpu(const pthread_mutex_t *m)
{
	int owner_tid;
	const struct rseq_abi_sched_state *owner = mutex_owner_state(m, &owner_tid);

	return owner && !sched_state_on_cpu(owner);
}

/*
 * Whether @w spins once more on @m, or sleeps. Under the sched-state
 * policy it spins while the owner runs and its own CPU is not wanted,
 * within the time bound since the flag is only a hint (an owner whose
 * vCPU was preempted still reads on CPU), and falls back to the
 * spin-count budget for an owner without a state (none attached, or a
 * kernel without the feature), unless the owner retired its state.
 */
static inline enum spin_verdict waiter_spin_verdict(struct waiter *w, const pthread_mutex_t *m)
{
	const struct rseq_abi_sched_state *owner;
	enum spin_verdict verdict;
	int owner_tid;

	switch (adaptive_config.policy) {
	case POLICY_SCHED_STATE:
	case POLICY_SCHED_STATE_MULTI:
		if (waiter_cpu_contended(w))
			return SPIN_STOP_CPU_CONTENDED;
		owner = mutex_owner_state(m, &owner_tid);
		/* 0: the lock is changing hands. */
		if (!owner_tid)
			return spin_within_time(w);
		if (!owner && sched_state_retired(owner_tid))
			return SPIN_STOP_OWNER_RETIRED;
		if (!owner) {
			/* Once a phase: for the owner's later waiters, not this one. */
			if (!w->spins)
				sched_state_want(owner_tid);
			verdict = spin_within_count(w);
			return verdict == SPIN_ON ? SPIN_ON_BLIND : verdict;
		}
		if (!sched_state_on_cpu(owner))
			return SPIN_STOP_OWNER_OFF_CPU;
		w->spun_on = owner_tid;
		return spin_within_time(w);
	case POLICY_SPIN:
	case POLICY_SPIN_SINGLE:
		return spin_within_time(w);
	case POLICY_SPIN_COUNT:
		return spin_within_count(w);
	default:
		return SPIN_STOP_BOUND;
	}
}

#endif /* ADAPTIVE_POLICY_H */
