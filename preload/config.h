/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Run-time configuration, read once from the environment, and the
 * library's one-time initialization.
 */
#ifndef ADAPTIVE_CONFIG_H
#define ADAPTIVE_CONFIG_H

#include <stdbool.h>

enum adaptive_policy {
	/* Spin while the owner is on a CPU (rseq sched_state), else sleep. */
	POLICY_SCHED_STATE,
	/* Spin a fixed number of iterations, like glibc's adaptive mutex. */
	POLICY_SPIN_COUNT,
	/* Spin, bounded in time, whatever the owner does. */
	POLICY_SPIN,
	/* Never spin: sleep in futex at once, like glibc's normal mutex. */
	POLICY_FUTEX,
	/* Leave every mutex to glibc. */
	POLICY_GLIBC,
	/* Ablations for vm-bench: spin with one spinner per mutex, and
	 * sched-state with any number of spinners. */
	POLICY_SPIN_SINGLE,
	POLICY_SCHED_STATE_MULTI,
	NR_POLICIES
};

struct adaptive_config {
	/* What ADAPTIVE_POLICY asked for, and what runs. */
	enum adaptive_policy requested;
	enum adaptive_policy policy;
	/* Longest spin phase of the sched-state and spin policies. */
	unsigned long long spin_ns;
	/* Spin iterations of the spin-count policy and of the fallback. */
	unsigned int spin_count;
	/* A waiter that waited this long may have the lock handed to it. */
	unsigned long long starve_ns;
	bool stats;
};

extern struct adaptive_config adaptive_config;

extern const char *const adaptive_policy_names[NR_POLICIES];

/* Whether @policy reads the scheduler states: the owner's and the waiter's own. */
static inline bool policy_reads_sched_state(enum adaptive_policy policy)
{
	return policy == POLICY_SCHED_STATE || policy == POLICY_SCHED_STATE_MULTI;
}

enum adaptive_init_state {
	INIT_NONE,
	/* Initialization runs; calls made meanwhile go to glibc. */
	INIT_RUNNING,
	INIT_ENABLED,
	/* ADAPTIVE_POLICY=glibc, glibc's lock elision is on, or glibc's thread id unknown. */
	INIT_DISABLED,
};

extern int adaptive_init_state;

bool adaptive_init(void);

/*
 * Whether libadaptive handles mutexes now. The first call initializes
 * the library, whichever comes first: its constructor, or a mutex
 * operation from another library's constructor that runs before it.
 */
static inline bool adaptive_enabled(void)
{
	int state = __atomic_load_n(&adaptive_init_state, __ATOMIC_ACQUIRE);

	if (__builtin_expect(state == INIT_ENABLED, 1))
		return true;
	if (state == INIT_NONE)
		return adaptive_init();
	return false;
}

/* A message on stderr, prefixed with "libadaptive: ", without stdio. */
void adaptive_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* ADAPTIVE_CONFIG_H */
