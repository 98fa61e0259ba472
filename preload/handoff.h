/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Eventual fairness by direct handoff. A waiter that has waited past the
 * starvation bound becomes the mutex's heir, one at a time and at least
 * a grant interval after the mutex's last grant; the next unlock through
 * libadaptive does not release the lock word but grants the lock to the
 * heir, which wakes up owning it. No newcomer can slip in and the lock
 * never waits free for a sleeper, so a grant costs the heir's wake-up
 * latency; grants are spaced so that this stays a small share of the
 * lock's time (handoff.c). The design is WebKit's WTF::Lock's ("eventual
 * fairness": a fair handoff about once per millisecond) with the kernel
 * mutex's handoff, on glibc's lock word protocol (glibc-mutex.h), which
 * it leaves unchanged: while the lock is granted its word stays taken,
 * and whoever reaches glibc directly just sees a taken lock.
 *
 * The heir sleeps on the lock word and on a word of its own, so that a
 * grant wakes it and no other waiter: the low half of
 * __data.__list.__next. That field is 64 bits, which glibc uses only for
 * robust mutexes (left to glibc) and which pthread_mutex_init() and
 * PTHREAD_MUTEX_INITIALIZER zero:
 *
 *   bits 63-32  time of the mutex's last grant, in microseconds of the
 *               monotonic clock, modulo 2^32; written only by a lock
 *               holder, so that the lock orders its writers
 *   bits 31-2   the process epoch (thread.h), modulo 2^30: a forked
 *               child ignores, and clears, its parent's heir
 *   bits 1-0    0 no heir, or HEIR_WAITING, HEIR_GRANTED
 *
 * An heir that leaves pthread_mutex_lock() other than by returning (a
 * signal handler that longjmps out of it, which POSIX leaves undefined)
 * is granted the lock it no longer waits for, which no one then owns.
 */
#ifndef ADAPTIVE_HANDOFF_H
#define ADAPTIVE_HANDOFF_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "thread.h"

enum heir_state {
	HEIR_WAITING = 1,
	HEIR_GRANTED = 2,
};

#define HEIR_STATE_MASK	3U

/* The field is a pointer: read and written as two 32-bit words. */
typedef uint32_t __attribute__((may_alias)) heir_word_t;

static inline heir_word_t *heir_word(pthread_mutex_t *m)
{
	return (heir_word_t *) &m->__data.__list.__next;
}

static inline heir_word_t *grant_time_word(pthread_mutex_t *m)
{
	return heir_word(m) + 1;
}

/* The heir word of this process's heir in state @state. */
static inline uint32_t heir_pack(enum heir_state state)
{
	return process_epoch << 2 | state;
}

/* The state of this process's heir in @word, or 0 for none. */
static inline uint32_t heir_state_of(uint32_t word)
{
	return (word & ~HEIR_STATE_MASK) == process_epoch << 2 ? word & HEIR_STATE_MASK : 0;
}

/* Find out whether the kernel lets an heir sleep on two words. */
void handoff_init(void);

/* Become @m's heir, unless it has one or had a grant too recently; true if so. */
bool heir_claim(pthread_mutex_t *m);

/* heir_wait() gave the heir word up: the caller waits as others do. */
#define HEIR_GAVE_UP	(-1)

/*
 * As @m's heir, wait for the lock: returns 0 owning it (the word taken
 * with 2), or ETIMEDOUT at @abstime on @clockid, or HEIR_GAVE_UP; not
 * the heir any more.
 */
int heir_wait(pthread_mutex_t *m, struct adaptive_thread *self, clockid_t clockid,
	      const struct timespec *abstime);

#endif /* ADAPTIVE_HANDOFF_H */
