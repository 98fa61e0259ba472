// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "sched_state.h"
#include "stats.h"
#include "syscall.h"
#include "thread.h"

__thread struct adaptive_thread adaptive_self __attribute__((tls_model("initial-exec")));

unsigned long glibc_tid_offset;

uint32_t process_epoch;

uint32_t *fork_witness;

/* Its destructor runs when a thread that used the library exits. */
static pthread_key_t thread_exit_key;
static bool thread_exit_key_created;

/*
 * What a thread uses where it cannot be set up: in a vfork() child, or
 * in a signal handler that interrupted its set-up. No slot, no counters.
 */
static struct adaptive_thread stand_in;

const char *const rseq_mode_names[NR_RSEQ_MODES] = {
	[RSEQ_MODE_NONE] = "none",
	[RSEQ_MODE_ATTACHED] = "attached",
	[RSEQ_MODE_OWN] = "own",
	[RSEQ_MODE_UNSUPPORTED] = "unsupported",
	[RSEQ_MODE_FOREIGN] = "foreign",
};

/*
 * glibc publishes where struct pthread keeps the tid for libthread_db
 * (nptl_db/db_info.c): a db_desc_t of the field's size in bits, its
 * number of elements and its offset, and the structure's size. glibc's
 * own mutex code reads the same field (%fs:0x2d0 in 2.36). Trusted only
 * if it names a 32-bit field inside the structure that holds the
 * caller's tid now.
 */
static bool find_glibc_tid(void)
{
	const uint32_t *desc = dlvsym(RTLD_DEFAULT, "_thread_db_pthread_tid", "GLIBC_PRIVATE");
	const uint32_t *size = dlvsym(RTLD_DEFAULT, "_thread_db_sizeof_pthread", "GLIBC_PRIVATE");

	if (!desc || !size || desc[0] != 32 || desc[1] != 1 || desc[2] % 4 ||
	    desc[2] + 4 > *size)
		return false;
	glibc_tid_offset = desc[2];
	return glibc_tid() == raw_gettid();
}

/*
 * A thread that exits stops publishing a state (sched_state.h) and
 * gives back its counters.
 */
static void thread_exit(void *arg)
{
	struct adaptive_thread *self = arg;

	self->exited = true;
	sched_state_thread_exit(self);
	stats_thread_exit(self);
}

/* The fork witness: a page of its own, wiped in every child. */
static bool map_fork_witness(void)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return false;
	if (madvise(p, page, MADV_WIPEONFORK)) {
		munmap(p, page);
		return false;
	}
	fork_witness = p;
	return true;
}

bool thread_init(void)
{
	int ret;

	if (!find_glibc_tid()) {
		adaptive_warn("cannot read glibc's thread id (_thread_db_pthread_tid); "
			      "leaving all mutexes to glibc");
		return false;
	}
	if (!map_fork_witness()) {
		adaptive_warn("no MADV_WIPEONFORK page (%s): forked children could not tell "
			      "their parent's waiters; leaving all mutexes to glibc", strerror(errno));
		return false;
	}
	ret = pthread_key_create(&thread_exit_key, thread_exit);
	if (ret)
		adaptive_warn("pthread_key_create: %s: exiting threads leave stale states",
			      strerror(ret));
	thread_exit_key_created = !ret;
	process_epoch = 1;
	*fork_witness = process_epoch;
	return true;
}

/*
 * The first thread to run libadaptive code in a new process starts its
 * epoch, one more than the parent's: every ancestor's is smaller, so
 * that none of their marks, slots or counters counts here. Another
 * thread that races here waits for the winner to publish it.
 */
static void process_start_epoch(void)
{
	uint32_t witnessed = __atomic_load_n(fork_witness, __ATOMIC_ACQUIRE);
	uint32_t next;

	if (!witnessed) {
		next = __atomic_load_n(&process_epoch, __ATOMIC_RELAXED) + 1;
		if (__atomic_compare_exchange_n(fork_witness, &witnessed, next, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&process_epoch, next, __ATOMIC_RELEASE);
			stats_new_process();
			return;
		}
	}
	while (__atomic_load_n(&process_epoch, __ATOMIC_ACQUIRE) != witnessed)
		raw_sched_yield();
}

/*
 * In a vfork() child, glibc's descriptor is the parent thread's, whose
 * tid glibc reports; the kernel reports the child's. Everything the
 * child writes is its parent's memory.
 */
