"""Generic ftrace events of a Perfetto trace (``GenericFtraceEvent``, field 327 of
``FtraceEvent``: event_name 1, field 2 {name 1, str_value 3, int_value 4, uint_value 5};
where GKI kernels put vendor events such as PELT and util_est) decoded by their field
names into columns, and the helpers that build the reader's columns.

Generic fields carry no width: integers come back as int64 (uint64 for ``uint_value``),
strings as categoricals, and strings that are all float literals (the writer's encoding of
float columns) as float64.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

from . import _decode
from . import _pb_ftrace as F
from ._columns import SpanInterner, _categorical, empty_small_pages
from ._pb_wire import ERR_NAMES
from ._pbsmall import PbError, fields, signed64
from ._perfetto_schema import GENERIC_WIDTHS

__all__ = ["generic_frames", "strings", "concat"]


def strings(buf, starts, lens, strip_newline=False) -> pd.Categorical:
    n = len(starts)
    it = SpanInterner(n, stop_at_nul=False, strip_newline=strip_newline)
    if n:
        it.add(buf, 0, np.ascontiguousarray(starts, np.int64),
               np.maximum(np.ascontiguousarray(lens, np.int64), 0))
    return it.categorical()



def generic_frames(buf, gen, frames: dict, fail) -> None:
    """Generic ftrace events (spans from the bundle decode) added to ``frames`` (name ->
    (ts, columns, cpu, pid)): decoded in numba; the events of one name that share one
    field layout become columns at once, others go through the Python decoder. ``fail(reason,
    offset, detail)`` reports what does not decode."""
    gen = np.ascontiguousarray(gen)
    # rows for the most fields the events can hold: only those written become resident
    flds = empty_small_pages(F.generic_field_bound(gen) * 6, np.int64).reshape(-1, 6)
    ev, total = F.decode_generic(buf, gen, flds)
    flds = flds[:total]
    bad = np.nonzero(ev[:, 7] != 0)[0]
    if len(bad):
        fail("corrupt_generic_event", int(gen[bad[0], 0]),
             f"{ERR_NAMES[int(ev[bad[0], 7])]}; {len(bad)} event(s) dropped")
    good = np.nonzero((ev[:, 7] == 0) & (ev[:, 3] >= 0))[0]
    if not len(good):
        return
    codes = np.empty(len(good), np.int32)
    rs, rl = _decode.intern_strings(buf, np.ascontiguousarray(ev[good, 3]),
                                    np.ascontiguousarray(ev[good, 4]), False, False, codes)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(rs) + 1))
    slow = []
    for c in range(len(rs)):
        idx = good[order[bounds[c]:bounds[c + 1]]]
        name = bytes(buf[rs[c]:rs[c] + rl[c]]).decode("utf-8", "replace")
        if not F.same_layout(buf, ev, flds, idx):
            slow.append(idx)
            continue
        f0 = ev[idx, 5]
        first = int(f0[0])
        cols = {}
        for j in range(int(ev[idx[0], 6])):
            at = f0 + j             # this field's row of every event: one column gathered
            fs, fl = int(flds[first + j, 0]), int(flds[first + j, 1])
            fname = bytes(buf[fs:fs + fl]).decode("utf-8", "replace")
            kind = int(flds[first + j, 2])
            if kind == 4:
                cols[fname] = flds[at, 3]
            elif kind == 5:
                cols[fname] = flds[at, 3].view(np.uint64)
            else:
                cols[fname] = _float_cats(strings(buf, flds[at, 4], flds[at, 5]))
        item = (ev[idx, 0].copy(), _widths(name, cols), ev[idx, 2].astype(np.int32),
                ev[idx, 1].astype(np.int32))
        frames[name] = concat(frames[name], item) if name in frames else item
    if slow:
        _generic_slow(buf, gen[np.sort(np.concatenate(slow))], frames, fail)


def _generic_slow(buf, gen, frames: dict, fail) -> None:
    rows = defaultdict(lambda: {"ts": [], "cpu": [], "pid": [], "f": defaultdict(dict), "n": 0})
    bad = 0
    first = -1
    for s, ln, cpu, off in gen.tolist():
        data = bytes(buf[s:s + ln])
        try:
            ts = pid = 0
            name = None
            flds = {}
            for f, w, v in fields(data):
                if f == 1 and w == 0:
                    ts = v
                elif f == 2 and w == 0:
                    pid = v
                elif f == 327 and w == 2:
                    for g, w2, u in fields(v):
                        if g == 1 and w2 == 2:
                            name = u.decode("utf-8", "replace")
                        elif g == 2 and w2 == 2:
                            fname, val = None, None
                            for h, w3, x in fields(u):
                                if h == 1 and w3 == 2:
                                    fname = x.decode("utf-8", "replace")
                                elif h == 3 and w3 == 2:
                                    val = ("s", x.decode("utf-8", "replace"))
                                elif h == 4 and w3 == 0:
                                    val = ("i", signed64(x))
                                elif h == 5 and w3 == 0:
                                    val = ("u", x)
                            if fname is not None and val is not None:
                                flds[fname] = val
        except PbError as exc:
            bad += 1
            first = s + exc.offset if first < 0 else first
            continue
        if not name:
            continue
        r = rows[name]
        i = r["n"]
        r["ts"].append(ts + off)
        r["cpu"].append(cpu)
        r["pid"].append(pid)
        for fname, val in flds.items():
            r["f"][fname][i] = val
        r["n"] = i + 1
    if bad:
        fail("corrupt_generic_event", first)
    for name, r in rows.items():
        n = r["n"]
        cols = {}
        for fname, d in r["f"].items():
            kinds = {k for k, _ in d.values()}
            if kinds == {"s"}:
                vals = [d.get(i, ("s", ""))[1] for i in range(n)]
                cols[fname] = _float_or_text(vals)
            elif kinds == {"u"}:
                cols[fname] = np.array([d.get(i, ("u", 0))[1] for i in range(n)], np.uint64)
            elif "s" not in kinds:
                cols[fname] = np.array([d.get(i, ("i", 0))[1] for i in range(n)], np.int64)
            else:
                cols[fname] = pd.Categorical([str(d[i][1]) if i in d else "" for i in range(n)])
        item = (np.array(r["ts"], np.int64), _widths(name, cols), np.array(r["cpu"], np.int32),
                np.array(r["pid"], np.int32))
        frames[name] = concat(frames[name], item) if name in frames else item


def _widths(name: str, cols: dict) -> dict:
    """The integer columns of a generic event whose kernel types are known
    (:data:`GENERIC_WIDTHS`) at those types, when every value fits (else left as decoded)."""
    want = GENERIC_WIDTHS.get(name)
    if not want:
        return cols
    for c, typ in want.items():
        v = cols.get(c)
        if not isinstance(v, np.ndarray) or v.dtype.kind not in "iu" or v.dtype == typ:
            continue
        info = np.iinfo(typ)
        if not len(v) or (int(v.min()) >= info.min and int(v.max()) <= info.max):
            cols[c] = v.astype(typ)
    return cols


def _float_cats(cat: pd.Categorical):
    """A categorical whose every category is a float literal (see :func:`_float_or_text`)
    as float64."""
    cats = [str(c) for c in cat.categories]
    conv = _float_or_text(cats)
    if isinstance(conv, np.ndarray) and len(cats):
        return conv[np.asarray(cat.codes)]
    return cat


def _float_or_text(vals: list):
    """float64 when every value is a float literal with a point, exponent, nan or inf (the
    writer's encoding of float fields, generic events having no double), else text."""
    try:
        if vals and all(("." in v or "e" in v or "n" in v) and v.strip() == v for v in vals):
            return np.array([float(v) for v in vals], np.float64)
    except ValueError:
        pass
    return pd.Categorical(vals)


def concat(a, b):
    ts = np.concatenate([a[0], b[0]])
    cols = {}
    for c in dict.fromkeys(list(a[1]) + list(b[1])):
        x, y = a[1].get(c), b[1].get(c)
        n1, n2 = len(a[0]), len(b[0])
        if x is None:
            x = _blank(y, n1)
        if y is None:
            y = _blank(x, n2)
        if isinstance(x, pd.Categorical) or isinstance(y, pd.Categorical):
            x = x if isinstance(x, pd.Categorical) else pd.Categorical(np.asarray(x).astype(str))
            y = y if isinstance(y, pd.Categorical) else pd.Categorical(np.asarray(y).astype(str))
            cats = list(dict.fromkeys([str(v) for v in x.categories] +
                                      [str(v) for v in y.categories]))
            pos = {v: i for i, v in enumerate(cats)}
            mx = np.array([pos[str(v)] for v in x.categories] or [0], np.int32)
            my = np.array([pos[str(v)] for v in y.categories] or [0], np.int32)
            cols[c] = _categorical(np.concatenate([mx[np.asarray(x.codes)],
                                                   my[np.asarray(y.codes)]]), cats)
        else:
            cols[c] = np.concatenate([x, y])
    return (ts, cols, np.concatenate([a[2], b[2]]).astype(np.int32),
            np.concatenate([a[3], b[3]]).astype(np.int32))


def _blank(like, n):
    if isinstance(like, pd.Categorical):
        return pd.Categorical([""] * n)
    return np.zeros(n, like.dtype)
