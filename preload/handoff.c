// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The heir's side and the unlocker's side of the handoff (handoff.h).
 *
 * The bound it gives: a waiter that has waited B (ADAPTIVE_STARVE_US),
 * counted from entry for a timed lock, else from its first time-bounded
 * spin or its first wake-up that finds the lock taken (mutex.c reads the
 * clock no sooner),
 * claims the heir word at its next wake-up that finds it free and a
 * grant interval I past the mutex's last grant, and is granted the lock
 * by the next unlock through libadaptive. I = max(B, 64 L), where L is
 * the heir's measured wake-up latency (a sample counts for at most B, so
 * I is at most 64 B). With N waiters of one priority (futex wakes
 * sleepers in priority order, in turn within one) and S the longest
 * section, a sleeper is woken within about N (S + L): an unlock that
 * finds the word 2 wakes one sleeper, and one woken and overtaken makes
 * it 2 again. With each waiter heir once before any waits B again, a
 * waiter has the lock within about B + N (I + 2 S + L). Its cost: the
 * lock is held idle for L at most once per I, at most 1/64 of its time.
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

/*
 * The heir sleeps on the lock word and on its heir word at once, so
 * that any release of a lock word it made 2 wakes it, glibc's own
 * included (a condition variable's), and a grant does too. Without
 * futex_waitv (Linux 5.16), or where a seccomp filter refuses it, there
 * are no heirs, and no handoffs.
 */
static bool waitv_supported;

void handoff_init(void)
{
	/* An empty vector: EINVAL where the call exists and is allowed. */
	waitv_supported = raw_syscall6(SYS_futex_waitv, 0, 0, 0, 0, 0, 0) == -EINVAL;
}

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

/*
 * A sample counts for at most the starvation bound: one heir that was
 * stopped or ran a signal handler must not space grants for minutes.
 * Racy updates lose a sample now and then, which an average can afford.
 */
static void grant_latency_add(unsigned long long sample_ns)
{
	unsigned long long avg = __atomic_load_n(&grant_latency_ns, __ATOMIC_RELAXED);

	if (sample_ns > adaptive_config.starve_ns)
		sample_ns = adaptive_config.starve_ns;
	__atomic_store_n(&grant_latency_ns, avg - avg / 8 + sample_ns / 8, __ATOMIC_RELAXED);
}

/*
 * Whether a grant interval has passed since @m's last grant, modulo 2^32
 * us: a grant comes late by at most an interval once every 71 minutes.
 */
static bool grant_interval_passed(pthread_mutex_t *m)
{
	uint32_t last = __atomic_load_n(grant_time_word(m), __ATOMIC_RELAXED);

	return (uint32_t) (now_us() - last) >= grant_interval_ns() / 1000;
}

/*
 * The spacing of grants is enforced here, not at unlock: a waiter
 * claims the heir word only once the interval has passed, and an unlock
 * grants to any heir there is, so that no unlock reads the clock and no
 * heir waits out an interval with the lock word made 2, which would
 * send every unlock meanwhile into futex_wake().
 */
