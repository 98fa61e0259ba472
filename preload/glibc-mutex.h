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
 *              never 1, so that the other sleepers are not forgotten: the
 *              one fact of the protocol that the slow path (mutex.c) is
 *              shaped around.
 *   __owner    tid of the owner as glibc knows it (glibc_tid(), which
 *              glibc's condition variables compare it with), stored after
 *              the lock is taken and cleared before it is released; 0 in
 *              between.
 *   __count    recursion depth of a recursive mutex.
 *   __nusers   incremented by lock and decremented by unlock, but not by
 *              the condition variables' internal relock and unlock.
 *   __kind     type and flags, below.
 *   __elision  glibc's, for lock elision, which libadaptive leaves to
 *              glibc (the elision flag below, and config.c).
 *   __list     the list of a robust mutex's owner; libadaptive keeps its
 *              waiter marks in the others' (waiter-marks.h).
 */
#ifndef ADAPTIVE_GLIBC_MUTEX_H
#define ADAPTIVE_GLIBC_MUTEX_H

#include <pthread.h>
#include <stdbool.h>

/* nptl/pthreadP.h: the type is __kind & PTHREAD_MUTEX_KIND_MASK_NP ... */
#define GLIBC_MUTEX_TYPE_MASK		0x3
/*
 * ... and flags above it: robust 16, priority inheritance 32, priority
 * protection 64, process-shared 128, elision 256, which glibc's lock sets
 * on a mutex of type 0 when it elides locks, and no-elision 512, which
 * pthread_mutexattr_settype(PTHREAD_MUTEX_NORMAL) sets and which changes
 * nothing without elision.
 */
#define GLIBC_MUTEX_ELISION		256
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

#endif /* ADAPTIVE_GLIBC_MUTEX_H */
