"""A progress bar of a run's phases, in a terminal and in a notebook (``tqdm.auto``)."""
from __future__ import annotations

import contextlib
import threading
from typing import Iterator, Sequence

__all__ = ["PhaseProgress"]


class PhaseProgress:
    """One tick per phase; the description names the phase under way.

    Parameters
    ----------
    phases : sequence of str
        The phases, in order (their count is the bar's total).
    enabled : bool or None
        True/False force the bar on/off; None shows it only on a terminal or notebook.
    desc : str
        Prefix of the description (the target's name).
    """

    def __init__(self, phases: Sequence[str], enabled: bool | None = None, desc: str = "",
                 file=None, tick_s: float = 1.0) -> None:
        from tqdm.auto import tqdm

        self.desc = desc
        self.bar = tqdm(total=len(phases), unit="phase", desc=desc, leave=True, file=file,
                        disable=None if enabled is None else not enabled,
                        bar_format="{desc}: {n_fmt}/{total_fmt} |{bar}| {elapsed}")
        # tqdm redraws only on updates: a ticker keeps the elapsed time moving in long phases
        self._stop = threading.Event()
        self._ticker = None
        if not self.bar.disable:
            self._ticker = threading.Thread(target=self._tick, args=(tick_s,), daemon=True,
                                            name="lisa-eas-progress")
            self._ticker.start()

    def _tick(self, tick_s: float) -> None:
        while not self._stop.wait(tick_s):
            try:
                self.bar.refresh()
            except Exception:  # noqa: BLE001 - a closed bar or stream: stop ticking
                return

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self.bar.set_description_str(f"{self.desc}: {name}" if self.desc else name)
        yield
        self.bar.update(1)

    def skip(self, name: str) -> None:
        """Count a phase that was already complete (resume)."""
        self.bar.update(1)

    def note(self, text: str) -> None:
        self.bar.set_postfix_str(text, refresh=True)

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2.0)
        self.bar.close()
