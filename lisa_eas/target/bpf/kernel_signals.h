/* SPDX-License-Identifier: GPL-2.0 */
/* The record shared by kernel_signals.bpf.c and the loader (lisa-eas-signals), and decoded
 * by lisa_eas/target/_signals_format.py: keep the three in step (KS_FORMAT_VERSION). */
#ifndef LISA_EAS_KERNEL_SIGNALS_H
#define LISA_EAS_KERNEL_SIGNALS_H

#define KS_FORMAT_VERSION 1
#define KS_COMM_LEN 16
#define KS_PATH_LEN 32

/* which tracepoint a record comes from (also the bit of the 'signals' mask) */
enum ks_kind {
	KS_PELT_SE = 0,
	KS_PELT_CFS = 1,
	KS_PELT_RT = 2,
	KS_PELT_DL = 3,
	KS_PELT_IRQ = 4,
	KS_UTIL_EST_SE = 5,
	KS_UTIL_EST_CFS = 6,
	KS_OVERUTILIZED = 7,
	KS_CPU_CAPACITY = 8,
	KS_NR_KINDS = 9,
};

/* flags */
#define KS_F_TASK 0x1        /* the sched_entity is a task (else a group) */
#define KS_F_ROOT 0x2        /* the cfs_rq is the CPU's root cfs_rq (or the se's parent is) */
#define KS_F_UE_PAIR 0x4     /* util_est is the pre-v6.8 {enqueued, ewma} pair */
#define KS_F_NO_STEAL 0x8    /* the rq has no prev_steal_time_rq field */
#define KS_F_NO_RQ 0x10      /* the rq's clocks were not read (no group scheduling) */

/* 192 bytes, no implicit padding */
struct ks_record {
	__u64 ts;               /* bpf_ktime_get_ns(): CLOCK_MONOTONIC, ftrace's "mono" */
	__u64 clock;            /* rq->clock */
	__u64 clock_task;       /* rq->clock_task */
	__u64 clock_pelt;       /* rq->clock_pelt */
	__u64 lost_idle_time;   /* rq->lost_idle_time */
	__u64 prev_steal_time_rq;
	__u64 last_update_time; /* sched_avg.last_update_time (PELT clock) */
	__u64 load_sum;
	__u64 runnable_sum;
	__u64 load_avg;
	__u64 runnable_avg;
	__u64 util_avg;
	__u64 util_est;         /* raw: v6.8+ one u32, before {enqueued (low), ewma (high)} */
	__u64 weight;           /* se->load.weight (scaled up on 64-bit) or 0 */
	__u32 util_sum;
	__u32 period_contrib;
	__s32 cpu;
	__s32 pid;              /* task pid, -1 for groups/CPU signals */
	__u16 kind;
	__u16 flags;
	__u32 value;            /* overutilized / capacity */
	__u32 value2;           /* span (first 32 CPUs) / capacity_orig */
	__u32 pad;
	char comm[KS_COMM_LEN];
	char path[KS_PATH_LEN]; /* cgroup leaf name of the cfs_rq/group, "/" for the root */
};

#endif
