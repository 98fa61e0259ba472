// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The symbols libadaptive exports, at every version programs link
 * against (glibc 2.34 moved pthread into libc and gave trylock,
 * timedlock and clocklock new versions; binaries built earlier still
 * reference the old ones): see libadaptive.map. Each routes the simple
 * mutex kinds to mutex.h and leaves the others to glibc.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "glibc-mutex.h"
#include "mutex.h"
#include "real.h"
#include "stats.h"
#include "syscall.h"

#define EXPORT __attribute__((visibility("default")))

/* Export @impl as @name at a version that is not the default one. */
#define COMPAT_SYMBOL(impl, name, version)					\
	__typeof__(impl) impl##_compat __attribute__((alias(#impl))) EXPORT;	\
	__asm__(".symver " #impl "_compat, " #name "@" #version)

/* Versioned below; their prototypes are glibc's. */
__typeof__(pthread_mutex_trylock) adaptive_pthread_mutex_trylock;
__typeof__(pthread_mutex_timedlock) adaptive_pthread_mutex_timedlock;
__typeof__(pthread_mutex_clocklock) adaptive_pthread_mutex_clocklock;

/* Whether libadaptive handles @kind; counts what it leaves to glibc. */
static inline bool adaptive_handles(int kind)
{
	if (__builtin_expect(glibc_mutex_is_simple(kind), 1))
		return adaptive_enabled();
	if (adaptive_enabled())
		stat_inc(adaptive_thread_self(), STAT_PASSTHROUGH);
	return false;
}

/*
 * lock and unlock run inline, in about as many instructions as glibc's,
 * when the calling thread already used the library (so it is
 * initialized and enabled) and the mutex is of a simple kind. All else
 * goes through the *_any() functions.
 */
static __attribute__((noinline)) int lock_any(pthread_mutex_t *m)
{
	int kind = glibc_mutex_kind(m);

	if (adaptive_handles(kind))
		return adaptive_mutex_lock(m, glibc_mutex_type(kind), CLOCK_REALTIME, NULL);
	return real_mutex_lock(m);
}

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	int kind = glibc_mutex_kind(m);

	if (__builtin_expect(adaptive_self.tid && glibc_mutex_is_simple(kind), 1))
		return adaptive_mutex_lock(m, glibc_mutex_type(kind), CLOCK_REALTIME, NULL);
	return lock_any(m);
}

static __attribute__((noinline)) int unlock_any(pthread_mutex_t *m)
{
	int kind = glibc_mutex_kind(m);

	if (adaptive_handles(kind))
		return adaptive_mutex_unlock(m, glibc_mutex_type(kind));
	return real_mutex_unlock(m);
}

EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	int kind = glibc_mutex_kind(m);

	if (__builtin_expect(adaptive_self.tid && glibc_mutex_is_simple(kind), 1))
		return adaptive_mutex_unlock(m, glibc_mutex_type(kind));
	return unlock_any(m);
}

EXPORT int adaptive_pthread_mutex_trylock(pthread_mutex_t *m)
{
	int kind = glibc_mutex_kind(m);

	if (adaptive_handles(kind))
		return adaptive_mutex_trylock(m, glibc_mutex_type(kind));
	return real_mutex_trylock(m);
}
__asm__(".symver adaptive_pthread_mutex_trylock, pthread_mutex_trylock@@GLIBC_2.34");
COMPAT_SYMBOL(adaptive_pthread_mutex_trylock, pthread_mutex_trylock, GLIBC_2.2.5);

EXPORT int adaptive_pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	int kind = glibc_mutex_kind(m);

	if (adaptive_handles(kind))
		return adaptive_mutex_lock(m, glibc_mutex_type(kind), CLOCK_REALTIME, abstime);
	return real_mutex_timedlock(m, abstime);
}
__asm__(".symver adaptive_pthread_mutex_timedlock, pthread_mutex_timedlock@@GLIBC_2.34");
COMPAT_SYMBOL(adaptive_pthread_mutex_timedlock, pthread_mutex_timedlock, GLIBC_2.2.5);

EXPORT int adaptive_pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clockid,
					    const struct timespec *abstime)
{
	int kind = glibc_mutex_kind(m);

	if (!adaptive_handles(kind))
		return real_mutex_clocklock(m, clockid, abstime);
	/* glibc checks the clock before anything else. */
	if (clockid != CLOCK_REALTIME && clockid != CLOCK_MONOTONIC)
		return EINVAL;
	return adaptive_mutex_lock(m, glibc_mutex_type(kind), clockid, abstime);
}
__asm__(".symver adaptive_pthread_mutex_clocklock, pthread_mutex_clocklock@@GLIBC_2.34");
COMPAT_SYMBOL(adaptive_pthread_mutex_clocklock, pthread_mutex_clocklock, GLIBC_2.30);

/* _exit() skips atexit handlers and destructors: report the stats first. */
EXPORT void _exit(int status)
{
	stats_report();
	for (;;)
		raw_syscall6(SYS_exit_group, status, 0, 0, 0, 0, 0);
}
EXPORT void _Exit(int status) __attribute__((alias("_exit")));

static void __attribute__((constructor)) adaptive_constructor(void)
{
	adaptive_enabled();
}
