/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who is calling: the thread's id as glibc knows it, the process it runs
 * in, and the per-thread state libadaptive sets up at a thread's first
 * use (its sched_state, its statistics).
 *
 * A mutex owner's id is glibc's, read from glibc's own thread
 * descriptor, never cached by libadaptive: glibc's condition variables
 * compare the owner field with that id, and it is what glibc believes
 * in every child (after fork() and _Fork() the child's id; in a vfork()
 * child, whose thread descriptor is its parent's, the parent's).
 *
 * The process epoch tags what libadaptive writes into mutexes
 * (waiter-marks.h) and into the sched_state table: it is the process's
 * pid, so that a child, which inherits its parent's memory but none of
 * its other threads, trusts none of those marks.
 */
#ifndef ADAPTIVE_THREAD_H
#define ADAPTIVE_THREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "rseq-abi.h"

enum rseq_mode {
	/* Not attached yet. */
	RSEQ_MODE_NONE,
	/* Attached to the registration the thread had (glibc's, as a rule). */
	RSEQ_MODE_ATTACHED,
	/* The thread had no registration: ours registered, then attached. */
	RSEQ_MODE_OWN,
	/* The kernel cannot attach a sched_state. */
	RSEQ_MODE_UNSUPPORTED,
	/* Another state is attached, or attaching failed: left alone. */
	RSEQ_MODE_FOREIGN,
	NR_RSEQ_MODES
};

struct adaptive_stats;

struct adaptive_thread {
	/* Registered only for a thread that had no registration. */
	struct rseq_abi rseq;
	/*
	 * The glibc id the thread was set up under, which names its
	 * sched_state slot; 0 until its first use. It differs from
	 * glibc_tid() in the child of a fork that ran no handler of ours.
	 */
	int tid;
	enum rseq_mode mode;
	struct adaptive_stats *stats;
};

extern __thread struct adaptive_thread adaptive_self __attribute__((tls_model("initial-exec")));

/* Where glibc keeps a thread's id in its thread descriptor, from %fs. */
extern unsigned long glibc_tid_offset;

/* The calling thread's id, as glibc's own mutex code reads it. */
static inline int glibc_tid(void)
{
	int tid;

	__asm__("movl %%fs:(%1), %0" : "=r"(tid) : "r"(glibc_tid_offset));
	return tid;
}

/* The pid of the process that owns the current marks; 0 before init. */
extern uint32_t process_epoch;

/*
 * Find glibc's thread id, create the thread-exit key, and start the
 * first epoch. False when glibc's thread descriptor cannot be read: the
 * library must then leave every mutex to glibc.
 */
bool thread_init(void);

struct adaptive_thread *adaptive_thread_first_use(struct adaptive_thread *self);

/*
 * The calling thread, set up on its first use. In a vfork() child,
 * whose thread-local storage is its parent thread's, a thread not set
 * up yet is not set up there: it gets a stand-in that counts nothing.
 */
static inline struct adaptive_thread *adaptive_thread_self(void)
{
	struct adaptive_thread *self = &adaptive_self;

	if (__builtin_expect(!self->tid, 0))
		return adaptive_thread_first_use(self);
	return self;
}

/*
 * Before a thread trusts the marks of a mutex: if it runs in the child
 * of a fork that ran no handler of ours (_Fork(), or handlers that ran
 * before ours and locked), start the child's epoch now.
 */
void thread_enter_process_slow(struct adaptive_thread *self);

static inline void thread_enter_process(struct adaptive_thread *self)
{
	if (__builtin_expect(self->tid != glibc_tid(), 0))
		thread_enter_process_slow(self);
}

extern const char *const rseq_mode_names[NR_RSEQ_MODES];

#endif /* ADAPTIVE_THREAD_H */
