// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own PELT, util_est, overutilized and capacity signals, read on the bare
 * scheduler tracepoints (pelt_se_tp, pelt_cfs_tp, pelt_rt_tp, pelt_dl_tp, pelt_irq_tp,
 * sched_util_est_se_tp, sched_util_est_cfs_tp, sched_overutilized_tp,
 * sched_cpu_capacity_tp) with BTF-typed raw tracepoint programs (tp_btf): no kernel
 * module, no trace event. tp_btf lets the program load the scheduler's fields directly
 * (probe-mem loads) instead of one bpf_probe_read_kernel() call per field, which halves
 * the cost per record; the task's pid/comm (reached by container_of) are still read with
 * the helper.
 *
 * CO-RE: field offsets are relocated against the running kernel's BTF by libbpf; the
 * util_est layout (one u32 since v6.8, an {enqueued, ewma} pair before) is told apart
 * by the field's size. Records go to a BPF ring buffer, committed with BPF_RB_NO_WAKEUP
 * (the loader drains on a timer: waking it per record would make the capture feed
 * itself). A full ring buffer counts a drop in the per-CPU 'drops' map. No
 * bpf_trace_printk: a program using it enables an event of the top tracing instance.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "kernel_signals.h"

char LICENSE[] SEC("license") = "GPL";

/* set by the loader before loading */
const volatile __u32 signals_mask = (1u << KS_NR_KINDS) - 1;
const volatile __u8 task_only = 0;   /* se records: tasks only (no group entities) */
const volatile __u8 root_only = 0;   /* cfs records: root cfs_rq only */
const volatile __u8 filter_pids = 0; /* se records: only pids in 'pids' */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22); /* resized by the loader */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2); /* 0: records written, 1: records dropped (ring buffer full) */
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __s32);
	__type(value, __u8);
} pids SEC(".maps");

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &idx);

	if (c)
		*c += 1;
}

static __always_inline struct ks_record *reserve(enum ks_kind kind)
{
	struct ks_record *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);

	if (!r) {
		count(1);
		return NULL;
	}
	__builtin_memset(r, 0, sizeof(*r));
	r->ts = bpf_ktime_get_ns();
	r->kind = kind;
	r->pid = -1;
	return r;
}

