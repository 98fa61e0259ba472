// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tells whether the running kernel can attach an rseq sched_state:
 * prints "yes" and exits 0 if it answers PR_RSEQ_SCHED_STATE_GET, else
 * prints "no" and exits 1.
 *
 * usage: sched_state_probe
 */
#include <stdio.h>
#include <sys/prctl.h>

#include "rseq-abi.h"

int main(void)
{
	int ret = prctl(PR_RSEQ_SCHED_STATE, PR_RSEQ_SCHED_STATE_GET, 0, 0, 0);
	int supported = ret == 0 || ret == PR_RSEQ_SCHED_STATE_ATTACHED;

	puts(supported ? "yes" : "no");
	return !supported;
}
