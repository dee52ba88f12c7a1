"""Field numbers of the Perfetto protos the reader and writer use, and the typed ftrace
events they map to trace.dat columns.

Facts taken from Perfetto's ``.proto`` files (google/perfetto @ ec5d16b14b,
``protos/perfetto/trace/``: ``trace_packet.proto``, ``ftrace/ftrace_event.proto``,
``ftrace/ftrace_event_bundle.proto``, ``ftrace/{sched,power,irq,ftrace,task,generic}.proto``,
``clock_snapshot.proto``, ``ps/process_tree.proto``, ``power/power_rails.proto``,
``power/battery_counters.proto``, ``system_info/cpu_info.proto``,
``track_event/{track_descriptor,counter_descriptor,track_event}.proto``).

Column names, order and dtypes are those a trace.dat of a 64-bit kernel gives the same
event (the kernel's ``TP_STRUCT__entry`` types), so both sources share one schema.
"""
from __future__ import annotations

import numpy as np

__all__ = ["FTRACE_EVENTS", "GENERIC_WIDTHS", "PACKET", "BUNDLE", "EVENT", "COMPACT", "kind_tables"]

# TracePacket
PACKET = {"ftrace_events": 1, "process_tree": 2, "trusted_uid": 3, "clock_snapshot": 6,
          "timestamp": 8, "process_stats": 9, "trusted_packet_sequence_id": 10,
          "track_event": 11, "interned_data": 12, "sequence_flags": 13, "ftrace_stats": 34,
          "trace_stats": 35, "battery": 38, "power_rails": 40, "incremental_state_cleared": 41,
          "previous_packet_dropped": 42, "system_info": 45, "compressed_packets": 50,
          "timestamp_clock_id": 58, "track_descriptor": 60, "cpu_info": 67,
          "zstd_compressed_packets": 133, "sys_stats": 7, "trace_config": 33,
          "synchronization_marker": 36, "perf_sample": 66, "service_event": 69}
PACKET_NAMES = {v: k for k, v in PACKET.items()}
# FtraceEventBundle
BUNDLE = {"cpu": 1, "event": 2, "lost_events": 3, "compact_sched": 4, "ftrace_clock": 5,
          "ftrace_timestamp": 6, "boot_timestamp": 7}
# FtraceEvent common fields and the generic event
EVENT = {"timestamp": 1, "pid": 2, "common_flags": 5, "generic": 327}
GENERIC = {"event_name": 1, "field": 2, "f_name": 1, "str_value": 3, "int_value": 4,
           "uint_value": 5}
# FtraceEventBundle.CompactSched
COMPACT = {"switch_timestamp": 1, "switch_prev_state": 2, "switch_next_pid": 3,
           "switch_next_prio": 4, "intern_table": 5, "switch_next_comm_index": 6,
           "waking_timestamp": 7, "waking_pid": 8, "waking_target_cpu": 9, "waking_prio": 10,
           "waking_comm_index": 11, "waking_common_flags": 12}

_I16, _I32, _U32, _I64, _U64 = "int16", "int32", "uint32", "int64", "uint64"
_WAKE = (("comm", 1, "str"), ("pid", 2, _I32), ("prio", 3, _I32), ("success", 4, _I32),
         ("target_cpu", 5, _I32))

