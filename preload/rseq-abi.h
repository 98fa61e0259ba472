/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * User-space mirror of the kernel's rseq ABI, including the sched_state
 * extension of kernel/patches (include/uapi/linux/rseq.h and prctl.h
 * there), under an rseq_abi_ prefix as librseq and the kernel selftests
 * do: the host's <linux/rseq.h> predates the extension and must not be
 * required.
 */
#ifndef RSEQ_ABI_H
#define RSEQ_ABI_H

#include <stdint.h>

/* The signature glibc registers its areas with (sysdeps/unix/sysv/linux/x86/bits/rseq.h). */
#define RSEQ_ABI_SIG			0x53053053U
#define RSEQ_ABI_CPU_ID_UNINITIALIZED	((uint32_t) -1)

/* Registration length of the original ABI, glibc's choice. */
#define RSEQ_ABI_ORIG_SIZE		32

/*
 * prctl(PR_RSEQ_SCHED_STATE, PR_RSEQ_SCHED_STATE_SET, addr, 0, 0)
 * attaches the struct rseq_abi_sched_state at addr to the calling
 * thread's rseq registration (0 detaches); ..._GET returns
 * PR_RSEQ_SCHED_STATE_ATTACHED or 0, and fails with EINVAL on kernels
 * without the feature.
 */
#define PR_RSEQ_SCHED_STATE		0x52535354
#define PR_RSEQ_SCHED_STATE_GET		1
#define PR_RSEQ_SCHED_STATE_SET		2
#define PR_RSEQ_SCHED_STATE_ATTACHED	0x01

enum rseq_abi_sched_state_flags {
	/*
	 * The thread is running on a CPU: set by the kernel on its return
	 * to user space, cleared when it is switched out.
	 */
	RSEQ_ABI_SCHED_STATE_FLAG_ON_CPU	= (1U << 0),
	/*
	 * Other tasks waited for the thread's CPU when the kernel last
	 * stored ON_CPU, at least once per switch in (kernel patch 6).
	 */
	RSEQ_ABI_SCHED_STATE_FLAG_CPU_CONTENDED	= (1U << 1),
};

/* The scheduler state of one thread, attached with PR_RSEQ_SCHED_STATE. */
struct rseq_abi_sched_state {
	/* Layout version: written by the kernel when attached (0). */
	uint32_t version;
	/*
	 * enum rseq_abi_sched_state_flags: written by the kernel, read by
	 * any thread of the process with a single aligned 32-bit load. A
	 * hint: it may read ON_CPU for a thread that is off CPU (page not
	 * present when the scheduler cleared it, vCPU preempted by the
	 * hypervisor), never the reverse for a thread running user code.
	 */
	uint32_t state;
	/* Thread ID: written by user space before attaching. */
	uint32_t tid;
};

/*
 * The original 32-byte struct rseq, which the library registers only
 * for threads that glibc left without one.
 */
struct rseq_abi {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
} __attribute__((aligned(RSEQ_ABI_ORIG_SIZE)));

#endif /* RSEQ_ABI_H */
