// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "sched_state.h"
#include "stats.h"
#include "syscall.h"

/* The kernel's PID_MAX_LIMIT on 64-bit, if /proc cannot tell pid_max. */
#define PID_MAX_LIMIT		(4 * 1024 * 1024)

struct sched_state_table sched_state_table;

bool sched_state_supported(void)
{
	return sched_state_table.nr_slots != 0;
}

static unsigned int read_pid_max(void)
{
	char buf[32];
	unsigned long n;
	ssize_t len;
	int fd;

	fd = open("/proc/sys/kernel/pid_max", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return PID_MAX_LIMIT;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return PID_MAX_LIMIT;
	buf[len] = '\0';
	n = strtoul(buf, NULL, 10);
	return n > 0 && n <= PID_MAX_LIMIT ? n : PID_MAX_LIMIT;
}

/* The slot forgets a retirement and a spin win of its tid's thread. */
static void slot_forget_retirement(struct sched_state_slot *slot)
{
	__atomic_store_n(&slot->spin_won, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->retired, 0, __ATOMIC_RELAXED);
}

void sched_state_thread_start(int tid)
{
	struct sched_state_slot *slot = sched_state_slot_mapped(tid);

	if (slot)
		slot_forget_retirement(slot);
}

/*
 * The slot stops claiming the tid, and forgets requests made so far: a
 * later thread with the same tid has no state, and is asked anew (a
 * waiter may still ask this thread until it is gone, which costs the
 * later one an attachment at most).
 */
void sched_state_thread_exit(struct adaptive_thread *self)
{
	struct sched_state_slot *slot = sched_state_slot_mapped(self->tid);

	if (!slot)
		return;
	__atomic_store_n(&slot->wanted, 0, __ATOMIC_RELAXED);
	slot_forget_retirement(slot);
	if (self->mode == RSEQ_MODE_ATTACHED || self->mode == RSEQ_MODE_OWN)
		__atomic_store_n(&slot->state.tid, 0, __ATOMIC_RELAXED);
}

/*
 * The slot of @tid, its chunk mapped first unless it is; NULL if @tid
 * has no slot or its chunk cannot be mapped. Chunks are never unmapped, as the whole table
 * was not: a waiter may read a slot at any time. So a process keeps a
 * chunk, 16 KiB, for every range of 256 tids that its threads ever had,
 * and the kernel hands tids out from one counter for the whole system:
 * a long-lived process that keeps making threads maps more over time.
 * Two threads may map the same chunk at once: the loser unmaps its own,
 * which nobody has seen.
 */
static struct sched_state_slot *slot_map(int tid)
{
	size_t len = SLOTS_PER_CHUNK * sizeof(struct sched_state_slot);
	struct sched_state_slot **entry, *chunk, *fresh;
	static bool warned;

	if ((unsigned int) tid >= sched_state_table.nr_slots)
		return NULL;
	entry = sched_state_chunk_entry(tid);
	chunk = __atomic_load_n(entry, __ATOMIC_ACQUIRE);
	if (!chunk) {
		fresh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (fresh == MAP_FAILED) {
			if (!__atomic_exchange_n(&warned, true, __ATOMIC_RELAXED))
				adaptive_warn("cannot map sched_state slots for tid %d: %s; "
					      "its waiters spin by count", tid, strerror(errno));
			return NULL;
		}
		if (__atomic_compare_exchange_n(entry, &chunk, fresh, false, __ATOMIC_RELEASE,
						__ATOMIC_ACQUIRE))
			chunk = fresh;
		else
			munmap(fresh, len);
	}
	return sched_state_slot_in(chunk, tid);
}

void sched_state_want(int tid)
{
	struct sched_state_slot *slot = slot_map(tid);

	/* Read first: the owner's line is written once, not at every wait. */
	if (slot && __atomic_load_n(&slot->wanted, __ATOMIC_RELAXED) != process_epoch)
		__atomic_store_n(&slot->wanted, process_epoch, __ATOMIC_RELAXED);
}

static long sched_state_prctl(unsigned long cmd, void *state)
{
	return raw_syscall6(SYS_prctl, PR_RSEQ_SCHED_STATE, cmd, (long) state, 0, 0, 0);
}

/*
 * The kernel has the feature if it answers PR_RSEQ_SCHED_STATE_GET with
 * one of the two answers it defines; the thread initializing the
 * library has attached nothing yet, but a state attached by someone else
 * does not make the answer less valid.
 */
static bool kernel_has_sched_state(void)
{
	long ret = sched_state_prctl(PR_RSEQ_SCHED_STATE_GET, NULL);

	return ret == 0 || ret == PR_RSEQ_SCHED_STATE_ATTACHED;
}

void sched_state_init(void)
{
	unsigned int nr_slots;
	size_t len;
	void *chunks;

	if (!kernel_has_sched_state())
		return;
	nr_slots = read_pid_max();
	len = (size_t) (nr_slots + SLOTS_PER_CHUNK - 1) / SLOTS_PER_CHUNK *
	      sizeof(*sched_state_table.chunks);
	chunks = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (chunks == MAP_FAILED) {
		adaptive_warn("cannot map the %zu-byte sched_state directory: %s; spinning without it",
			      len, strerror(errno));
		return;
	}
	sched_state_table.chunks = chunks;
	sched_state_table.nr_slots = nr_slots;
}

/*
 * glibc 2.35+ registers every thread, unless GLIBC_TUNABLES has
 * glibc.pthread.rseq=0: its registration stays as it is, and ours is
 * made only for a thread that has none (ENXIO), if @may_register.
 */
static enum rseq_mode attach_slot(struct adaptive_thread *self, int tid, bool may_register)
{
	struct sched_state_slot *slot;
	enum rseq_mode mode = RSEQ_MODE_ATTACHED;
	long ret;

	slot = slot_map(tid);
	if (!slot)
		return RSEQ_MODE_FOREIGN;
	slot->epoch = process_epoch;
	/* The kernel writes 0 here when it accepts the state. */
	__atomic_store_n(&slot->state.version, UINT32_MAX, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->state.tid, tid, __ATOMIC_RELEASE);

	ret = sched_state_prctl(PR_RSEQ_SCHED_STATE_SET, &slot->state);
	if (ret == -ENXIO && may_register) {
		memset(&self->rseq, 0, sizeof(self->rseq));
		self->rseq.cpu_id = RSEQ_ABI_CPU_ID_UNINITIALIZED;
		if (!raw_rseq(&self->rseq, sizeof(self->rseq), 0, RSEQ_ABI_SIG)) {
			mode = RSEQ_MODE_OWN;
			ret = sched_state_prctl(PR_RSEQ_SCHED_STATE_SET, &slot->state);
		}
	}
	if (!ret && __atomic_load_n(&slot->state.version, __ATOMIC_RELAXED) == 0)
		return mode;

	/* Another state is attached (EBUSY), or the kernel did not acknowledge ours. */
	__atomic_store_n(&slot->state.tid, 0, __ATOMIC_RELAXED);
	return RSEQ_MODE_FOREIGN;
}

enum rseq_mode sched_state_attach(struct adaptive_thread *self, int tid)
{
	return sched_state_supported() ? attach_slot(self, tid, true) : RSEQ_MODE_UNSUPPORTED;
}

/*
 * The slot says retired before waiters stop trusting its state, so that
 * a waiter that finds no state to trust sleeps rather than spins by
 * count and asks for one; the order is a hint, as the flag is, and a
 * waiter that misses it only spins by count once. The kernel clears the
 * state when it detaches it.
 *
 * The state of a running thread reads ON_CPU while it is attached: the
 * kernel clears it only at a switch out (prepare_task_switch()), which
 * also makes the thread's return to user space run rseq's work, which
 * sets it again. One that does not was detached by the program, whose
 * own state may be attached now: that is not the library's to detach,
 * and the thread's slot stops claiming its tid. A detach that the
 * kernel refuses (a seccomp filter) leaves the state attached, and in
 * use.
 */
static void retire(struct adaptive_thread *self, struct sched_state_slot *slot)
{
	if (!sched_state_on_cpu(&slot->state)) {
		__atomic_store_n(&slot->state.tid, 0, __ATOMIC_RELAXED);
		self->mode = RSEQ_MODE_FOREIGN;
		stats_thread_mode(self);
		return;
	}
	__atomic_store_n(&slot->retired, process_epoch, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->state.version, UINT32_MAX, __ATOMIC_RELEASE);
	if (sched_state_prctl(PR_RSEQ_SCHED_STATE_SET, NULL)) {
		__atomic_store_n(&slot->state.version, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&slot->retired, 0, __ATOMIC_RELAXED);
		return;
	}
	self->retired_reviews = STATE_RETIRED_REVIEWS;
	stat_inc(self, STAT_STATE_RETIRED);
}

/*
 * The mode stays the one of the first attachment, the slot being the
 * same, unless this attachment fails: another state is attached, or the
 * thread has no rseq registration any more, which can only be the
 * program's doing (it unregistered glibc's, perhaps to register its
 * own, which one of ours would then block). A win noted on the state
 * before it retired does not count for the new period.
 */
void sched_state_resume(struct adaptive_thread *self)
{
	struct sched_state_slot *slot = sched_state_slot_mapped(self->tid);

	self->retired_reviews = 0;
	self->unreviewed_unlocks = 0;
	if (slot)
		__atomic_store_n(&slot->spin_won, 0, __ATOMIC_RELAXED);
	if (attach_slot(self, self->tid, false) == RSEQ_MODE_FOREIGN) {
		self->mode = RSEQ_MODE_FOREIGN;
		stats_thread_mode(self);
	}
	if (slot)
		__atomic_store_n(&slot->retired, 0, __ATOMIC_RELAXED);
	stat_inc(self, STAT_STATE_RESUMED);
}

void sched_state_review(struct adaptive_thread *self)
{
	struct sched_state_slot *slot = sched_state_slot_mapped(self->tid);

	if (!slot)
		return;
	if (self->retired_reviews) {
		if (!--self->retired_reviews)
			sched_state_resume(self);
		return;
	}
	/* An exchange: a win noted meanwhile counts for the next period. */
	if (__atomic_exchange_n(&slot->spin_won, 0, __ATOMIC_RELAXED) != process_epoch)
		retire(self, slot);
}