static bool in_vfork_child(void)
{
	return glibc_tid() != raw_gettid();
}

/*
 * Set up @self for the process it runs in now, unless it is. A signal
 * handler that interrupts this and locks a mutex (asynchronously, or
 * synchronously: a seccomp SIGSYS trap on one of its system calls) gets
 * the stand-in instead of setting the same thread up again in the
 * middle: registration, attachment and counters are not
 * async-signal-safe. The guard is the thread's own, so no lock.
 */
struct adaptive_thread *adaptive_thread_setup(struct adaptive_thread *self)
{
	int tid = glibc_tid();

	if (self->in_setup)
		return &stand_in;
	__atomic_store_n(&self->in_setup, true, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (in_vfork_child()) {
		__atomic_store_n(&self->in_setup, false, __ATOMIC_RELAXED);
		return &stand_in;
	}
	process_start_epoch();
	if (self->epoch != process_epoch) {
		self->stats = NULL;
		/* A child forked from a destructor: its key is armed again below. */
		self->exited = false;
		/* The child's waits start a history of their own. */
		self->off_cpu_waits = 0;
		self->skip_turn = 0;
		/*
		 * Attached later, if ever (sched_state.h), and only under the
		 * sched-state policies: under the others the kernel would update
		 * the state at every switch for nothing. The requested policy,
		 * not the fallback, counts a thread on a kernel without the
		 * feature (threads_unsupported).
		 */
		self->mode = policy_reads_sched_state(adaptive_config.requested) &&
			     !sched_state_supported() ? RSEQ_MODE_UNSUPPORTED : RSEQ_MODE_NONE;
		self->retired_reviews = 0;
		self->unreviewed_unlocks = 0;
		sched_state_thread_start(tid);
		stats_thread_start(self);
		if (thread_exit_key_created)
			pthread_setspecific(thread_exit_key, self);
		self->epoch = process_epoch;
		__atomic_store_n(&self->tid, tid, __ATOMIC_RELAXED);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&self->in_setup, false, __ATOMIC_RELAXED);
	return self;
}

/*
 * The same guard as adaptive_thread_setup()'s against a signal handler
 * that locks a mutex meanwhile, for work on the state of @self, which
 * is not async-signal-safe either (attaching, detaching). Not for the
 * stand-in, nor once the thread's exit destructor ran, nor in a vfork()
 * child, whose task is not the thread that @self describes (a system
 * call: callers come here rarely). False if the work must not run.
 */
static bool state_work_begin(struct adaptive_thread *self)
{
	if (self == &stand_in || self->in_setup || self->exited)
		return false;
	__atomic_store_n(&self->in_setup, true, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!in_vfork_child())
		return true;
	__atomic_store_n(&self->in_setup, false, __ATOMIC_RELAXED);
	return false;
}

static void state_work_end(struct adaptive_thread *self)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&self->in_setup, false, __ATOMIC_RELAXED);
}

/*
 * The mode is checked again inside the guard, for a handler that
 * attached between the caller's check and the guard.
 */
void thread_attach_state(struct adaptive_thread *self)
{
	if (!state_work_begin(self))
		return;
	if (self->mode == RSEQ_MODE_NONE) {
		self->mode = sched_state_attach(self, self->tid);
		stats_thread_mode(self);
	} else if (self->retired_reviews) {
		sched_state_resume(self);
	}
	state_work_end(self);
}

/*
 * Counted at every contended unlock; the guard's vfork() check waits for
 * the end of the period. A vfork() child counts in its parent's thread,
 * suspended meanwhile: at most an early review, or one skipped when the
 * period ends in the child.
 */
void thread_review_state(struct adaptive_thread *self)
{
	if (++self->unreviewed_unlocks < STATE_REVIEW_UNLOCKS)
		return;
	self->unreviewed_unlocks = 0;
	if (!state_work_begin(self))
		return;
	sched_state_review(self);
	state_work_end(self);
}

/*
 * The thread forked: it is the only thread of a new process, under a
 * new tid (or the same one, in a new pid namespace), with no state
 * attached (the kernel attaches none to a child). In a vfork() child
 * nothing changed: the memory is the parent's, and glibc's id too.
 */
void thread_enter_process_slow(struct adaptive_thread *self)
{
	if (self != &stand_in)
		adaptive_thread_setup(self);
}
