// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <unistd.h>

#include "config.h"
#include "sched_state.h"
#include "stats.h"
#include "syscall.h"

/* The kernel's PID_MAX_LIMIT on 64-bit, if /proc cannot tell pid_max. */
#define PID_MAX_LIMIT		(4 * 1024 * 1024)

__thread struct adaptive_thread adaptive_self __attribute__((tls_model("initial-exec")));

struct sched_state_table sched_state_table;

/* Length of our registrations: the kernel's feature size. */
static uint32_t rseq_register_len;

/* Its destructor runs when a thread that used the library exits. */
static pthread_key_t thread_exit_key;

const char *const rseq_mode_names[NR_RSEQ_MODES] = {
	[RSEQ_MODE_NONE] = "none",
	[RSEQ_MODE_TAKEOVER] = "takeover",
	[RSEQ_MODE_OWN] = "own",
	[RSEQ_MODE_UNSUPPORTED] = "unsupported",
	[RSEQ_MODE_FOREIGN] = "foreign",
};

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

static bool registered(const struct adaptive_thread *self)
{
	return self->mode == RSEQ_MODE_TAKEOVER || self->mode == RSEQ_MODE_OWN;
}

/*
 * A thread that exits stops publishing a state: the kernel clears
 * ON_CPU at exit, and the slot stops claiming the tid, so that a waiter
 * does not trust it for a later thread that reuses the tid.
 */
static void thread_exit(void *arg)
{
	struct adaptive_thread *self = arg;

	if (registered(self))
		__atomic_store_n(&sched_state_table.slots[self->tid].state.tid, 0,
				 __ATOMIC_RELAXED);
	stats_thread_exit(self);
}

void sched_state_init(void)
{
	unsigned long feature_size = getauxval(AT_RSEQ_FEATURE_SIZE);
	unsigned int nr_slots;
	size_t len;
	void *slots;
	int ret;

	ret = pthread_key_create(&thread_exit_key, thread_exit);
	if (ret)
		adaptive_warn("pthread_key_create: %s: threads leave stale states", strerror(ret));
	if (feature_size < RSEQ_ABI_SCHED_STATE_FEATURE_SIZE ||
	    feature_size > sizeof(adaptive_self.rseq))
		return;
	nr_slots = read_pid_max();
	len = (size_t) nr_slots * sizeof(struct sched_state_slot);
	/* Slots are touched as threads register: only those pages cost memory. */
	slots = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (slots == MAP_FAILED) {
		adaptive_warn("cannot map the %zu-byte sched_state table: %s; spinning without it",
			      len, strerror(errno));
		return;
	}
	rseq_register_len = feature_size;
	sched_state_table.slots = slots;
	sched_state_table.generation = 1;
	sched_state_table.nr_slots = nr_slots;
}

/* The registration length of glibc: 32 bytes up to glibc 2.40 at least. */
static uint32_t glibc_rseq_len(void)
{
	return __rseq_size > RSEQ_ABI_ORIG_SIZE ? __rseq_size : RSEQ_ABI_ORIG_SIZE;
}

static void *glibc_rseq_area(void)
{
	return (char *) __builtin_thread_pointer() + __rseq_offset;
}

/*
 * glibc (2.35 and later) registers a 32-byte struct rseq for every
 * thread, unless GLIBC_TUNABLES has glibc.pthread.rseq=0, and a thread
 * has one registration at most: unregister glibc's so that ours, which
 * carries a sched_state, can replace it. Returns whether there was one.
 */
static bool unregister_glibc_rseq(void)
{
	if (!__rseq_size)
		return false;
	return !raw_rseq(glibc_rseq_area(), glibc_rseq_len(), RSEQ_ABI_FLAG_UNREGISTER,
			 RSEQ_ABI_SIG);
}

static enum rseq_mode register_thread(struct adaptive_thread *self)
{
	struct sched_state_slot *slot;
	struct rseq_abi *area = &self->rseq.abi;
	bool took_over;

	if ((unsigned int) self->tid >= sched_state_table.nr_slots)
		return RSEQ_MODE_FOREIGN;
	slot = &sched_state_table.slots[self->tid];
	slot->generation = sched_state_table.generation;
	/* The kernel writes 0 here when it accepts the state. */
	__atomic_store_n(&slot->state.version, UINT32_MAX, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->state.tid, self->tid, __ATOMIC_RELEASE);

	memset(&self->rseq, 0, sizeof(self->rseq));
	area->cpu_id = RSEQ_ABI_CPU_ID_UNINITIALIZED;
	area->sched_state_ptr = (uintptr_t) &slot->state;
	took_over = unregister_glibc_rseq();
	if (!raw_rseq(area, rseq_register_len, 0, RSEQ_ABI_SIG))
		return took_over ? RSEQ_MODE_TAKEOVER : RSEQ_MODE_OWN;

	/* Someone else's registration is in place: leave the thread as it was. */
	if (took_over)
		raw_rseq(glibc_rseq_area(), glibc_rseq_len(), 0, RSEQ_ABI_SIG);
	__atomic_store_n(&slot->state.tid, 0, __ATOMIC_RELAXED);
	return RSEQ_MODE_FOREIGN;
}

void adaptive_thread_first_use(struct adaptive_thread *self)
{
	self->tid = raw_gettid();
	self->mode = sched_state_supported() ? register_thread(self) : RSEQ_MODE_UNSUPPORTED;
	stats_thread_start(self);
	pthread_setspecific(thread_exit_key, self);
}

/*
 * The child of fork() runs on with the calling thread only, under a new
 * tid, and inherits its registration, which points at the parent's slot:
 * drop it, invalidate the slots of the parent's threads, and register
 * again at the next use.
 */
void sched_state_after_fork_child(void)
{
	struct adaptive_thread *self = &adaptive_self;

	sched_state_table.generation++;
	if (registered(self))
		raw_rseq(&self->rseq, rseq_register_len, RSEQ_ABI_FLAG_UNREGISTER, RSEQ_ABI_SIG);
	self->tid = 0;
	self->mode = RSEQ_MODE_NONE;
}
