#!/usr/bin/env python3
"""Generate the rt-app workloads of the published experiments (see README.md here).

    python workloads/generate.py           # (re)write every file
    python workloads/generate.py --check   # exit 1 if a committed file differs

The files are built by ``lisa_eas.repro.workloads`` (the same calls the reproductions make,
from the ``lisa_eas.rtapp`` builders); tests/test_rtapp_workloads.py
checks that regenerating gives exactly the committed files.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lisa_eas.repro.workloads import (SCHEDFREQ_CASES, eas_rfc_energy, eas_speedup_ramp,
                                     ramp_boost_step, schedfreq_case, smoke_local)

HERE = Path(__file__).resolve().parent


def build_all() -> dict[str, str]:
    """Relative path -> JSON text of every generated workload."""
    out = {"eas_speedup_ramp.json": eas_speedup_ramp().to_json(),
           "ramp_boost_step.json": ramp_boost_step().to_json(),
           "smoke_local.json": smoke_local().to_json()}
    for board in ("hikey960", "juno_r0"):
        for n in (10, 20, 30, 40, 50):
            out[f"eas_rfc_energy/{board}_n{n}.json"] = eas_rfc_energy(board, n).to_json()
    for i, (busy, idle, loops) in enumerate(SCHEDFREQ_CASES, 1):
        for rt in (False, True):
            out[f"schedfreq/case{i:02d}_{'rt' if rt else 'cfs'}.json"] = \
                schedfreq_case(busy, idle, loops, rt).to_json()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    args = ap.parse_args(argv)
    files = build_all()
    differ = []
    for rel, text in files.items():
        p = HERE / rel
        if args.check:
            if not p.is_file() or p.read_text() != text:
                differ.append(rel)
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    if args.check:
        for rel in differ:
            print(f"differs: workloads/{rel}", file=sys.stderr)
        return 1 if differ else 0
    print(f"wrote {len(files)} workloads under {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
