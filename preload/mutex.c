// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include "mutex.h"
#include "policy.h"

static bool timespec_valid(const struct timespec *ts)
{
	return ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000;
}

/* Once @w waited past the bound, newcomers stop overtaking it. */
static void waiter_check_starving(pthread_mutex_t *m, struct waiter *w,
				  struct adaptive_thread *self)
{
	if (w->starving || now_ns() - w->start_ns < adaptive_config.starve_ns)
		return;
	w->starving = true;
	__atomic_fetch_add(&m->__data.__elision, 1, __ATOMIC_RELAXED);
	stat_inc(self, STAT_STARVING);
}

/*
 * Whether @w defers to a starving waiter instead of taking the free lock.
 * A waiter that slept does not: the kernel wakes the oldest sleeper first.
 */
static bool waiter_defers(const pthread_mutex_t *m, const struct waiter *w)
{
	return !w->slept && !w->starving && __atomic_load_n(&m->__data.__elision, __ATOMIC_RELAXED);
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
 * Sleep while the lock word is 2, until @abstime on @clockid if given,
 * or else until @w would start starving (so that it counts as starving
 * even if it sleeps through the bound). Returns 0 or ETIMEDOUT.
 */
static int waiter_sleep(int *word, struct waiter *w, clockid_t clockid,
			const struct timespec *abstime)
{
	unsigned long long starve_at;
	struct timespec deadline;

	if (abstime) {
		if (abstime->tv_sec < 0)
			return ETIMEDOUT;
		return futex_wait(word, 2, clockid, abstime) == -ETIMEDOUT ? ETIMEDOUT : 0;
	}
	if (w->starving) {
		futex_wait(word, 2, CLOCK_MONOTONIC, NULL);
		return 0;
	}
	starve_at = w->start_ns + adaptive_config.starve_ns;
	deadline.tv_sec = starve_at / 1000000000ULL;
	deadline.tv_nsec = starve_at % 1000000000ULL;
	futex_wait(word, 2, CLOCK_MONOTONIC, &deadline);
	return 0;
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
	enum spin_verdict verdict;
	int ret = 0, val;

	stat_inc(self, STAT_CONTENDED);
	/* POSIX: EINVAL when the call would block with a bad timeout. */
	if (abstime && !timespec_valid(abstime))
		return EINVAL;
	for (;;) {
		waiter_start_spin(&w);
		while ((verdict = waiter_spin_verdict(&w, m)) == SPIN_ON) {
			if (!__atomic_load_n(word, __ATOMIC_RELAXED) &&
			    lock_word_take(m, w.slept ? 2 : 1)) {
				if (!w.slept)
					stat_inc(self, STAT_SPIN_WIN);
				goto out;
			}
			__builtin_ia32_pause();
		}
		count_spin_end(self, &w, verdict);

		val = __atomic_load_n(word, __ATOMIC_RELAXED);
		if (!val) {
			if (waiter_defers(m, &w)) {
				raw_sched_yield();
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
		ret = waiter_sleep(word, &w, clockid, abstime);
		w.slept = true;
		if (ret)
			goto out;
		waiter_check_starving(m, &w, self);
	}
out:
	if (w.starving)
		__atomic_fetch_sub(&m->__data.__elision, 1, __ATOMIC_RELAXED);
	if (w.fallback)
		stat_inc(self, STAT_FALLBACK);
	return ret;
}
