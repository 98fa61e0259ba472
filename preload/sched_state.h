/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-thread sched_state, attached to the thread's rseq registration
 * (glibc's, left as it is), and the table in which waiters find the
 * state of a mutex owner from its tid.
 *
 * The states live in one table indexed by tid, one cache line each,
 * mapped once and never unmapped: a waiter may read the state of an
 * owner that has exited, whose tid may even be reused, and must never
 * touch freed memory (the lifetime point raised in the RFC's review).
 * A slot is trusted only if its tid is the owner's, its generation the
 * process's (bumped in a forked child, where the parent's other threads
 * do not exist) and the kernel acknowledged it (version 0).
 */
#ifndef ADAPTIVE_SCHED_STATE_H
#define ADAPTIVE_SCHED_STATE_H

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
	/* 0 until the thread first uses the library. */
	int tid;
	enum rseq_mode mode;
	struct adaptive_stats *stats;
};

extern __thread struct adaptive_thread adaptive_self __attribute__((tls_model("initial-exec")));

void adaptive_thread_first_use(struct adaptive_thread *self);

/* The calling thread, its state attached on its first use. */
static inline struct adaptive_thread *adaptive_thread_self(void)
{
	struct adaptive_thread *self = &adaptive_self;

	if (__builtin_expect(!self->tid, 0))
		adaptive_thread_first_use(self);
	return self;
}

struct sched_state_slot {
	struct rseq_abi_sched_state state;
	uint32_t generation;
} __attribute__((aligned(64)));

struct sched_state_table {
	struct sched_state_slot *slots;
	/* Number of slots: tids from 0 to nr_slots - 1; 0 if unsupported. */
	unsigned int nr_slots;
	uint32_t generation;
};

extern struct sched_state_table sched_state_table;

/*
 * The scheduler state published by thread @tid, or NULL when there is
 * none to trust (kernel without the feature, no state attached, thread
 * gone, slot of another generation).
 */
static inline const struct rseq_abi_sched_state *sched_state_of(int tid)
{
	const struct sched_state_slot *slot;

	if ((unsigned int) tid >= sched_state_table.nr_slots)
		return NULL;
	slot = &sched_state_table.slots[tid];
	if (__atomic_load_n(&slot->state.tid, __ATOMIC_RELAXED) != (uint32_t) tid ||
	    __atomic_load_n(&slot->generation, __ATOMIC_RELAXED) != sched_state_table.generation ||
	    __atomic_load_n(&slot->state.version, __ATOMIC_RELAXED) != 0)
		return NULL;
	return &slot->state;
}

static inline bool sched_state_on_cpu(const struct rseq_abi_sched_state *state)
{
	return __atomic_load_n(&state->state, __ATOMIC_RELAXED) & RSEQ_ABI_SCHED_STATE_FLAG_ON_CPU;
}

/* Probe the kernel feature and map the table; called once. */
void sched_state_init(void);
bool sched_state_supported(void);
void sched_state_after_fork_child(void);

extern const char *const rseq_mode_names[NR_RSEQ_MODES];

#endif /* ADAPTIVE_SCHED_STATE_H */
