/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A sched_state of the calling thread's own, attached through the
 * kernel's ABI (preload/rseq-abi.h) to glibc's rseq registration, for
 * the programs that measure what the patched kernel pays per thread
 * with a state (their -s option): it stores the state at each of the
 * thread's switches and returns to user space. They attach it themselves
 * because libadaptive attaches one only to an owner whose waiters ask
 * for it, which none of these threads is.
 * Include it with _GNU_SOURCE defined.
 */
#ifndef OWN_STATE_H
#define OWN_STATE_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "rseq-abi.h"

static __thread struct rseq_abi_sched_state own_state;
/* How many threads attached one, for the program's result line. */
static int own_states_attached;

/*
 * Attach the calling thread's state if @wanted. On a kernel without the
 * feature (GET fails with EINVAL) there is none to attach, which the
 * stock kernel's runs expect; any other failure ends the program, so
 * that no run on the patched kernel passes for one with a state.
 */
static inline void own_state_attach(bool wanted)
{
	if (!wanted || (prctl(PR_RSEQ_SCHED_STATE, PR_RSEQ_SCHED_STATE_GET, 0, 0, 0) < 0 &&
			errno == EINVAL))
		return;
	own_state.tid = gettid();
	if (prctl(PR_RSEQ_SCHED_STATE, PR_RSEQ_SCHED_STATE_SET, &own_state, 0, 0)) {
		fprintf(stderr, "cannot attach a sched_state: %s\n", strerror(errno));
		exit(1);
	}
	__atomic_add_fetch(&own_states_attached, 1, __ATOMIC_RELAXED);
}

/* Before the thread's memory goes: the kernel writes the state until then. */
static inline void own_state_detach(void)
{
	if (own_state.tid)
		prctl(PR_RSEQ_SCHED_STATE, PR_RSEQ_SCHED_STATE_SET, 0, 0, 0);
}

#endif /* OWN_STATE_H */
