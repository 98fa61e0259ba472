/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The lock operations on the simple mutex kinds (glibc_mutex_is_simple),
 * on glibc's own lock word protocol (glibc-mutex.h). They take the
 * mutex type (glibc_mutex_type), not its kind with the flags.
 */
#ifndef ADAPTIVE_MUTEX_H
#define ADAPTIVE_MUTEX_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/single_threaded.h>
#include <time.h>

#include "glibc-mutex.h"
#include "handoff.h"
#include "stats.h"
#include "syscall.h"
#include "thread.h"
#include "waiter-marks.h"

/*
 * Wait for @m, then take it as adaptive_mutex_lock() does; out of line,
 * so that the fast path saves no register for it.
 */
int adaptive_mutex_lock_contended(pthread_mutex_t *m, int type, struct adaptive_thread *self,
				  clockid_t clockid, const struct timespec *abstime);

/*
 * The two out-of-line ends of an unlock (handoff.c). Each returns 0, the
 * unlock's result, so that the unlock's call to it is a tail call.
 *
 * adaptive_mutex_unlock_heir: the unlock found @m's heir word set. Grant
 * the lock to this process's heir, unless the word is 1, which no heir
 * made 2 yet; else release it as adaptive_mutex_unlock() does.
 *
 * adaptive_mutex_unlock_woke: the unlock released @m's word from 2. Wake
 * a sleeper.
 */
int adaptive_mutex_unlock_heir(pthread_mutex_t *m);
int adaptive_mutex_unlock_woke(pthread_mutex_t *m);

static inline bool lock_word_take(pthread_mutex_t *m, int val)
{
	int unlocked = 0;

	return __atomic_compare_exchange_n(&m->__data.__lock, &unlocked, val, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/*
 * Take the word with @val if it is free, reading it first so that a
 * spinner does not write the line while the owner holds it.
 */
static inline bool lock_word_take_free(pthread_mutex_t *m, int val)
{
	return !__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) && lock_word_take(m, val);
}

/*
 * Release the word as glibc's unlock does (lll_unlock), one exchange;
 * returns what it was: more than 1 if a sleeper must be woken.
 */
static inline int lock_word_release(pthread_mutex_t *m)
{
	return __atomic_exchange_n(&m->__data.__lock, 0, __ATOMIC_RELEASE);
}

/*
 * Take the lock word uncontended. Like glibc 2.36, skip the atomic
 * operation while the process has a single thread.
 */
static inline bool lock_word_take_fast(pthread_mutex_t *m)
{
	if (__libc_single_threaded && !m->__data.__lock) {
		m->__data.__lock = 1;
		return true;
	}
	return lock_word_take(m, 1);
}

/* The bookkeeping of a lock taken by @self, as glibc does it; @self counts it. */
static inline void mutex_set_owner(pthread_mutex_t *m, int type, struct adaptive_thread *self)
{
	m->__data.__owner = glibc_tid();
	m->__data.__nusers++;
	if (type == PTHREAD_MUTEX_RECURSIVE_NP)
		m->__data.__count = 1;
	stat_inc(self, STAT_ACQUIRE);
}

/*
 * The relocking checks of recursive and error-checking mutexes. Returns
 * -1 when the lock must still be taken, else the result of the call.
 */
static inline int mutex_relock(pthread_mutex_t *m, int type)
{
	if (type != PTHREAD_MUTEX_RECURSIVE_NP && type != PTHREAD_MUTEX_ERRORCHECK_NP)
		return -1;
	if (m->__data.__owner != glibc_tid())
		return -1;
	if (type == PTHREAD_MUTEX_ERRORCHECK_NP)
		return EDEADLK;
	if (m->__data.__count + 1 == 0)
		return EAGAIN;
	m->__data.__count++;
	return 0;
}

/*
 * pthread_mutex_lock, timedlock (@abstime on @clockid) and clocklock,
 * by @self (adaptive_thread_self()).
 */
static inline int adaptive_mutex_lock(pthread_mutex_t *m, int type, struct adaptive_thread *self,
				      clockid_t clockid, const struct timespec *abstime)
{
	int ret = mutex_relock(m, type);

	if (ret >= 0)
		return ret;
	if (__builtin_expect(!lock_word_take_fast(m), 0))
		return adaptive_mutex_lock_contended(m, type, self, clockid, abstime);
	mutex_set_owner(m, type, self);
	return 0;
}

static inline int adaptive_mutex_trylock(pthread_mutex_t *m, int type,
					 struct adaptive_thread *self)
{
	int ret = mutex_relock(m, type);

	/* glibc's trylock reports EBUSY, not EDEADLK, for an error-checking relock. */
	if (ret == EDEADLK)
		return EBUSY;
	if (ret >= 0)
		return ret;
	if (!lock_word_take(m, 1))
		return EBUSY;
	mutex_set_owner(m, type, self);
	return 0;
}

static inline int adaptive_mutex_unlock(pthread_mutex_t *m, int type)
{
	int *word = &m->__data.__lock;

	if (type == PTHREAD_MUTEX_RECURSIVE_NP || type == PTHREAD_MUTEX_ERRORCHECK_NP) {
		if (m->__data.__owner != glibc_tid())
			return EPERM;
		if (type == PTHREAD_MUTEX_ERRORCHECK_NP && !*word)
			return EPERM;
		if (type == PTHREAD_MUTEX_RECURSIVE_NP && --m->__data.__count)
			return 0;
	}
	m->__data.__owner = 0;
	m->__data.__nusers--;
	/*
	 * Without an heir, glibc's own unlock, which handoff.c tolerates at
	 * any time (a condition variable's unlock is glibc's): an heir that
	 * claims the heir word after this load finds the word released, or
	 * sleeps on it, and this release wakes a sleeper: the heir, or one
	 * that takes the lock and whose unlock grants it (heir_wait()).
	 */
	if (__libc_single_threaded && *word == 1)
		*word = 0;
	else if (__builtin_expect(__atomic_load_n(heir_word(m), __ATOMIC_RELAXED), 0))
		return adaptive_mutex_unlock_heir(m);
	else if (__builtin_expect(lock_word_release(m) > 1, 0))
		return adaptive_mutex_unlock_woke(m);
	return 0;
}

#endif /* ADAPTIVE_MUTEX_H */
