/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ADAPTIVE_STATS=1: per-process counters, printed on stderr at exit.
 * Each thread counts in a block of its own (no shared cache line);
 * with stats off, counting costs one predictable branch on a flag that
 * is never written after initialization.
 */
#ifndef ADAPTIVE_STATS_H
#define ADAPTIVE_STATS_H

#include <stdbool.h>

#include "config.h"
#include "thread.h"

enum stat_counter {
	/* Mutexes taken by libadaptive: lock, trylock, timedlock. */
	STAT_ACQUIRE,
	/*
	 * Acquisitions that had to wait: a spin win, a wait with sleeps, or
	 * one that found the word free before any spin.
	 */
	STAT_CONTENDED,
	/* Waits that ended while spinning, before any sleep. */
	STAT_SPIN_WIN,
	/* Sleeps in futex. */
	STAT_FUTEX_SLEEP,
	/* Spins not begun or stopped because the owner was seen off CPU. */
	STAT_OWNER_OFF_CPU,
	/* Spins not begun or stopped: the owner detached its state for disuse. */
	STAT_OWNER_RETIRED,
	/* Spins stopped by the time or iteration bound, but for ... */
	STAT_SPIN_BOUND,
	/* ... those stopped at the short bound by the lock's spin history (policy.h). */
	STAT_SPIN_CUT,
	/*
	 * Spins, before a sleep or after a wake-up, that went on past the
	 * short bound for the rest of it and won, or ran to the bound.
	 */
	STAT_SPIN_LONG_WIN,
	STAT_SPIN_LONG_LOSS,
	/* Spins not begun or stopped: the waiter's own CPU was contended. */
	STAT_CPU_CONTENDED,
	/* Waits that did not decide whether to spin: mutex.c's skip. */
	STAT_SPIN_SKIPPED,
	/* Waits that used the spin-count fallback: owner state unknown. */
	STAT_FALLBACK,
	/* Waiters that waited past ADAPTIVE_STARVE_US and became the heir. */
	STAT_STARVING,
	/* Locks granted to an heir by handoff. */
	STAT_HANDOFF,
	/* Calls left to glibc: robust, PI, PP and process-shared mutexes. */
	STAT_PASSTHROUGH,
	/* States detached at a review: no spin on them won (sched_state.h). */
	STAT_STATE_RETIRED,
	/* Retired states attached again. */
	STAT_STATE_RESUMED,
	NR_STATS
};

struct adaptive_stats {
	unsigned long long count[NR_STATS];
	/*
	 * Threads by registration mode, counted when it is set: at set-up
	 * (none, unsupported) or at attachment (sched_state.h); none is not
	 * reported.
	 */
	unsigned long long threads[NR_RSEQ_MODES];
	/* Block owned by a live thread; blocks are reused, never freed. */
	int in_use;
	struct adaptive_stats *next;
} __attribute__((aligned(64)));

static inline void stat_inc(struct adaptive_thread *self, enum stat_counter counter)
{
	/* No block: a vfork() child's stand-in (thread.h). */
	if (__builtin_expect(adaptive_config.stats, 0) && self->stats)
		self->stats->count[counter]++;
}

void stats_init(void);
void stats_thread_start(struct adaptive_thread *self);
/* Count the thread under its mode, which its set-up or attachment set. */
void stats_thread_mode(struct adaptive_thread *self);
void stats_thread_exit(struct adaptive_thread *self);
/* A forked child counts its own work only. */
void stats_new_process(void);
/* Print the counters once, at exit or _exit. */
void stats_report(void);

#endif /* ADAPTIVE_STATS_H */
