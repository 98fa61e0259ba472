/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What libadaptive relies on of glibc's mutexes (2.34 and later; read
 * against 2.36). Its own lock paths keep glibc's protocol exactly, so
 * that glibc's condition variables, which release and retake the mutex
 * through internal functions that no preload can intercept
 * (__pthread_mutex_unlock_usercnt, __pthread_mutex_cond_lock), and any
 * caller that reaches glibc directly, interoperate with it.
 *
 * The fields of pthread_mutex_t::__data (sysdeps/x86/nptl/bits/struct_mutex.h):
 *
 *   __lock     0: unlocked; 1: locked, no waiter sleeps; 2: locked, a waiter
 *              may sleep in futex on this word, so unlock must wake one
 *              (sysdeps/nptl/lowlevellock.h). A thread that slept, or that
 *              takes the lock for a condition variable, takes it with 2,
 *              never 1, so that the other sleepers are not forgotten.
 *   __owner    tid of the owner, stored after the lock is taken and
 *              cleared before it is released; 0 in between.
 *   __count    recursion depth of a recursive mutex.
 *   __nusers   incremented by lock and decremented by unlock, but not by
 *              the condition variables' internal relock and unlock.
 *   __kind     type and flags, below.
 *   __elision  used by glibc only for lock elision, which x86 disables by
 *              default and libadaptive leaves to glibc (the elision flag
 *              below, and config.c): libadaptive keeps its own waiter
 *              state here, see mutex_starving_waiters().
 */
#ifndef ADAPTIVE_GLIBC_MUTEX_H
#define ADAPTIVE_GLIBC_MUTEX_H

#include <pthread.h>
#include <stdbool.h>

/* nptl/pthreadP.h: the type is __kind & PTHREAD_MUTEX_KIND_MASK_NP ... */
#define GLIBC_MUTEX_TYPE_MASK		0x3
/*
 * ... and flags above it: robust 16, priority inheritance 32, priority
 * protection 64, process-shared 128, elision 256, and no-elision 512,
 * which pthread_mutexattr_settype(PTHREAD_MUTEX_NORMAL) sets and which
 * changes nothing without elision.
 */
#define GLIBC_MUTEX_NO_ELISION		512

static inline int glibc_mutex_kind(const pthread_mutex_t *m)
{
	return __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
}

static inline int glibc_mutex_type(int kind)
{
	return kind & GLIBC_MUTEX_TYPE_MASK;
}

/*
 * Normal, default, adaptive, recursive and error-checking mutexes that
 * are process-private: libadaptive decides how their waiters wait. All
 * others keep glibc's implementation.
 */
static inline int glibc_mutex_is_simple(int kind)
{
	return !(kind & ~(GLIBC_MUTEX_TYPE_MASK | GLIBC_MUTEX_NO_ELISION));
}

/*
 * libadaptive's waiter state in __elision: bits 0-14 count the waiters
 * that are starving, bit 15 marks the one waiter allowed to spin.
 */
#define WAITERS_STARVING_MASK		0x7fff
#define WAITERS_SPINNER			0x8000

static inline unsigned int mutex_starving_waiters(const pthread_mutex_t *m)
{
	return (unsigned short) __atomic_load_n(&m->__data.__elision, __ATOMIC_RELAXED) &
	       WAITERS_STARVING_MASK;
}

static inline void mutex_add_starving(pthread_mutex_t *m, int n)
{
	__atomic_fetch_add(&m->__data.__elision, n, __ATOMIC_RELAXED);
}

/* Become the spinner of @m, unless another waiter is. */
static inline bool mutex_claim_spinner(pthread_mutex_t *m)
{
	return !((unsigned short) __atomic_fetch_or(&m->__data.__elision, (short) WAITERS_SPINNER,
						    __ATOMIC_RELAXED) & WAITERS_SPINNER);
}

static inline void mutex_release_spinner(pthread_mutex_t *m)
{
	__atomic_fetch_and(&m->__data.__elision, (short) WAITERS_STARVING_MASK, __ATOMIC_RELAXED);
}

#endif /* ADAPTIVE_GLIBC_MUTEX_H */
