// SPDX-License-Identifier: GPL-2.0
/*
 * lisa-eas-signals: load kernel_signals.bpf.c (embedded as a libbpf skeleton), attach it
 * to the bare scheduler tracepoints and write its records to a file as they arrive.
 *
 *   lisa-eas-signals --out FILE [--summary FILE.json] [--signals pelt_se,pelt_cfs,...]
 *                    [--task-only] [--root-only] [--pid N]... [--ringbuf-kb N]
 *                    [--drain-ms N] [--duration S] [--check]
 *
 * FILE: a 64-byte header then fixed-size records (struct ks_record), appended whole by one
 * write() per drain, so a reader of a collector that was killed keeps every record but a
 * torn last one. FILE.json (written atomically: temp file + rename) says the state
 * ("running" once attached, then "complete" / "stopped"), per-CPU counts of written and
 * dropped (ring buffer full) records, and the attached tracepoints; it is rewritten every
 * second. Stops after --duration seconds or on SIGTERM/SIGINT (the ring buffer is
 * drained first). Errors: one line "lisa-eas-signals: error: CODE: message" on stderr,
 * exit status 3, with CODE one of not_root, no_btf, kernel_too_old, missing_tracepoint,
 * bpf_refused, usage, io.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "kernel_signals.h"
#include "kernel_signals.skel.h"

static const char *const kind_names[KS_NR_KINDS] = {
	"pelt_se", "pelt_cfs", "pelt_rt", "pelt_dl", "pelt_irq",
	"util_est_se", "util_est_cfs", "overutilized", "cpu_capacity",
};
static const char *const tp_names[KS_NR_KINDS] = {
	"pelt_se_tp", "pelt_cfs_tp", "pelt_rt_tp", "pelt_dl_tp", "pelt_irq_tp",
	"sched_util_est_se_tp", "sched_util_est_cfs_tp", "sched_overutilized_tp",
	"sched_cpu_capacity_tp",
};

static volatile sig_atomic_t stop;
static int out_fd = -1;
static char *buf;
static size_t buf_len, buf_cap;
static uint64_t received;

static void on_signal(int sig) { (void)sig; stop = 1; }

static void die(const char *code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lisa-eas-signals: error: %s: ", code);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(3);
}

static int silent_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN && getenv("LISA_EAS_SIGNALS_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void write_all(const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(out_fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			die("io", "writing the records: %s", strerror(errno));
		c += w;
		n -= w;
	}
}

static int on_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	if (size != sizeof(struct ks_record))
		return 0;
	if (buf_len + size > buf_cap) {
		write_all(buf, buf_len);
		buf_len = 0;
	}
	memcpy(buf + buf_len, data, size);
	buf_len += size;
	received++;
	return 0;
}

static void flush_records(void)
{
	if (buf_len)
		write_all(buf, buf_len);
	buf_len = 0;
}

static void write_summary(const char *path, struct kernel_signals_bpf *skel, const char *status,
			  unsigned int mask, int ncpu, uint64_t t0, const char *attached)
{
	char tmp[4096];
	FILE *f;
	uint64_t *vals = calloc(ncpu, sizeof(uint64_t));
	uint64_t total[2] = {0, 0};
	int fd = bpf_map__fd(skel->maps.counts);

	if (!path || !vals)
		goto out;
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		die("io", "%s: %s", tmp, strerror(errno));
	fprintf(f, "{\"format\": %d, \"status\": \"%s\", \"pid\": %d, \"record_size\": %zu,\n",
		KS_FORMAT_VERSION, status, (int)getpid(), sizeof(struct ks_record));
	fprintf(f, " \"mono_start_ns\": %llu, \"mono_now_ns\": %llu, \"received\": %llu,\n",
		(unsigned long long)t0, (unsigned long long)now_ns(CLOCK_MONOTONIC),
		(unsigned long long)received);
	fprintf(f, " \"signals\": [");
	for (int k = 0, first = 1; k < KS_NR_KINDS; k++)
		if (mask & (1u << k)) {
			fprintf(f, "%s\"%s\"", first ? "" : ", ", kind_names[k]);
			first = 0;
		}
	fprintf(f, "], \"attached\": [%s],\n", attached);
	for (uint32_t key = 0; key < 2; key++) {
		fprintf(f, " \"%s_per_cpu\": [", key ? "dropped" : "written");
		if (bpf_map_lookup_elem(fd, &key, vals))
			memset(vals, 0, ncpu * sizeof(uint64_t));
		for (int c = 0; c < ncpu; c++) {
			fprintf(f, "%s%llu", c ? ", " : "", (unsigned long long)vals[c]);
			total[key] += vals[c];
		}
		fprintf(f, "],\n");
	}
	fprintf(f, " \"written\": %llu, \"dropped\": %llu}\n", (unsigned long long)total[0],
		(unsigned long long)total[1]);
	if (fflush(f) || fsync(fileno(f)) || fclose(f))
		die("io", "%s: %s", tmp, strerror(errno));
	if (rename(tmp, path))
		die("io", "renaming %s: %s", tmp, strerror(errno));
out:
	free(vals);
}

static unsigned int parse_signals(const char *s)
{
	unsigned int mask = 0;
	char *copy = strdup(s), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k;

		if (!strcmp(tok, "all")) {
			mask |= (1u << KS_NR_KINDS) - 1;
			continue;
		}
		for (k = 0; k < KS_NR_KINDS; k++)
			if (!strcmp(tok, kind_names[k]))
				break;
		if (k == KS_NR_KINDS)
			die("usage", "unknown signal '%s' (known: pelt_se, pelt_cfs, pelt_rt, pelt_dl, "
			    "pelt_irq, util_est_se, util_est_cfs, overutilized, cpu_capacity, all)", tok);
		mask |= 1u << k;
	}
	free(copy);
	return mask;
}

static void check_kernel(unsigned int mask)
{
	struct utsname u;
	int major = 0, minor = 0;
	struct btf *vmlinux;
	char missing[512] = "";

	if (uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	    (major < 5 || (major == 5 && minor < 12)))
		die("kernel_too_old", "kernel %s: BPF programs on the bare scheduler tracepoints need "
		    "Linux >= 5.12. Fix: run on a newer kernel, or use LISA's kernel module", u.release);
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		die("no_btf", "/sys/kernel/btf/vmlinux is missing (%s): the kernel was built without "
		    "BTF. Fix: a kernel with CONFIG_DEBUG_INFO_BTF=y", strerror(errno));
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		die("no_btf", "cannot read /sys/kernel/btf/vmlinux (%s). Fix: run as root, on a kernel "
		    "with CONFIG_DEBUG_INFO_BTF=y", strerror(errno));
	for (int k = 0; k < KS_NR_KINDS; k++) {
		char name[96];

		if (!(mask & (1u << k)))
			continue;
		snprintf(name, sizeof(name), "btf_trace_%s", tp_names[k]);
		if (btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) < 0) {
			strncat(missing, " ", sizeof(missing) - strlen(missing) - 1);
			strncat(missing, tp_names[k], sizeof(missing) - strlen(missing) - 1);
		}
	}
	btf__free(vmlinux);
	if (missing[0])
		die("missing_tracepoint", "this kernel has no tracepoint%s. Fix: leave the matching "
		    "signal(s) out (--signals), or use a kernel that has them", missing);
}

static void bpf_error(const char *what, int err)
{
	err = err < 0 ? -err : err;
	if (err == EPERM || err == EACCES) {
		if (geteuid() != 0)
			die("not_root", "%s: %s. Fix: run as root (or with CAP_BPF and CAP_PERFMON)",
			    what, strerror(err));
		die("bpf_refused", "%s: %s although running as root: the kernel refuses bpf() "
		    "(lockdown=confidentiality, kernel.unprivileged_bpf_disabled with a missing "
		    "capability, or an LSM). Fix: boot without lockdown confidentiality / allow BPF",
		    what, strerror(err));
	}
	die("bpf_refused", "%s: %s. Fix: set LISA_EAS_SIGNALS_DEBUG=1 for libbpf's log", what,
	    strerror(err));
}

int main(int argc, char **argv)
{
	const char *out = NULL, *summary = NULL;
	unsigned int mask = (1u << KS_NR_KINDS) - 1;
	int task_only = 0, root_only = 0, check = 0, npids = 0;
	int pidv[4096];
	long ringbuf_kb = 16384, drain_ms = 100;
	double duration = 0;
	struct kernel_signals_bpf *skel;
	struct ring_buffer *rb;
	int err, ncpu;
	char attached[1024] = "";
	uint64_t t0, last_summary;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--task-only")) { task_only = 1; continue; }
		if (!strcmp(a, "--root-only")) { root_only = 1; continue; }
		if (!strcmp(a, "--check")) { check = 1; continue; }
		if (!v)
			die("usage", "%s needs a value (see the comment at the top of lisa_eas_signals.c)", a);
		i++;
		if (!strcmp(a, "--out")) out = v;
		else if (!strcmp(a, "--summary")) summary = v;
		else if (!strcmp(a, "--signals")) mask = parse_signals(v);
		else if (!strcmp(a, "--ringbuf-kb")) ringbuf_kb = atol(v);
		else if (!strcmp(a, "--drain-ms")) drain_ms = atol(v);
		else if (!strcmp(a, "--duration")) duration = atof(v);
		else if (!strcmp(a, "--pid")) {
			if (npids == 4096)
				die("usage", "at most 4096 --pid");
			pidv[npids++] = atoi(v);
		} else
			die("usage", "unknown option %s", a);
	}
	if (!out && !check)
		die("usage", "--out FILE is required");
	if (ringbuf_kb < 64 || (ringbuf_kb & (ringbuf_kb - 1)) || ringbuf_kb > (1 << 21))
		die("usage", "--ringbuf-kb must be a power of two between 64 and 2097152 (got %ld)",
		    ringbuf_kb);
	if (drain_ms < 1)
		drain_ms = 1;
	libbpf_set_print(silent_print);
	check_kernel(mask);
	ncpu = libbpf_num_possible_cpus();

	skel = kernel_signals_bpf__open();
	if (!skel)
		bpf_error("opening the BPF object", errno);
	skel->rodata->signals_mask = mask;
	skel->rodata->task_only = task_only;
	skel->rodata->root_only = root_only;
	skel->rodata->filter_pids = npids > 0;
	bpf_map__set_max_entries(skel->maps.events, (uint32_t)ringbuf_kb * 1024);
	for (int k = 0; k < KS_NR_KINDS; k++) {
		struct bpf_program *progs[KS_NR_KINDS] = {
			skel->progs.ks_pelt_se, skel->progs.ks_pelt_cfs, skel->progs.ks_pelt_rt,
			skel->progs.ks_pelt_dl, skel->progs.ks_pelt_irq, skel->progs.ks_util_est_se,
			skel->progs.ks_util_est_cfs, skel->progs.ks_overutilized,
			skel->progs.ks_cpu_capacity};
		bpf_program__set_autoload(progs[k], !!(mask & (1u << k)));
		bpf_program__set_autoattach(progs[k], !!(mask & (1u << k)));
	}
	err = kernel_signals_bpf__load(skel);
	if (err)
		bpf_error("loading the BPF programs", err);
	for (int i = 0; i < npids; i++) {
		uint8_t one = 1;

		bpf_map_update_elem(bpf_map__fd(skel->maps.pids), &pidv[i], &one, BPF_ANY);
	}
	if (check) {
		kernel_signals_bpf__destroy(skel);
		printf("ok\n");
		return 0;
	}
	out_fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out_fd < 0)
		die("io", "%s: %s", out, strerror(errno));
	{
		/* header: magic, version, record size, possible CPUs, mono/realtime at start */
		uint8_t hdr[64] = "LEKSIG\0\0";
		uint32_t v[4] = {KS_FORMAT_VERSION, sizeof(struct ks_record), (uint32_t)ncpu, 0};
		uint64_t clocks[2] = {now_ns(CLOCK_MONOTONIC), now_ns(CLOCK_REALTIME)};

		memcpy(hdr + 8, v, sizeof(v));
		memcpy(hdr + 24, clocks, sizeof(clocks));
		write_all(hdr, sizeof(hdr));
	}
	buf_cap = 4 << 20;
	buf = malloc(buf_cap);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_record, NULL, NULL);
	if (!buf || !rb)
		bpf_error("creating the ring buffer reader", errno);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGHUP, on_signal);
	err = kernel_signals_bpf__attach(skel);
	if (err)
		bpf_error("attaching to the tracepoints", err);
	for (int k = 0; k < KS_NR_KINDS; k++)
		if (mask & (1u << k))
			snprintf(attached + strlen(attached), sizeof(attached) - strlen(attached),
				 "%s\"%s\"", attached[0] ? ", " : "", tp_names[k]);
	t0 = now_ns(CLOCK_MONOTONIC);
	last_summary = t0;
	write_summary(summary, skel, "running", mask, ncpu, t0, attached);
	while (!stop) {
		struct timespec d = {drain_ms / 1000, (drain_ms % 1000) * 1000000L};
		uint64_t now;

		nanosleep(&d, NULL);
		ring_buffer__consume(rb);
		flush_records();
		now = now_ns(CLOCK_MONOTONIC);
		if (duration > 0 && now - t0 >= (uint64_t)(duration * 1e9))
			break;
		if (now - last_summary >= 1000000000ull) {
			write_summary(summary, skel, "running", mask, ncpu, t0, attached);
			last_summary = now;
		}
	}
	/* detach first, then drain what is left */
	kernel_signals_bpf__detach(skel);
	ring_buffer__consume(rb);
	flush_records();
	if (fsync(out_fd) && errno != EINVAL)
		die("io", "%s: %s", out, strerror(errno));
	close(out_fd);
	write_summary(summary, skel, stop ? "stopped" : "complete", mask, ncpu, t0, attached);
	ring_buffer__free(rb);
	kernel_signals_bpf__destroy(skel);
	free(buf);
	return 0;
}
