// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "glibc-mutex.h"
#include "handoff.h"
#include "real.h"
#include "sched_state.h"
#include "stats.h"
#include "thread.h"

/*
 * The spin bound comes from workloads/futex_cost.c, which measures a
 * sleeping handoff (futex wait and wake between two threads): on the
 * development machine (a virtual machine), 9 to 16 us of CPU and 12 to 22 us
 * from wake to run; in the TCG guest, 13 to 18 us of CPU and 21 to 31
 * us. Spinning longer than a sleep costs can lose more than it saves,
 * whatever the owner does; a spin phase lasts at most 20 us, about that
 * cost, so that a waiter never pays much more than twice the best choice.
 */
#define DEFAULT_SPIN_US		20
/* glibc's adaptive mutex spins at most glibc.mutex.spin_count = 100 times. */
#define DEFAULT_SPIN_COUNT	100
/*
 * A waiter is starving after 100 ms. A handoff costs more than the heir's
 * wake-up: it overrides how the scheduler had paired the threads on
 * the CPUs. In the TCG guest, stress-ng --mutex at 8 threads (2 per
 * mutex) lost 30% of glibc's throughput with a 1 ms bound and 10% with
 * 30 ms, and, like glibc, no waiter there waits 100 ms. This bounds the
 * starvation glibc leaves unbounded and costs nothing where waits are
 * shorter.
 */
#define DEFAULT_STARVE_US	100000

const char *const adaptive_policy_names[NR_POLICIES] = {
	[POLICY_SCHED_STATE] = "sched-state",
	[POLICY_SPIN_COUNT] = "spin-count",
	[POLICY_SPIN] = "spin",
	[POLICY_FUTEX] = "futex",
	[POLICY_GLIBC] = "glibc",
	[POLICY_SPIN_SINGLE] = "spin-single",
	[POLICY_SCHED_STATE_MULTI] = "sched-state-multi",
};

struct adaptive_config adaptive_config = {
	.requested = POLICY_SCHED_STATE,
	.policy = POLICY_SCHED_STATE,
	.spin_ns = DEFAULT_SPIN_US * 1000ULL,
	.spin_count = DEFAULT_SPIN_COUNT,
	.starve_ns = DEFAULT_STARVE_US * 1000ULL,
};

int adaptive_init_state = INIT_NONE;

void adaptive_warn(const char *fmt, ...)
{
	char msg[256] = "libadaptive: ";
	size_t prefix = strlen(msg);
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(msg + prefix, sizeof(msg) - prefix - 1, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	len += prefix;
	if (len > (int) sizeof(msg) - 2)
		len = sizeof(msg) - 2;
	msg[len++] = '\n';
	/* Nothing to do about a failed diagnostic. */
	if (write(STDERR_FILENO, msg, len) < 0)
		return;
}

static void read_policy(void)
{
	const char *value = getenv("ADAPTIVE_POLICY");
	int i;

	if (!value)
		return;
	for (i = 0; i < NR_POLICIES; i++) {
		if (!strcmp(value, adaptive_policy_names[i])) {
			adaptive_config.requested = i;
			return;
		}
	}
	adaptive_warn("ADAPTIVE_POLICY=%s is not one of sched-state, spin-count, spin, "
		      "futex, glibc, spin-single, sched-state-multi; using the default, "
		      "sched-state", value);
}

/* An unsigned integer in [min, max] from @name, or @fallback with a warning. */
static unsigned long long read_number(const char *name, unsigned long long min,
				      unsigned long long max, unsigned long long fallback)
{
	const char *value = getenv(name);
	unsigned long long n;
	char *end;

	if (!value)
		return fallback;
	errno = 0;
	n = strtoull(value, &end, 10);
	if (errno || end == value || *end || value[0] == '-' || n < min || n > max) {
		adaptive_warn("%s=%s is not a number from %llu to %llu; using %llu", name, value,
			      min, max, fallback);
		return fallback;
	}
	return n;
}

/*
 * With lock elision on (a tunable, on a CPU with transactional memory),
 * glibc's lock marks a mutex of type 0 as elided the first time it
 * locks it, and elides it from then on: libadaptive would then share
 * mutexes with a lock that never writes the word. Ask glibc what it
 * does, by the next definition, which reaches it.
 */
static bool glibc_elides_locks(void)
{
	pthread_mutex_t probe = PTHREAD_MUTEX_INITIALIZER;
	bool elided;

	if (real_mutex_lock(&probe))
		return false;
	elided = glibc_mutex_kind(&probe) & GLIBC_MUTEX_ELISION;
	real_mutex_unlock(&probe);
	return elided;
}

static void read_config(void)
{
	int saved_errno = errno;

	read_policy();
	adaptive_config.spin_ns = 1000 * read_number("ADAPTIVE_SPIN_US", 1, 1000000,
						     DEFAULT_SPIN_US);
	adaptive_config.spin_count = read_number("ADAPTIVE_SPIN_COUNT", 1, 10000000,
						 DEFAULT_SPIN_COUNT);
	adaptive_config.starve_ns = 1000 * read_number("ADAPTIVE_STARVE_US", 10, 10000000,
						       DEFAULT_STARVE_US);
	adaptive_config.stats = read_number("ADAPTIVE_STATS", 0, 1, 0);
	adaptive_config.policy = adaptive_config.requested;
	errno = saved_errno;
}

/* Whether the library may take mutexes at all, with a warning if not. */
static bool library_usable(void)
{
	if (adaptive_config.policy == POLICY_GLIBC)
		return false;
	if (glibc_elides_locks()) {
		adaptive_warn("glibc lock elision is enabled; leaving all mutexes to glibc");
		return false;
	}
	return thread_init();
}

bool adaptive_init(void)
{
	int state = INIT_NONE;

	if (!__atomic_compare_exchange_n(&adaptive_init_state, &state, INIT_RUNNING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return state == INIT_ENABLED;

	read_config();
	real_lookup_all();
	if (!library_usable()) {
		adaptive_config.policy = POLICY_GLIBC;
		__atomic_store_n(&adaptive_init_state, INIT_DISABLED, __ATOMIC_RELEASE);
		return false;
	}
	stats_init();
	sched_state_init();
	handoff_init();
	/* Without the kernel feature, the sensible bounded spin. */
	if (policy_reads_sched_state(adaptive_config.policy) && !sched_state_supported())
		adaptive_config.policy = POLICY_SPIN_COUNT;
	__atomic_store_n(&adaptive_init_state, INIT_ENABLED, __ATOMIC_RELEASE);
	return true;
}
