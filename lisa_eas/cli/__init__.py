"""The ``lisa-eas`` command.

Each sub-command lives in its own module ``lisa_eas/cli/_<name>.py`` defining
``register(subparsers)``, which adds its parser and sets ``func`` to a callable
taking the parsed arguments and returning an exit code.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import LisaEasError

__all__ = ["main"]

# Sub-command -> the module registering it, in the order `lisa-eas --help` lists them.
_COMMANDS = {
    "platforms": "_platforms",
    "platform": "_platform_fit",
    "model": "_model",
    "run": "_run",
    "signals": "_signals",
    "simulate": "_simulate",
    "vs-sim": "_vs_sim",
    "target": "_target",
    "trace": "_trace",
    "validate": "_validate",
    "check": "_check",
    "compare": "_compare",
    "workload": "_workload",
    "reproduce": "_reproduce",
    "demo": "_demo",
}
_COMMAND_MODULES = tuple(_COMMANDS.values())


def _command_of(argv: list[str] | None) -> str | None:
    """The sub-command ``argv`` names (its first word), when it is a known one."""
    words = sys.argv[1:] if argv is None else argv
    if words and words[0] in _COMMANDS:
        return words[0]
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``lisa-eas`` parser; with ``command``, only that sub-command's parser is registered
    (start-up: a command does not import what the other commands need)."""
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="lisa-eas",
        description="Models of Linux EAS/SIS/schedutil decisions, held against real traces.")
    parser.add_argument("--version", action="version", version=f"lisa-eas {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for mod in ([_COMMANDS[command]] if command else _COMMAND_MODULES):
        importlib.import_module(f"{__name__}.{mod}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``lisa-eas`` console script; returns the exit code."""
    parser = build_parser(_command_of(argv))
    args = parser.parse_args(argv)      # usage errors: argparse prints one line and exits 2
    try:
        return int(args.func(args) or 0)
    except LisaEasError as exc:
        # a command's options table (set_defaults(option_names=...)): the message names the
        # option the user typed, not the dataclass field or argument behind it
        from ._errors import option_names
        return _fail(option_names(str(exc), getattr(args, "option_names", None) or {}))
    except BrokenPipeError:  # `lisa-eas ... | head`
        return 0
    except OSError as exc:   # an --out that is a file, read-only, in /proc, a full disk...
        from ._errors import os_error_message
        return _fail(os_error_message(exc))
    except KeyboardInterrupt as exc:   # a run's RunInterrupted says what it kept
        print(f"lisa-eas: {exc}" if str(exc) else "lisa-eas: interrupted", file=sys.stderr)
        return 130
    except SystemExit as exc:
        if isinstance(exc.code, str):   # a command's own usage message
            return _fail(exc.code.removeprefix("lisa-eas: ").removeprefix("lisa-eas "))
        raise


def _fail(message: str) -> int:
    """Print ``message`` as the one error line and return the exit status 2."""
    print(f"lisa-eas: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