# oneof field number in FtraceEvent -> (event name, ((column, proto field, type), ...),
# columns kept only when some event carries them)
FTRACE_EVENTS = {
    3: ("print", (("ip", 1, _U64), ("buf", 2, "str")), ()),
    4: ("sched_switch", (("prev_comm", 1, "str"), ("prev_pid", 2, _I32), ("prev_prio", 3, _I32),
                         ("prev_state", 4, _I64), ("next_comm", 5, "str"), ("next_pid", 6, _I32),
                         ("next_prio", 7, _I32)), ()),
    11: ("cpu_frequency", (("state", 1, _U32), ("cpu_id", 2, _U32)), ()),
    12: ("cpu_frequency_limits", (("min_freq", 1, _U32), ("max_freq", 2, _U32),
                                  ("cpu_id", 3, _U32)), ()),
    13: ("cpu_idle", (("state", 1, _U32), ("cpu_id", 2, _U32)), ()),
    17: ("sched_wakeup", _WAKE, ("success",)),
    18: ("sched_blocked_reason", (("pid", 1, _I32), ("caller", 2, _U64), ("io_wait", 3, _U32)),
         ()),
    19: ("sched_cpu_hotplug", (("affected_cpu", 1, _I32), ("error", 2, _I32),
                               ("status", 3, _I32)), ()),
    20: ("sched_waking", _WAKE, ("success",)),
    24: ("softirq_entry", (("vec", 1, _U32),), ()),
    25: ("softirq_exit", (("vec", 1, _U32),), ()),
    26: ("softirq_raise", (("vec", 1, _U32),), ()),
    36: ("irq_handler_entry", (("irq", 1, _I32), ("name", 2, "str")), ()),
    37: ("irq_handler_exit", (("irq", 1, _I32), ("ret", 2, _I32)), ()),
    113: ("suspend_resume", (("action", 1, "str"), ("val", 2, _I32), ("start", 3, _U32)), ()),
    114: ("sched_wakeup_new", _WAKE, ("success",)),
    235: ("task_newtask", (("pid", 1, _I32), ("comm", 2, "str"), ("clone_flags", 3, _U64),
                          ("oom_score_adj", 4, _I16)), ()),
    236: ("task_rename", (("pid", 1, _I32), ("oldcomm", 2, "str"), ("newcomm", 3, "str"),
                         ("oom_score_adj", 4, _I16)), ()),
    237: ("sched_process_exec", (("filename", 1, "str"), ("pid", 2, _I32), ("old_pid", 3, _I32)),
          ()),
    238: ("sched_process_exit", (("comm", 1, "str"), ("pid", 2, _I32), ("tgid", 3, _I32),
                                ("prio", 4, _I32)), ("tgid",)),
    239: ("sched_process_fork", (("parent_comm", 1, "str"), ("parent_pid", 2, _I32),
                                ("child_comm", 3, "str"), ("child_pid", 4, _I32)), ()),
    240: ("sched_process_free", (("comm", 1, "str"), ("pid", 2, _I32), ("prio", 3, _I32)), ()),
    241: ("sched_process_hang", (("comm", 1, "str"), ("pid", 2, _I32)), ()),
    242: ("sched_process_wait", (("comm", 1, "str"), ("pid", 2, _I32), ("prio", 3, _I32)), ()),
    341: ("thermal_temperature", (("thermal_zone", 1, "str"), ("id", 2, _I32),
                                 ("temp_prev", 3, _I32), ("temp", 4, _I32)), ()),
    353: ("sched_pi_setprio", (("comm", 1, "str"), ("pid", 4, _I32), ("oldprio", 3, _I32),
                              ("newprio", 2, _I32)), ()),
    491: ("sched_migrate_task", (("comm", 1, "str"), ("pid", 2, _I32), ("prio", 3, _I32),
                                ("orig_cpu", 4, _I32), ("dest_cpu", 5, _I32),
                                ("running", 6, _I32), ("load", 7, _U32)),
          ("running", "load")),
}
EVENT_FIELD = {name: fno for fno, (name, _, _) in FTRACE_EVENTS.items()}

# integer widths of events that reach the reader as generic ftrace events although they have
# a typed proto (a kernel whose event has a field the proto lacks: the writer keeps every
# field by writing the event generic, whose integers carry no width): the typed columns'
# types, and the extra fields' from the kernels' format files (sched_process_exit's
# ``group_dead``: ``bool``, size 1, unsigned, in the format file of the 6.18 kernel recorded
# by bench_ingest)
GENERIC_WIDTHS = {name: {col: typ for col, _, typ in cols if typ != "str"}
                  for name, cols, _ in FTRACE_EVENTS.values()}
GENERIC_WIDTHS["sched_process_exit"]["group_dead"] = "uint8"

_KIND_TABLE_SIZE = 1024


def kind_tables():
    """The numba kernel's lookup tables: ``(kinds, kind_of, col_of, col_str, k_ncols)``.

    ``kinds`` lists the oneof field numbers in kind order; ``kind_of[fno]`` is the kind of
    an event field number (-1 generic, -2 not decoded); ``col_of[kind, proto field]`` the
    column; ``col_str[kind, column]`` whether it is a string."""
    from ._pb_ftrace import MAX_COLS, MAX_FNO
    kinds = sorted(FTRACE_EVENTS)
    kind_of = np.full(_KIND_TABLE_SIZE, -2, np.int64)
    kind_of[EVENT["generic"]] = -1
    col_of = np.full((len(kinds), MAX_FNO), -1, np.int64)
    col_str = np.zeros((len(kinds), MAX_COLS), np.bool_)
    k_ncols = np.zeros(len(kinds), np.int64)
    for k, fno in enumerate(kinds):
        kind_of[fno] = k
        cols = FTRACE_EVENTS[fno][1]
        k_ncols[k] = len(cols)
        for c, (_, pf, typ) in enumerate(cols):
            col_of[k, pf] = c
            col_str[k, c] = typ == "str"
    return kinds, kind_of, col_of, col_str, k_ncols