static __always_inline void submit(struct ks_record *r)
{
	count(0);
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

static __always_inline void read_rq(struct ks_record *r, struct rq *rq)
{
	r->cpu = rq->cpu;
	r->clock = rq->clock;
	r->clock_task = rq->clock_task;
	r->clock_pelt = rq->clock_pelt;
	r->lost_idle_time = rq->lost_idle_time;
	if (bpf_core_field_exists(rq->prev_steal_time_rq))
		r->prev_steal_time_rq = rq->prev_steal_time_rq;
	else
		r->flags |= KS_F_NO_STEAL;
}

static __always_inline void read_avg(struct ks_record *r, struct sched_avg *sa)
{
	__u32 sz = bpf_core_field_size(sa->util_est);
	__u64 raw = 0;

	r->last_update_time = sa->last_update_time;
	r->load_sum = sa->load_sum;
	r->runnable_sum = sa->runnable_sum;
	r->util_sum = sa->util_sum;
	r->period_contrib = sa->period_contrib;
	r->load_avg = sa->load_avg;
	r->runnable_avg = sa->runnable_avg;
	r->util_avg = sa->util_avg;
	if (sz > 8)
		sz = 8;
	if (sz == 8)
		r->flags |= KS_F_UE_PAIR;
	bpf_probe_read_kernel(&raw, sz & 0xf, (void *)sa + bpf_core_field_offset(sa->util_est));
	r->util_est = raw;
}

/* rq_of(cfs_rq): cfs_rq->rq with group scheduling, else the rq embedding it */
static __always_inline struct rq *rq_of_cfs(struct cfs_rq *cfs_rq)
{
	if (bpf_core_field_exists(cfs_rq->rq))
		return cfs_rq->rq;
	return (struct rq *)((void *)cfs_rq - bpf_core_field_offset(struct rq, cfs));
}

static __always_inline int is_root_cfs(struct cfs_rq *cfs_rq, struct rq *rq)
{
	return (void *)cfs_rq == (void *)rq + bpf_core_field_offset(struct rq, cfs);
}

/* the cgroup leaf name of a task group (kernfs node name), "/" for the root */
static __always_inline void tg_name(char *dst, struct task_group *tg, int root)
{
	const char *name;

	if (root || !tg) {
		dst[0] = '/';
		dst[1] = 0;
		return;
	}
	if (!BPF_CORE_READ(tg, css.cgroup)) {
		/* an autogroup (CONFIG_SCHED_AUTOGROUP) has no cgroup */
		__builtin_memcpy(dst, "autogroup", 10);
		return;
	}
	name = BPF_CORE_READ(tg, css.cgroup, kn, name);
	bpf_probe_read_kernel_str(dst, KS_PATH_LEN, name);
}

static __always_inline void cfs_path(char *dst, struct cfs_rq *cfs_rq, int root)
{
	struct task_group *tg = NULL;

	if (bpf_core_field_exists(cfs_rq->tg))
		tg = cfs_rq->tg;
	tg_name(dst, tg, root);
}

static __always_inline int want(enum ks_kind kind)
{
	return signals_mask & (1u << kind);
}

/* fills the se's identity; returns 0 when the filters drop it */
static __always_inline int se_identity(struct ks_record *r, struct sched_entity *se)
{
	struct cfs_rq *cfs_rq = NULL;
	struct rq *rq = NULL;
	int task = 1;

	if (bpf_core_field_exists(se->my_q))
		task = se->my_q == NULL;
	if (task) {
		struct task_struct *p = (void *)se - bpf_core_field_offset(struct task_struct, se);

		r->pid = BPF_CORE_READ(p, pid);
		r->flags |= KS_F_TASK;
		if (filter_pids && !bpf_map_lookup_elem(&pids, &r->pid))
			return 0;
		BPF_CORE_READ_STR_INTO(&r->comm, p, comm);
		__builtin_memcpy(r->path, "(null)", 7);
	} else {
		struct cfs_rq *my_q;

		if (task_only || filter_pids)
			return 0;
		my_q = se->my_q;
		__builtin_memcpy(r->comm, "(null)", 7);
		cfs_path(r->path, my_q, 0);
	}
	if (bpf_core_field_exists(se->cfs_rq)) {
		cfs_rq = se->cfs_rq;
		rq = rq_of_cfs(cfs_rq);
		if (is_root_cfs(cfs_rq, rq))
			r->flags |= KS_F_ROOT;
	} else {
		struct task_struct *p = (void *)se - bpf_core_field_offset(struct task_struct, se);

		/* no group scheduling: the rq is the task's CPU's (its clocks are not read) */
		if (bpf_core_field_exists(p->thread_info.cpu))
			r->cpu = BPF_CORE_READ(p, thread_info.cpu);
		else
			r->cpu = bpf_get_smp_processor_id();
		r->flags |= KS_F_ROOT | KS_F_NO_RQ;
	}
	if (rq)
		read_rq(r, rq);
	r->weight = se->load.weight;
	return 1;
}

static __always_inline int do_se(struct sched_entity *se, enum ks_kind kind)
{
	struct ks_record *r;

	if (!want(kind))
		return 0;
	r = reserve(kind);
	if (!r)
		return 0;
	if (!se_identity(r, se)) {
		bpf_ringbuf_discard(r, BPF_RB_NO_WAKEUP);
		return 0;
	}
	read_avg(r, &se->avg);
	submit(r);
	return 0;
}

static __always_inline int do_cfs(struct cfs_rq *cfs_rq, enum ks_kind kind)
{
	struct ks_record *r;
	struct rq *rq;
	int root;

	if (!want(kind) || filter_pids)
		return 0;
	rq = rq_of_cfs(cfs_rq);
	root = is_root_cfs(cfs_rq, rq);
	if (root_only && !root)
		return 0;
	r = reserve(kind);
	if (!r)
		return 0;
	if (root)
		r->flags |= KS_F_ROOT;
	read_rq(r, rq);
	cfs_path(r->path, cfs_rq, root);
	read_avg(r, &cfs_rq->avg);
	submit(r);
	return 0;
}

static __always_inline int do_rq_avg(struct rq *rq, struct sched_avg *sa, enum ks_kind kind)
{
	struct ks_record *r;

	if (!want(kind) || filter_pids)
		return 0;
	r = reserve(kind);
	if (!r)
		return 0;
	r->flags |= KS_F_ROOT;
	read_rq(r, rq);
	read_avg(r, sa);
	submit(r);
	return 0;
}

SEC("tp_btf/pelt_se_tp")
int BPF_PROG(ks_pelt_se, struct sched_entity *se)
{
	return do_se(se, KS_PELT_SE);
}

SEC("tp_btf/sched_util_est_se_tp")
int BPF_PROG(ks_util_est_se, struct sched_entity *se)
{
	return do_se(se, KS_UTIL_EST_SE);
}

SEC("tp_btf/pelt_cfs_tp")
int BPF_PROG(ks_pelt_cfs, struct cfs_rq *cfs_rq)
{
	return do_cfs(cfs_rq, KS_PELT_CFS);
}

SEC("tp_btf/sched_util_est_cfs_tp")
int BPF_PROG(ks_util_est_cfs, struct cfs_rq *cfs_rq)
{
	return do_cfs(cfs_rq, KS_UTIL_EST_CFS);
}

SEC("tp_btf/pelt_rt_tp")
int BPF_PROG(ks_pelt_rt, struct rq *rq)
{
	return do_rq_avg(rq, &rq->avg_rt, KS_PELT_RT);
}

SEC("tp_btf/pelt_dl_tp")
int BPF_PROG(ks_pelt_dl, struct rq *rq)
{
	return do_rq_avg(rq, &rq->avg_dl, KS_PELT_DL);
}

SEC("tp_btf/pelt_irq_tp")
int BPF_PROG(ks_pelt_irq, struct rq *rq)
{
	/* rq->avg_irq exists with CONFIG_HAVE_SCHED_AVG_IRQ only */
	if (!bpf_core_field_exists(rq->avg_irq))
		return 0;
	return do_rq_avg(rq, &rq->avg_irq, KS_PELT_IRQ);
}

SEC("tp_btf/sched_overutilized_tp")
int BPF_PROG(ks_overutilized, struct root_domain *rd, bool overutilized)
{
	struct ks_record *r;
	unsigned long span = 0;

	if (!want(KS_OVERUTILIZED) || filter_pids)
		return 0;
	r = reserve(KS_OVERUTILIZED);
	if (!r)
		return 0;
	r->cpu = bpf_get_smp_processor_id();
	r->value = overutilized;
	bpf_probe_read_kernel(&span, sizeof(span), (void *)rd + bpf_core_field_offset(rd->span));
	r->value2 = (__u32)span;
	submit(r);
	return 0;
}

SEC("tp_btf/sched_cpu_capacity_tp")
int BPF_PROG(ks_cpu_capacity, struct rq *rq)
{
	struct ks_record *r;

	if (!want(KS_CPU_CAPACITY) || filter_pids)
		return 0;
	r = reserve(KS_CPU_CAPACITY);
	if (!r)
		return 0;
	r->flags |= KS_F_ROOT;
	read_rq(r, rq);
	r->value = rq->cpu_capacity;
	submit(r);
	return 0;
}
