/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * User-space mirror of the kernel's rseq ABI, including the sched_state
 * extension of kernel/patches (include/uapi/linux/rseq.h there), under
 * an rseq_abi_ prefix as librseq and the kernel selftests do: the host's
 * <linux/rseq.h> predates the extension and must not be required.
 */
#ifndef RSEQ_ABI_H
#define RSEQ_ABI_H

#include <stddef.h>
#include <stdint.h>

/* The signature glibc registers its areas with (sysdeps/unix/sysv/linux/x86/bits/rseq.h). */
#define RSEQ_ABI_SIG			0x53053053U
#define RSEQ_ABI_FLAG_UNREGISTER	(1 << 0)
#define RSEQ_ABI_CPU_ID_UNINITIALIZED	((uint32_t) -1)

/* Registration length of the original ABI, glibc's choice. */
#define RSEQ_ABI_ORIG_SIZE		32
/* struct rseq alignment, also reported as AT_RSEQ_ALIGN. */
#define RSEQ_ABI_ALIGN			32

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE		27
#endif
#ifndef AT_RSEQ_ALIGN
#define AT_RSEQ_ALIGN			28
#endif

enum rseq_abi_sched_state_flags {
	/*
	 * The thread is running on a CPU: set by the kernel on its return
	 * to user space, cleared when it is switched out.
	 */
	RSEQ_ABI_SCHED_STATE_FLAG_ON_CPU	= (1U << 0),
};

/*
 * The scheduler state of one thread, registered through
 * struct rseq_abi::sched_state_ptr.
 */
struct rseq_abi_sched_state {
	/* Layout version: written by the kernel at registration (0). */
	uint32_t version;
	/*
	 * enum rseq_abi_sched_state_flags: written by the kernel, read by
	 * any thread of the process with a single aligned 32-bit load. A
	 * hint: it may read ON_CPU for a thread that is off CPU (page not
	 * present when the scheduler cleared it, vCPU preempted by the
	 * hypervisor), never the reverse for a thread running user code.
	 */
	uint32_t state;
	/* Thread ID: written by user space before registration. */
	uint32_t tid;
};

struct rseq_abi {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
	uint32_t padding1;
	/*
	 * Address of the thread's struct rseq_abi_sched_state, or 0. Read
	 * by the kernel at registration only, if rseq_len covers it.
	 */
	uint64_t sched_state_ptr;
} __attribute__((aligned(RSEQ_ABI_ALIGN)));

/* getauxval(AT_RSEQ_FEATURE_SIZE) of a kernel that supports sched_state_ptr. */
#define RSEQ_ABI_SCHED_STATE_FEATURE_SIZE \
	(offsetof(struct rseq_abi, sched_state_ptr) + sizeof(uint64_t))

_Static_assert(RSEQ_ABI_SCHED_STATE_FEATURE_SIZE == 40, "struct rseq layout");

#endif /* RSEQ_ABI_H */
