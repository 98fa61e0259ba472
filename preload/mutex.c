// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The contended path of lock, timedlock and clocklock: one loop, shaped
 * like glibc's __lll_lock_wait (nptl/lowlevellock.c), with spinning
 * before each sleep, and a handoff to a waiter that has been overtaken
 * for too long (handoff.h).
 */
#define _GNU_SOURCE
#include <limits.h>

#include "handoff.h"
#include "mutex.h"
#include "policy.h"

static bool timespec_valid(const struct timespec *ts)
{
	return ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000;
}

/* A time of day (tv_sec >= 0) in ns, or NO_DEADLINE beyond 2554. */
static unsigned long long timespec_ns(const struct timespec *ts)
{
	if ((unsigned long long) ts->tv_sec >= NO_DEADLINE / 1000000000ULL - 1)
		return NO_DEADLINE;
	return ts->tv_sec * 1000000000ULL + ts->tv_nsec;
}

/*
 * @abstime on @clockid as a deadline on the monotonic clock, which the
 * spin phases read; the futex sleeps wait for @abstime on its own clock.
 */
static unsigned long long monotonic_deadline(clockid_t clockid, const struct timespec *abstime,
					     unsigned long long now)
{
	struct timespec clock_now;
	unsigned long long at, then;

	if (!abstime)
		return NO_DEADLINE;
	if (abstime->tv_sec < 0)
		return now;
	clock_gettime(clockid, &clock_now);
	at = timespec_ns(abstime);
	then = timespec_ns(&clock_now);
	if (at <= then)
		return now;
	return at - then < NO_DEADLINE - now ? now + (at - then) : NO_DEADLINE;
}

/*
 * Whether @w waited past the starvation bound; a waiter that has not read
 * the clock yet (no timed spin, no deadline) starts its wait now. Asked
 * only after a wake-up that found the lock taken, so that a sleeper that
 * gets the lock at its first wake-up, the rule, reads no clock: the read
 * lies on the path of a handoff to a sleeper (before the unlocker's next
 * sleep), and was the largest of the library's costs in rt-tests'
 * ptsematest under QEMU's icount (0.06 to 0.18 us of 5.7, 2 runs each).
 */
static bool waiter_starving(struct waiter *w)
{
	unsigned long long now = now_ns();

	if (!w->start_ns)
		w->start_ns = now;
	return now - w->start_ns >= adaptive_config.starve_ns;
}

/*
 * A thread whose last SKIP_AFTER_OFF_CPU waits that decided whether to
 * spin all found the owner off CPU, none of them spinning, skips the
 * decision in all but one of every RECHECK_PERIOD waits from then on,
 * and waits as the futex policy does. Where every wait sleeps, as where
 * an owner yields its CPU to its waiter inside the section (stress-ng
 * --mutex at 2 threads per CPU), the decision (the waiter's own state
 * or the owner's slot and verdict, the spin phase's set-up) is pure
 * cost: 0.9% of the acquisitions per virtual second under QEMU's icount
 * there (docs/bench/skip-decision-1207; in TCG's wall time the effect is
 * within the spread between boots). The first wait that decides again
 * and spins ends the skip.
 *
 * Only an owner seen off CPU counts, whether the verdict said so or the
 * waiter's own CPU, contended, refused the spin first: a contended CPU
 * alone says nothing of the owner, which a later wait may catch running
 * on a free CPU (sysbench mutex at 2 threads per CPU, whose spins win
 * between long runs of such refusals, skipped more than half its waits
 * when they counted). One spin breaks the run, so a thread that may
 * spin on one wait in four is unlikely to skip at all. The stand-in
 * (thread.c) keeps no history.
 */
#define SKIP_AFTER_OFF_CPU	16
#define RECHECK_PERIOD		8

static bool spin_decision_skipped(struct adaptive_thread *self)
{
	if (self->off_cpu_waits < SKIP_AFTER_OFF_CPU || !self->tid)
		return false;
	if (++self->skip_turn % RECHECK_PERIOD == 0)
		return false;
	stat_inc(self, STAT_SPIN_SKIPPED);
	return true;
}

