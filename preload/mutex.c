// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include "mutex.h"
#include "policy.h"

static bool timespec_valid(const struct timespec *ts)
{
	return ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000;
}

/* Once @w, overtaken, waited past the bound, newcomers stop overtaking it. */
static void waiter_check_starving(pthread_mutex_t *m, struct waiter *w,
				  struct adaptive_thread *self)
{
	if (w->starving || now_ns() - w->start_ns < adaptive_config.starve_ns)
		return;
	w->starving = true;
	mutex_add_starving(m, 1);
	stat_inc(self, STAT_STARVING);
}

/*
 * Whether @w defers to a starving waiter instead of taking the free lock.
 * A waiter that slept does not: the kernel wakes the oldest sleeper first.
 */
static bool waiter_defers(const pthread_mutex_t *m, const struct waiter *w)
{
	return !w->slept && !w->starving && mutex_starving_waiters(m);
}

static void count_spin_end(struct adaptive_thread *self, const struct waiter *w,
			   enum spin_verdict verdict)
{
	if (verdict == SPIN_STOP_OWNER_OFF_CPU)
		stat_inc(self, STAT_OWNER_OFF_CPU);
	else if (verdict == SPIN_STOP_BOUND && w->spins)
		stat_inc(self, STAT_SPIN_BOUND);
}

/*
 * Spin on @m as long as the policy says; true with the lock taken. A
 * waiter that slept takes it with 2, for the sleepers it may leave.
 */
static bool waiter_spin(pthread_mutex_t *m, struct waiter *w, struct adaptive_thread *self)
{
	bool single = policy_single_spinner();
	enum spin_verdict verdict;
	bool taken = false;

	if (single && !mutex_claim_spinner(m))
		return false;
	waiter_start_spin(w);
	while ((verdict = waiter_spin_verdict(w, m)) == SPIN_ON) {
		if (!__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) &&
		    lock_word_take(m, w->slept ? 2 : 1)) {
			if (!w->slept)
				stat_inc(self, STAT_SPIN_WIN);
			taken = true;
			break;
		}
		__builtin_ia32_pause();
	}
	if (single)
		mutex_release_spinner(m);
	if (!taken)
		count_spin_end(self, w, verdict);
	return taken;
}

/* The monotonic time at which @w starts starving, as a futex deadline. */
static struct timespec starving_deadline(const struct waiter *w)
{
	unsigned long long at = w->start_ns + adaptive_config.starve_ns;
	struct timespec ts = { .tv_sec = at / 1000000000ULL, .tv_nsec = at % 1000000000ULL };

	return ts;
}

/*
 * Let a starving waiter take the free lock: sleep in the futex queue
 * behind it, as if the lock word were 2, until an unlock wakes this
 * waiter or it starts starving itself. The deadline keeps it from
 * sleeping on a free lock that nobody will unlock again, if the
 * starving waiter gives up (timedlock).
 */
static void waiter_defer(pthread_mutex_t *m, struct waiter *w)
{
	struct timespec deadline = starving_deadline(w);

	futex_wait(&m->__data.__lock, 0, CLOCK_MONOTONIC, &deadline);
}

/*
 * Sleep while the lock word is 2, until @abstime on @clockid if given.
 * Returns 0 or ETIMEDOUT.
 */
static int waiter_sleep(int *word, clockid_t clockid, const struct timespec *abstime)
{
	if (abstime && abstime->tv_sec < 0)
		return ETIMEDOUT;
	return futex_wait(word, 2, clockid, abstime) == -ETIMEDOUT ? ETIMEDOUT : 0;
}

/*
 * The contended path: spin as long as the policy says, then sleep with
 * glibc's protocol (__lll_lock_wait in nptl/lowlevellock.c), and spin
 * again after each wake-up. Returns 0 with the lock taken, ETIMEDOUT or
 * EINVAL without.
 */
int adaptive_lock_slowpath(pthread_mutex_t *m, struct adaptive_thread *self, clockid_t clockid,
			   const struct timespec *abstime)
{
	struct waiter w = { .start_ns = now_ns() };
	int *word = &m->__data.__lock;
	int ret = 0, val;

	stat_inc(self, STAT_CONTENDED);
	/* POSIX: EINVAL when the call would block with a bad timeout. */
	if (abstime && !timespec_valid(abstime))
		return EINVAL;
	for (;;) {
		if (waiter_spin(m, &w, self))
			goto out;

		val = __atomic_load_n(word, __ATOMIC_RELAXED);
		if (!val) {
			if (waiter_defers(m, &w)) {
				waiter_defer(m, &w);
				/* Queued once: it defers no more, as sleepers do not. */
				w.slept = true;
				waiter_check_starving(m, &w, self);
			} else if (lock_word_take(m, 2)) {
				goto out;
			}
			continue;
		}
		/* assertion: a sleeper finds 2 in the word, so unlock wakes one. */
		if (val == 1 && !__atomic_compare_exchange_n(word, &val, 2, false, __ATOMIC_ACQUIRE,
							     __ATOMIC_RELAXED))
			continue;
		stat_inc(self, STAT_FUTEX_SLEEP);
		ret = waiter_sleep(word, clockid, abstime);
		w.slept = true;
		if (ret)
			goto out;
		/*
		 * A sleeper is overtaken when it wakes to a taken lock: only
		 * then may it be starving. A long queue alone is not unfair.
		 */
		if (lock_word_take(m, 2))
			goto out;
		waiter_check_starving(m, &w, self);
	}
out:
	if (w.starving)
		mutex_add_starving(m, -1);
	if (w.fallback)
		stat_inc(self, STAT_FALLBACK);
	return ret;
}
