/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What libadaptive keeps in a mutex it handles besides glibc's fields
 * and the heir (handoff.h): whether one of its waiters spins (the
 * single spinner of the sched-state and spin-single policies), and how
 * the long spins on it fared (policy.h), which only the spinner writes.
 * One 64-bit word, so that every change is one atomic operation:
 *
 *   bits 63-32  the process epoch (thread.h) of the process whose
 *               waiters these are
 *   bit  31     a waiter spins
 *   bits 15-0   the lock's spin history
 *
 * 0 means no marks. The word is __data.__list.__prev, which glibc uses
 * only for robust mutexes (their owner list), which libadaptive leaves
 * to glibc, and which pthread_mutex_init() and PTHREAD_MUTEX_INITIALIZER
 * zero; glibc's __elision stays glibc's.
 *
 * A forked child inherits the word but none of the waiters behind it:
 * marks of another epoch count as none, and the child's first spinner
 * replaces them with its own (marks_replace()). An epoch is never an
 * ancestor's (thread.h).
 */
#ifndef ADAPTIVE_WAITER_MARKS_H
#define ADAPTIVE_WAITER_MARKS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "thread.h"

#define MARKS_SPINNER		(1U << 31)
#define MARKS_SPIN_HISTORY	0xffffU

typedef uint64_t __attribute__((may_alias)) marks_t;

static inline marks_t *marks_word(const pthread_mutex_t *m)
{
	return (marks_t *) &m->__data.__list.__prev;
}

/* The word as a mutex of epoch @epoch with marks @marks holds it. */
static inline uint64_t marks_pack(uint32_t epoch, uint32_t marks)
{
	return marks ? (uint64_t) epoch << 32 | marks : 0;
}

/* The marks of this process's waiters in @word. */
static inline uint32_t marks_of_this_process(uint64_t word)
{
	return word >> 32 == process_epoch ? (uint32_t) word : 0;
}

/* Replace @old, as last loaded, by @marks of this process. */
static inline bool marks_replace(pthread_mutex_t *m, uint64_t *old, uint32_t marks)
{
	return __atomic_compare_exchange_n(marks_word(m), old, marks_pack(process_epoch, marks),
					   true, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/*
 * Become the spinner of @m, unless another waiter is; with the lock's
 * spin history in @history.
 */
static inline bool mutex_claim_spinner(pthread_mutex_t *m, uint32_t *history)
{
	uint64_t old = __atomic_load_n(marks_word(m), __ATOMIC_RELAXED);
	uint32_t marks;

	do {
		marks = marks_of_this_process(old);
		if (marks & MARKS_SPINNER)
			return false;
	} while (!marks_replace(m, &old, marks | MARKS_SPINNER));
	*history = marks & MARKS_SPIN_HISTORY;
	return true;
}

/* Stop being the spinner of @m, and leave @history as the lock's. */
static inline void mutex_release_spinner(pthread_mutex_t *m, uint32_t history)
{
	uint64_t old = __atomic_load_n(marks_word(m), __ATOMIC_RELAXED);
	uint32_t others = ~(MARKS_SPINNER | MARKS_SPIN_HISTORY);

	while (!marks_replace(m, &old, (marks_of_this_process(old) & others) | history))
		;
}

#endif /* ADAPTIVE_WAITER_MARKS_H */
