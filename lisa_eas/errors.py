"""The lisa_eas exception tree.

Every error lisa_eas raises on purpose derives from :class:`LisaEasError`, so a
notebook or a script can catch them all with one ``except`` clause, and each
message says what was wrong (file, line, field or value) and what to do::

    LisaEasError
    ├── ConfigError                  a configuration file or object is invalid
    │   └── PlatformError            a platform / energy-model description is invalid or unknown
    ├── WorkloadError                an rt-app workload cannot be read, built or validated
    ├── TraceError                   a trace cannot be read or decoded
    │   └── MissingTraceEventError   an analysis needs events the trace does not have
    ├── ModelError (also ValueError) a model was given arguments it cannot honour
    └── BoardError                   talking to a target board failed
        ├── TransientBoardError      worth retrying (connection dropped, timeout)
        └── PermanentBoardError      retrying will not help (wrong password, missing tool)

``ModelError`` also derives from :class:`ValueError` because it is raised for bad
argument values, where Python code conventionally expects ``ValueError``.
"""
from __future__ import annotations

__all__ = [
    "BoardError",
    "ConfigError",
    "LisaEasError",
    "MissingTraceEventError",
    "ModelError",
    "PermanentBoardError",
    "PlatformError",
    "TraceError",
    "TransientBoardError",
    "WorkloadError",
]


class LisaEasError(Exception):
    """Root of every exception lisa_eas raises on purpose."""


class ConfigError(LisaEasError):
    """A configuration file or configuration object is invalid."""


class PlatformError(ConfigError):
    """A platform description (topology, OPPs, energy model) is invalid or unknown."""


class WorkloadError(LisaEasError):
    """An rt-app workload cannot be read, built or validated."""


class TraceError(LisaEasError):
    """A trace cannot be read or decoded."""


class MissingTraceEventError(TraceError):
    """An analysis needs trace events that the trace does not contain.

    Parameters
    ----------
    missing : sequence of str
        The event names that are needed but absent.
    hint : str, optional
        How to record them (for example the ``lisa-eas run`` tracing option).
    """

    def __init__(self, missing, hint: str = ""):
        self.missing = tuple(sorted(missing))
        msg = "trace lacks the events " + ", ".join(self.missing)
        if hint:
            msg += f"; {hint}"
        super().__init__(msg)


class ModelError(LisaEasError, ValueError):
    """A model was given arguments it cannot honour (out of range, unsorted, unknown era)."""


class BoardError(LisaEasError):
    """Talking to a target board failed.

    ``transient`` says whether retrying may help (dropped connection, timeout) or not
    (wrong password, missing tool, permission denied).
    """

    transient: bool = False


class TransientBoardError(BoardError):
    """A board failure worth retrying: dropped connection, timeout, busy device."""

    transient = True


class PermanentBoardError(BoardError):
    """A board failure that retrying will not fix: bad credentials, missing tool, no permission."""

    transient = False
