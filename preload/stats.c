// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stats.h"

#define BLOCKS_PER_CHUNK	32

/* Every block ever allocated, pushed at the head, never removed. */
static struct adaptive_stats *stats_blocks;

/*
 * The process the counters belong to: a vfork() child shares them, and
 * its _exit() must not report, nor mark them reported, for its parent.
 */
static pid_t stats_pid;

static const char *const stat_names[NR_STATS] = {
	[STAT_ACQUIRE] = "acquisitions",
	[STAT_CONTENDED] = "contended",
	[STAT_SPIN_WIN] = "spin_wins",
	[STAT_FUTEX_SLEEP] = "futex_sleeps",
	[STAT_OWNER_OFF_CPU] = "owner_off_cpu",
	[STAT_OWNER_RETIRED] = "owner_retired",
	[STAT_SPIN_BOUND] = "spin_bound",
	[STAT_SPIN_CUT] = "spin_cut",
	[STAT_SPIN_LONG_WIN] = "long_spin_wins",
	[STAT_SPIN_LONG_LOSS] = "long_spin_losses",
	[STAT_CPU_CONTENDED] = "cpu_contended",
	[STAT_SPIN_SKIPPED] = "spin_skips",
	[STAT_FALLBACK] = "fallbacks",
	[STAT_STARVING] = "starving",
	[STAT_HANDOFF] = "handoffs",
	[STAT_PASSTHROUGH] = "passthrough",
	[STAT_STATE_RETIRED] = "states_retired",
	[STAT_STATE_RESUMED] = "states_resumed",
};

/* Claim a free block, or map a chunk of new ones and keep the first. */
static struct adaptive_stats *claim_block(void)
{
	struct adaptive_stats *block, *chunk, *head;
	int i, free_block;

	for (block = __atomic_load_n(&stats_blocks, __ATOMIC_ACQUIRE); block; block = block->next) {
		free_block = 0;
		if (__atomic_compare_exchange_n(&block->in_use, &free_block, 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return block;
	}
	chunk = mmap(NULL, BLOCKS_PER_CHUNK * sizeof(*chunk), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (chunk == MAP_FAILED)
		return NULL;
	chunk[0].in_use = 1;
	for (i = 0; i < BLOCKS_PER_CHUNK - 1; i++)
		chunk[i].next = &chunk[i + 1];
	head = __atomic_load_n(&stats_blocks, __ATOMIC_RELAXED);
	do {
		chunk[BLOCKS_PER_CHUNK - 1].next = head;
	} while (!__atomic_compare_exchange_n(&stats_blocks, &head, chunk, false,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	return chunk;
}

void stats_init(void)
{
	stats_pid = getpid();
}

/* Where a thread counts when no block could be mapped; racy but harmless. */
static struct adaptive_stats overflow_block;

void stats_thread_start(struct adaptive_thread *self)
{
	if (!adaptive_config.stats)
		return;
	self->stats = claim_block();
	if (!self->stats)
		self->stats = &overflow_block;
	stats_thread_mode(self);
}

void stats_thread_mode(struct adaptive_thread *self)
{
	if (self->stats)
		self->stats->threads[self->mode]++;
}

void stats_thread_exit(struct adaptive_thread *self)
{
	if (self->stats && self->stats != &overflow_block)
		__atomic_store_n(&self->stats->in_use, 0, __ATOMIC_RELEASE);
}

void stats_new_process(void)
{
	struct adaptive_stats *block, *next;

	for (block = stats_blocks; block; block = next) {
		next = block->next;
		memset(block, 0, sizeof(*block));
		block->next = next;
	}
	memset(&overflow_block, 0, sizeof(overflow_block));
	stats_pid = getpid();
}

static void add_block(struct adaptive_stats *sum, const struct adaptive_stats *block)
{
	int i;

	for (i = 0; i < NR_STATS; i++)
		sum->count[i] += __atomic_load_n(&block->count[i], __ATOMIC_RELAXED);
	for (i = 0; i < NR_RSEQ_MODES; i++)
		sum->threads[i] += __atomic_load_n(&block->threads[i], __ATOMIC_RELAXED);
}

void stats_report(void)
{
	static int reported;
	struct adaptive_stats sum = { 0 };
	const struct adaptive_stats *block;
	char line[1024];
	int len, i;

	if (!adaptive_config.stats || getpid() != stats_pid ||
	    __atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL))
		return;
	for (block = __atomic_load_n(&stats_blocks, __ATOMIC_ACQUIRE); block; block = block->next)
		add_block(&sum, block);
	add_block(&sum, &overflow_block);

	len = snprintf(line, sizeof(line), "libadaptive: pid=%d policy=%s requested=%s",
		       getpid(), adaptive_policy_names[adaptive_config.policy],
		       adaptive_policy_names[adaptive_config.requested]);
	for (i = 0; i < NR_STATS && len < (int) sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s=%llu", stat_names[i],
				sum.count[i]);
	for (i = RSEQ_MODE_NONE + 1; i < NR_RSEQ_MODES && len < (int) sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " threads_%s=%llu",
				rseq_mode_names[i], sum.threads[i]);
	if (len >= (int) sizeof(line) - 1)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	if (write(STDERR_FILENO, line, len) < 0)
		return;
}

static void __attribute__((destructor)) stats_at_exit(void)
{
	stats_report();
}
