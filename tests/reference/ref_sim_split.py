"""Plain-Python twin of lisa_eas/_kernels/sim_split.py: the event rows grouped by kind, in
order, as lists (no index arithmetic)."""
from __future__ import annotations


def split_rows_by_kind(rows, kind_col: int, nkinds: int) -> list[list[list[int]]]:
    groups: list[list[list[int]]] = [[] for _ in range(nkinds)]
    for row in rows:
        groups[int(row[kind_col])].append([int(v) for v in row])
    return groups