static void note_spin_outcome(struct adaptive_thread *self, const struct waiter *w)
{
	if (w->chose_spin)
		self->off_cpu_waits = 0;
	else if (w->saw_owner_off_cpu && self->off_cpu_waits < SKIP_AFTER_OFF_CPU && self->tid)
		self->off_cpu_waits++;
}

static void count_spin_end(struct adaptive_thread *self, const struct waiter *w,
			   enum spin_verdict verdict)
{
	if (verdict == SPIN_STOP_OWNER_OFF_CPU)
		stat_inc(self, STAT_OWNER_OFF_CPU);
	else if (verdict == SPIN_STOP_OWNER_RETIRED)
		stat_inc(self, STAT_OWNER_RETIRED);
	else if (verdict == SPIN_STOP_CPU_CONTENDED)
		stat_inc(self, STAT_CPU_CONTENDED);
	else if (verdict == SPIN_STOP_BOUND && w->spins)
		stat_inc(self, w->cut_short ? STAT_SPIN_CUT : STAT_SPIN_BOUND);
}

/*
 * Whether the spinner @self, on a lock whose history says its long
 * spins lose, is to spin long anyway: one phase in LONG_SPIN_PROBE_PERIOD
 * of the thread's own, none for the stand-in (thread.c), which keeps no
 * history.
 */
static bool long_spin_probe(struct adaptive_thread *self)
{
	return self->tid && ++self->long_spin_probes % LONG_SPIN_PROBE_PERIOD == 0;
}

/*
 * A spin that relied on the owner's state won, guarded by the waiter's
 * own CPU_CONTENDED if it has a state: both states keep paying for
 * themselves at their next review.
 */
static void note_spin_win(const struct adaptive_thread *self, const struct waiter *w)
{
	sched_state_note_win(w->spun_on);
	if (w->own)
		sched_state_note_win(self->tid);
}

/* Spin on @m as long as the policy says; true with the word taken with @val. */
static bool waiter_spin(pthread_mutex_t *m, struct waiter *w, struct adaptive_thread *self,
			int val)
{
	enum spin_verdict verdict;
	bool claimed, taken = false;
	uint32_t history = 0;

	/*
	 * A free word needs no spin phase, and so no clock read and no
	 * spinner claim: the common case of a sleeper woken by an unlock,
	 * whose every instruction adds to the handoff's latency.
	 */
	if (lock_word_take_free(m, val))
		return true;
	if (waiter_cpu_contended(w)) {
		stat_inc(self, STAT_CPU_CONTENDED);
		if (mutex_owner_off_cpu(m))
			w->saw_owner_off_cpu = true;
		return false;
	}
	waiter_start_spin(w);
	verdict = waiter_spin_verdict(w, m);
	/*
	 * A waiter to spin on a running owner (not on a word changing
	 * hands) reads its own CPU_CONTENDED too.
	 */
	if (verdict == SPIN_ON && !w->own && policy_reads_sched_state(adaptive_config.policy) &&
	    __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED)) {
		policy_attach_state(self, true);
		w->own = sched_state_of(self->tid);
	}
	/* Only a waiter that is to spin claims the spinner mark. */
	claimed = verdict_spins(verdict) && policy_single_spinner();
	if (claimed && !mutex_claim_spinner(m, &history))
		return false;
	if (claimed && spin_history_says_cut(history) && !long_spin_probe(self))
		w->long_denied = true;
	if (verdict_spins(verdict))
		w->chose_spin = true;
	else if (verdict == SPIN_STOP_OWNER_OFF_CPU)
		w->saw_owner_off_cpu = true;
	for (; verdict_spins(verdict); verdict = waiter_spin_verdict(w, m)) {
		/* Here, not at the first verdict: a waiter that lost the mark did not spin. */
		if (verdict == SPIN_ON_BLIND)
			w->fallback = true;
		if (lock_word_take_free(m, val)) {
			taken = true;
			break;
		}
		__builtin_ia32_pause();
	}
	/*
	 * A long spin that stopped for another reason than its bound (its
	 * own CPU wanted, the owner off CPU or retired) says nothing of
	 * how long the lock's sections last.
	 */
	if (w->spun_long && (taken || verdict == SPIN_STOP_BOUND)) {
		stat_inc(self, taken ? STAT_SPIN_LONG_WIN : STAT_SPIN_LONG_LOSS);
		history = spin_history_add(history, !taken);
	}
	if (claimed)
		mutex_release_spinner(m, history);
	if (!taken)
		count_spin_end(self, w, verdict);
	else if (w->spun_on)
		note_spin_win(self, w);
	return taken;
}

