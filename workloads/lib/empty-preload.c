// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A benchmark control, not part of libadaptive: an LD_PRELOAD library
 * that defines nothing a program could bind to, so that a run under it
 * differs from a run without a preload only in what loading one costs
 * and in whatever the harness does differently to preloaded runs.
 * vm-bench runs it as the policy empty-preload in the 1-thread cells,
 * where no mutex policy can matter: its ratio to glibc there is the
 * harness's bias, and another policy's 1-thread ratio beyond it is the
 * cost of that policy's own code.
 */

/* ISO C wants a declaration in every translation unit; this one emits nothing. */
typedef int empty_preload_defines_nothing;
