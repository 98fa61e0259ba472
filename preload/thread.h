/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who is calling: the thread's id as glibc knows it, the process it runs
 * in, and the per-thread state libadaptive sets up at a thread's first
 * use (its statistics; its sched_state, attached later if a waiter may
 * read it: sched_state.h).
 *
 * A mutex owner's id is glibc's, read from glibc's own thread
 * descriptor, never cached by libadaptive: glibc's condition variables
 * compare the owner field with that id, and it is what glibc believes
 * in every child (after fork() and _Fork() the child's id; in a vfork()
 * child, whose thread descriptor is its parent's, the parent's).
 *
 * The process epoch tags what libadaptive writes into mutexes
 * (waiter-marks.h) and into the sched_state table, so that a child,
 * which inherits its parent's memory but none of its other threads,
 * trusts none of those marks. A child knows it is one by the fork
 * witness, a copy of the epoch in a page that the kernel zeroes in
 * every child that does not share the parent's memory
 * (MADV_WIPEONFORK: fork(), _Fork(), clone() without CLONE_VM, in any
 * pid namespace), and that a vfork() child, which shares the parent's
 * memory and waiters, sees unchanged. Its epoch is one more than its
 * parent's, so it differs from every ancestor's.
 */
#ifndef ADAPTIVE_THREAD_H
#define ADAPTIVE_THREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "rseq-abi.h"

enum rseq_mode {
	/*
	 * Not attached: not yet (sched_state.h says when it will be), or
	 * the policy reads no states.
	 */
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
	 * sched_state slot; 0 until its first use.
	 */
	int tid;
	/* The process epoch it was set up in; 0 until its first use. */
	uint32_t epoch;
	/* It is being set up (thread.c): a signal handler must not nest. */
	bool in_setup;
	/*
	 * Its exit destructor ran: it attaches no state from then on, which
	 * nothing would detach from its slot (another key's destructor may
	 * still lock a mutex).
	 */
	bool exited;
	enum rseq_mode mode;
	/*
	 * Its waits that found the owner off CPU since its last spin, up to
	 * mutex.c's SKIP_AFTER_OFF_CPU (waits that did neither do not
	 * count), and a counter of the waits that found it there, which
	 * picks the one in RECHECK_PERIOD that decides again.
	 */
	unsigned int off_cpu_waits;
	unsigned int skip_turn;
	/* Its spin phases on locks whose long spins lose (mutex.c's probe). */
	unsigned int long_spin_probes;
	/*
	 * Reviews left until its state, attached as mode says and now
	 * detached for disuse (sched_state.h), is attached again; 0 while
	 * the state is in use.
	 */
	unsigned int retired_reviews;
	/* Contended unlocks since the last review of its state. */
	unsigned int unreviewed_unlocks;
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

/* The epoch of this process; 0 before init. */
extern uint32_t process_epoch;

/* This process's epoch in a MADV_WIPEONFORK page: 0 in a new child. */
extern uint32_t *fork_witness;

/*
 * Find glibc's thread id, create the thread-exit key, and start the
 * first epoch. False when glibc's thread descriptor cannot be read: the
 * library must then leave every mutex to glibc.
 */
bool thread_init(void);

/*
 * Set @self up for the process it runs in, unless it is; returns it, or
 * a stand-in where it cannot be set up (below).
 */
struct adaptive_thread *adaptive_thread_setup(struct adaptive_thread *self);

/*
 * The calling thread, set up on its first use. In a vfork() child,
 * whose thread-local storage is its parent thread's, a thread not set
 * up yet is not set up there, nor in a signal handler that interrupted
 * its set-up: it gets a stand-in that counts nothing.
 */
static inline struct adaptive_thread *adaptive_thread_self(void)
{
	struct adaptive_thread *self = &adaptive_self;

	if (__builtin_expect(!self->tid, 0))
		return adaptive_thread_setup(self);
	return self;
}

/*
 * Attach the sched_state of @self, the calling thread, which has none or
 * retired its own: sched_state.h says when. Not in a vfork() child, whose
 * task is not the thread that @self describes.
 */
void thread_attach_state(struct adaptive_thread *self);

/*
 * At a contended unlock of @self, the calling thread, which attached its
 * state: review the state once a period (sched_state.h).
 */
void thread_review_state(struct adaptive_thread *self);

/*
 * Before a thread trusts the marks of a mutex: if it runs in a child
 * that no thread set up yet, start the child's epoch now, and set the
 * thread up again (there is no atfork handler: _Fork() would run none).
 */
void thread_enter_process_slow(struct adaptive_thread *self);

static inline void thread_enter_process(struct adaptive_thread *self)
{
	if (__builtin_expect(self->epoch != __atomic_load_n(fork_witness, __ATOMIC_RELAXED), 0))
		thread_enter_process_slow(self);
}

extern const char *const rseq_mode_names[NR_RSEQ_MODES];

#endif /* ADAPTIVE_THREAD_H */