bool heir_claim(pthread_mutex_t *m)
{
	uint32_t old = __atomic_load_n(heir_word(m), __ATOMIC_RELAXED);

	/* Free, or another process's (inherited by fork): take it. */
	if (!__atomic_load_n(&waitv_supported, __ATOMIC_RELAXED) || heir_state_of(old) ||
	    !grant_interval_passed(m))
		return false;
	return __atomic_compare_exchange_n(heir_word(m), &old, heir_pack(HEIR_WAITING), false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

static void heir_leave(pthread_mutex_t *m)
{
	__atomic_store_n(heir_word(m), 0, __ATOMIC_RELAXED);
}

/*
 * The lock was granted to the heir, which returns owning it with the
 * word 2, as a woken sleeper takes it (glibc-mutex.h), so that its
 * unlock wakes the sleepers behind it. The granting unlock found the
 * word other than 1 (adaptive_mutex_unlock_heir()): 2 as a rule, or 0
 * where the program unlocked a normal mutex that was not locked, which
 * glibc tolerates, and after which a newcomer that took the free word
 * meanwhile owns the lock too; either way the heir now owns a taken
 * word. (A grant with the word 1 once lost the wake-up of every sleeper
 * behind the heir.)
 */
static void heir_take_grant(pthread_mutex_t *m, struct adaptive_thread *self)
{
	uint32_t granted_us = __atomic_load_n(grant_time_word(m), __ATOMIC_RELAXED);

	__atomic_store_n(&m->__data.__lock, 2, __ATOMIC_RELAXED);
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
	uint32_t waiting = heir_pack(HEIR_WAITING);

	if (__atomic_compare_exchange_n(heir_word(m), &waiting, 0, false, __ATOMIC_ACQUIRE,
					__ATOMIC_ACQUIRE))
		return true;
	heir_take_grant(m, self);
	return false;
}

/*
 * The heir waits for the lock to be granted, or for the lock word to be
 * free, which it takes with 2 as every sleeper does, or gives up the
 * heir word if the kernel refuses its sleep. Before it sleeps it makes
 * the word 2. An unlock that finds 1 before that releases the word,
 * which the heir then finds free; one that finds 2 grants the lock, or,
 * if it looked at the heir word before the claim, releases the word and
 * wakes a sleeper of it: the heir, or another that takes the lock and
 * whose unlock grants it.
 */
int heir_wait(pthread_mutex_t *m, struct adaptive_thread *self, clockid_t clockid,
	      const struct timespec *abstime)
{
	int *word = &m->__data.__lock;
	long ret;
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
		ret = futex_wait_either(word, 2, (int *) heir_word(m), heir_pack(HEIR_WAITING),
					clockid, abstime);
		if (heir_state_of(__atomic_load_n(heir_word(m), __ATOMIC_ACQUIRE)) ==
		    HEIR_GRANTED) {
			heir_take_grant(m, self);
			return 0;
		}
		if (ret == -ETIMEDOUT)
			return heir_resign(m, self) ? ETIMEDOUT : 0;
		/* Refused after the probe (a seccomp filter): queue as others do. */
		if (ret < 0 && ret != -EAGAIN && ret != -EINTR) {
			__atomic_store_n(&waitv_supported, false, __ATOMIC_RELAXED);
			return heir_resign(m, self) ? HEIR_GAVE_UP : 0;
		}
	}
}

/*
 * Grant the held lock to this process's heir, given @m's heir word @old
 * (not 0); true if there was one.
 */
static bool unlock_grant(pthread_mutex_t *m, uint32_t old)
{
	if (!heir_state_of(old)) {
		/* Another process's heir: forget it. */
		__atomic_compare_exchange_n(heir_word(m), &old, 0, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
		return false;
	}
	/*
	 * Written while the lock is held, so that the lock orders the
	 * writers, and before the grant, which publishes it to the heir.
	 * If the heir resigned meanwhile, the next claim waits an interval
	 * for nothing: rare, and only a delay.
	 */
	__atomic_store_n(grant_time_word(m), now_us(), __ATOMIC_RELAXED);
	old = heir_pack(HEIR_WAITING);
	if (!__atomic_compare_exchange_n(heir_word(m), &old, heir_pack(HEIR_GRANTED), false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return false;
	/* As glibc's unlock, only the system call may touch @m from here on. */
	futex_wake_one((int *) heir_word(m));
	return true;
}

/*
 * After the wake-up, off its latency, and touching only the thread's own
 * slot: an owner whose waiters had to sleep is the one that a waiter
 * that found it without a state asked for one. The policy first: the
 * others attach nothing, and their unlocks need not even find the thread.
 */
static void unlock_attach_state(void)
{
	struct adaptive_thread *self;

	if (!policy_reads_sched_state(adaptive_config.policy))
		return;
	self = adaptive_thread_self();
	thread_enter_process(self);
	policy_attach_state(self, false);
	policy_review_state(self);
}

int adaptive_mutex_unlock_woke(pthread_mutex_t *m)
{
	futex_wake_one(&m->__data.__lock);
	unlock_attach_state();
	return 0;
}

/*
 * An heir makes the word 2 before it sleeps, so that an unlock that
 * finds 1 has no heir to grant the lock to: one that claimed the heir
 * word meanwhile finds the word free and takes it. The unlocker compares
 * the heir word with its process's epoch, which it may not have started
 * yet: a forked child's first call can be the unlock of a mutex held
 * across fork(), whose heir is its parent's.
 */
int adaptive_mutex_unlock_heir(pthread_mutex_t *m)
{
	struct adaptive_thread *self;
	int locked = 1;
	uint32_t heir;

	if (__atomic_compare_exchange_n(&m->__data.__lock, &locked, 0, false, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		return 0;
	self = adaptive_thread_self();
	thread_enter_process(self);
	/* Loaded again: the heir may have resigned since the caller's load. */
	heir = __atomic_load_n(heir_word(m), __ATOMIC_RELAXED);
	if (!(heir && unlock_grant(m, heir)) && lock_word_release(m) > 1)
		futex_wake_one(&m->__data.__lock);
	unlock_attach_state();
	return 0;
}