/* Sleep while the word is 2, until @abstime on @clockid if given. */
static int waiter_sleep(int *word, clockid_t clockid, const struct timespec *abstime)
{
	return futex_wait(word, 2, clockid, abstime) == -ETIMEDOUT ? ETIMEDOUT : 0;
}

/*
 * A newcomer spins if it may (policy.h), and takes the free word with
 * 1: it leaves no sleeper behind. Unless it takes the lock so, it queues:
 * from there on it takes the word with 2 only, since other sleepers may
 * remain that the next unlock must wake (glibc-mutex.h). Once it has
 * waited past the starvation bound, it becomes the heir when it can,
 * and waits for the lock to be handed to it.
 * Returns 0 with the lock taken, or ETIMEDOUT.
 */
static int waiter_wait(pthread_mutex_t *m, struct waiter *w, struct adaptive_thread *self,
		       clockid_t clockid, const struct timespec *abstime)
{
	int *word = &m->__data.__lock;
	bool woken = false;
	int ret;

	if (w->may_spin && waiter_spin(m, w, self, 1)) {
		/* A word found free before any spin ended the wait without one. */
		if (w->spins)
			stat_inc(self, STAT_SPIN_WIN);
		return 0;
	}
	/* Queued: from here on, the word is taken with 2. */
	while (__atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE)) {
		if (woken && waiter_starving(w) && heir_claim(m)) {
			ret = heir_wait(m, self, clockid, abstime);
			if (ret != HEIR_GAVE_UP)
				return ret;
		}
		stat_inc(self, STAT_FUTEX_SLEEP);
		ret = waiter_sleep(word, clockid, abstime);
		if (ret)
			return ret;
		woken = true;
		if (w->may_spin && waiter_spin(m, w, self, 2))
			return 0;
	}
	return 0;
}

/* Returns 0 with the lock word taken, ETIMEDOUT or EINVAL without. */
static int lock_slowpath(pthread_mutex_t *m, struct adaptive_thread *self, clockid_t clockid,
			 const struct timespec *abstime)
{
	/* The clock is read when first needed: a wait that ends at once reads none. */
	struct waiter w = { .start_ns = abstime ? now_ns() : 0 };
	int ret;

	thread_enter_process(self);
	stat_inc(self, STAT_CONTENDED);
	/*
	 * POSIX: EINVAL when the call would block with a bad timeout; glibc
	 * times out first on a negative second, whatever the nanoseconds.
	 */
	if (abstime && abstime->tv_sec >= 0 && !timespec_valid(abstime))
		return lock_word_take(m, 1) ? 0 : EINVAL;
	/* Read once: a thread waiting for a mutex it holds stays its owner. */
	w.may_spin = policy_spins() &&
		     __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) != glibc_tid() &&
		     !spin_decision_skipped(self);
	/* Not before: a forked child would trust the copy of its parent's slot. */
	if (w.may_spin && policy_reads_sched_state(adaptive_config.policy))
		w.own = sched_state_of(self->tid);
	w.deadline_ns = monotonic_deadline(clockid, abstime, w.start_ns);
	ret = waiter_wait(m, &w, self, clockid, abstime);
	if (w.may_spin)
		note_spin_outcome(self, &w);
	if (w.fallback)
		stat_inc(self, STAT_FALLBACK);
	return ret;
}

int adaptive_mutex_lock_contended(pthread_mutex_t *m, int type, struct adaptive_thread *self,
				  clockid_t clockid, const struct timespec *abstime)
{
	int ret = lock_slowpath(m, self, clockid, abstime);

	if (!ret)
		mutex_set_owner(m, type, self);
	return ret;
}
