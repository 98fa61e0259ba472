/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-thread sched_state, attached to the thread's rseq registration
 * (glibc's, left as it is), and the table in which waiters find the
 * state of a mutex owner from its tid.
 *
 * The states live in a table indexed by tid, one cache line each, never
 * unmapped: a waiter may read the state of an owner that has exited,
 * whose tid may even be reused, and must never touch freed memory (the
 * lifetime point raised in the RFC's review). A slot is trusted only if
 * its tid is the owner's, its epoch the process's (thread.h: a forked
 * child trusts none of its parent's threads) and the kernel acknowledged
 * it (version 0).
 *
 * A thread attaches its state only once some waiter may read it: when a
 * waiter found it owning a mutex without a state and asked for one in
 * its slot (wanted), at its next contended unlock, which is the release
 * to that waiter if it went to sleep; or when it first spins on a
 * running owner, since a spinner reads its own CPU_CONTENDED. Every
 * attached thread makes the kernel store its state at each of its
 * context switches, two user accesses each; a program whose threads
 * never spin on each other, as rt-tests' ptsematest, which hands
 * mutexes to sleepers, pays none of them. Until an owner attaches,
 * its waiters spin by count, as for an owner whose state cannot be read.
 *
 * A state pays for itself only when a spin that relied on it wins: the
 * kernel's stores cost about 1% of a context switch in instructions
 * (QEMU's icount), about 8% of the switch rate of two threads yielding
 * to each other in TCG's wall time, and about 4% of stress-ng's mutex
 * stressor there, whose threads share a CPU and yield inside the
 * section (docs/bench/attach-tcg-1207). So an attached thread reviews
 * its state every STATE_REVIEW_UNLOCKS contended unlocks, the slow path
 * where an owner wakes a sleeper: unless a spin on it won since the last
 * review (a waiter that took the lock while its state read ON_CPU, or
 * the thread itself guarded by its own CPU_CONTENDED), it detaches the
 * state and marks its slot retired. A waiter that finds its owner
 * retired sleeps at once, as glibc's waiters do, instead of spinning by
 * count. The thread attaches the state again after
 * STATE_RETIRED_REVIEWS reviews, to look again, or at once when it is
 * about to spin on a running owner itself. Two threads that retired
 * each other's states come back only by that timer, counted in their
 * contended unlocks.
 *
 * The table has two levels: a directory with a pointer for every
 * SLOTS_PER_CHUNK tids up to pid_max, and chunks of slots mapped as
 * threads with a tid in their range attach or are asked for a state. A
 * flat table of pid_max slots costs only the pages that threads touch, until a program calls
 * mlockall(), as real-time programs do: that populates and locks all of
 * it, 256 MiB at the pid_max of 4194304 that systemd sets. The
 * directory is 128 KiB there, and each chunk 16 KiB.
 */
#ifndef ADAPTIVE_SCHED_STATE_H
#define ADAPTIVE_SCHED_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "rseq-abi.h"
#include "thread.h"

struct sched_state_slot {
	struct rseq_abi_sched_state state;
	uint32_t epoch;
	/* The process epoch in which a waiter asked this tid for a state. */
	uint32_t wanted;
	/* The process epoch in which a spin on this state won, since its last review. */
	uint32_t spin_won;
	/* The process epoch in which the thread detached its state for disuse. */
	uint32_t retired;
} __attribute__((aligned(64)));

/*
 * A review every 1024 contended unlocks, and a retired state attached
 * again after 15 reviews: where no spin wins, a thread that does not
 * spin itself keeps its state attached for 1 period in 16, and reviews
 * cost a few loads per 1024 futex wake-ups.
 */
#define STATE_REVIEW_UNLOCKS	1024
#define STATE_RETIRED_REVIEWS	15

#define SLOTS_PER_CHUNK_SHIFT	8
#define SLOTS_PER_CHUNK		(1U << SLOTS_PER_CHUNK_SHIFT)

struct sched_state_table {
	/* The chunk of tid t is chunks[t / SLOTS_PER_CHUNK], NULL until mapped. */
	struct sched_state_slot **chunks;
	/* Number of slots: tids from 0 to nr_slots - 1; 0 if unsupported. */
	unsigned int nr_slots;
};

extern struct sched_state_table sched_state_table;

/* Where the directory keeps the chunk of @tid (< nr_slots). */
static inline struct sched_state_slot **sched_state_chunk_entry(int tid)
{
	return &sched_state_table.chunks[tid >> SLOTS_PER_CHUNK_SHIFT];
}

/* The slot of @tid in its chunk @chunk. */
static inline struct sched_state_slot *sched_state_slot_in(struct sched_state_slot *chunk, int tid)
{
	return &chunk[tid & (SLOTS_PER_CHUNK - 1)];
}

/* The slot of @tid, or NULL if @tid has none or its chunk is not mapped. */
static inline struct sched_state_slot *sched_state_slot_mapped(int tid)
{
	struct sched_state_slot *chunk;

	if ((unsigned int) tid >= sched_state_table.nr_slots)
		return NULL;
	/* Pairs with the release that publishes a new chunk. */
	chunk = __atomic_load_n(sched_state_chunk_entry(tid), __ATOMIC_ACQUIRE);
	return chunk ? sched_state_slot_in(chunk, tid) : NULL;
}

/*
 * The scheduler state published by thread @tid, or NULL when there is
 * none to trust (kernel without the feature, no state attached, thread
 * gone, slot of another process).
 */
static inline const struct rseq_abi_sched_state *sched_state_of(int tid)
{
	const struct sched_state_slot *slot = sched_state_slot_mapped(tid);

	if (!slot)
		return NULL;
	if (__atomic_load_n(&slot->state.tid, __ATOMIC_RELAXED) != (uint32_t) tid ||
	    __atomic_load_n(&slot->epoch, __ATOMIC_RELAXED) != process_epoch ||
	    __atomic_load_n(&slot->state.version, __ATOMIC_RELAXED) != 0)
		return NULL;
	return &slot->state;
}

static inline bool sched_state_on_cpu(const struct rseq_abi_sched_state *state)
{
	return __atomic_load_n(&state->state, __ATOMIC_RELAXED) & RSEQ_ABI_SCHED_STATE_FLAG_ON_CPU;
}

/*
 * Whether other tasks waited for the CPU of the thread of @state when the
 * kernel last stored its ON_CPU: read by the thread itself, about its
 * own CPU.
 */
static inline bool sched_state_cpu_contended(const struct rseq_abi_sched_state *state)
{
	return __atomic_load_n(&state->state, __ATOMIC_RELAXED) &
	       RSEQ_ABI_SCHED_STATE_FLAG_CPU_CONTENDED;
}

/*
 * Whether a waiter of this process asked thread @tid (the caller, which
 * has no state attached) to attach one.
 */
static inline bool sched_state_wanted(int tid)
{
	const struct sched_state_slot *slot = sched_state_slot_mapped(tid);

	return slot && __atomic_load_n(&slot->wanted, __ATOMIC_RELAXED) == process_epoch;
}

/*
 * Whether thread @tid, which has no state to trust, detached its own for
 * disuse: its waiters sleep rather than spin by count.
 */
static inline bool sched_state_retired(int tid)
{
	const struct sched_state_slot *slot = sched_state_slot_mapped(tid);

	return slot && __atomic_load_n(&slot->retired, __ATOMIC_RELAXED) == process_epoch;
}

/*
 * A spin relying on the state of thread @tid won: it keeps the state at
 * its next review. Read first, so that the line is written once a period.
 */
static inline void sched_state_note_win(int tid)
{
	struct sched_state_slot *slot = sched_state_slot_mapped(tid);

	if (slot && __atomic_load_n(&slot->spin_won, __ATOMIC_RELAXED) != process_epoch)
		__atomic_store_n(&slot->spin_won, process_epoch, __ATOMIC_RELAXED);
}

/* Ask thread @tid, an owner without a state, to attach one. */
void sched_state_want(int tid);

/* Probe the kernel feature and map the table's directory; called once. */
void sched_state_init(void);
bool sched_state_supported(void);

/* Attach the slot of @tid to the calling thread; returns how it went. */
enum rseq_mode sched_state_attach(struct adaptive_thread *self, int tid);

/*
 * At the end of a review period of @self, which attached its state:
 * detach the state if no spin won on it, or attach it again if it was
 * detached for STATE_RETIRED_REVIEWS periods.
 */
void sched_state_review(struct adaptive_thread *self);

/* Attach again the state of @self, detached for disuse. */
void sched_state_resume(struct adaptive_thread *self);

/*
 * A thread with id @tid starts: its slot forgets a retirement and a
 * spin win of an earlier thread with the same tid, whose exit may not
 * have cleared them (no exit destructor without a key, or a child's
 * copy of the parent's table).
 */
void sched_state_thread_start(int tid);

/*
 * The thread is exiting: its slot stops claiming its tid, so that a
 * waiter does not trust it for a later thread that reuses the tid (the
 * kernel clears ON_CPU at exit).
 */
void sched_state_thread_exit(struct adaptive_thread *self);

#endif /* ADAPTIVE_SCHED_STATE_H */
