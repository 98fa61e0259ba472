/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Raw system calls for the lock paths: they return -errno instead of
 * setting errno, because pthread_mutex_lock() and friends must not
 * change errno, as glibc's own (INTERNAL_SYSCALL) versions do not.
 */
#ifndef ADAPTIVE_SYSCALL_H
#define ADAPTIVE_SYSCALL_H

#include <errno.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#if !defined(__x86_64__)
#error "libadaptive supports x86_64 only"
#endif

static inline long raw_syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline int raw_gettid(void)
{
	return raw_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

static inline long raw_rseq(void *area, uint32_t len, int flags, uint32_t sig)
{
	return raw_syscall6(SYS_rseq, (long) area, len, flags, sig, 0, 0);
}

/*
 * The kernel refuses a deadline before 1970 (EINVAL); glibc's futex
 * waits (__futex_abstimed_wait64) time out on it, and so do these.
 */
static inline bool futex_deadline_before_epoch(const struct timespec *abstime)
{
	return abstime && abstime->tv_sec < 0;
}

/*
 * Sleep while *@word == @val, until woken, or until @abstime on @clockid
 * (CLOCK_REALTIME or CLOCK_MONOTONIC) when @abstime is not NULL. Returns
 * 0 or -EAGAIN, -EINTR, -ETIMEDOUT. Process-private futexes only: the
 * library leaves process-shared mutexes to glibc.
 */
static inline long futex_wait(int *word, int val, clockid_t clockid,
			      const struct timespec *abstime)
{
	int op = FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG;

	if (futex_deadline_before_epoch(abstime))
		return -ETIMEDOUT;
	if (abstime && clockid == CLOCK_REALTIME)
		op |= FUTEX_CLOCK_REALTIME;
	return raw_syscall6(SYS_futex, (long) word, op, val, (long) abstime, 0,
			    FUTEX_BITSET_MATCH_ANY);
}

/*
 * Sleep while *@a == @aval and *@b == @bval (futex_waitv, Linux 5.16),
 * until a wake-up on either, or @abstime on @clockid if not NULL.
 * Returns the index of the word woken, or -EAGAIN, -EINTR, -ETIMEDOUT,
 * or -ENOSYS on older kernels.
 */
static inline long futex_wait_either(int *a, int aval, int *b, int bval, clockid_t clockid,
				     const struct timespec *abstime)
{
	struct futex_waitv waiters[2] = {
		{ .val = (uint32_t) aval, .uaddr = (uintptr_t) a, .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG },
		{ .val = (uint32_t) bval, .uaddr = (uintptr_t) b, .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG },
	};

	if (futex_deadline_before_epoch(abstime))
		return -ETIMEDOUT;
	return raw_syscall6(SYS_futex_waitv, (long) waiters, 2, 0, (long) abstime, clockid, 0);
}

static inline void futex_wake_one(int *word)
{
	raw_syscall6(SYS_futex, (long) word, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

static inline void raw_sched_yield(void)
{
	raw_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

#endif /* ADAPTIVE_SYSCALL_H */
