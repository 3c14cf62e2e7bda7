"""Warnings that stay with the thread that raised them.

Python's warning filters and its ``showwarning`` hook belong to the process (before Python
3.14's context-aware warnings): ``warnings.catch_warnings`` saves and restores them, so two
threads that enter and leave it out of order leave each other's state behind. A study's
cells run in threads under ``backend="threading"`` and on a dask worker's threads;
:data:`RECORDED` records each thread's warnings apart, and :func:`quietly`, the package's
way of silencing the warnings of an inner fit, silences them for its own thread only while
any thread records (``warnings.catch_warnings`` otherwise). A thread that silences
warnings while no thread records, and goes on while one starts, still changes the filters
of the process as ``catch_warnings`` does; a study's cells, where the package's fits run,
always record.
"""

import warnings
from contextlib import contextmanager


class ThreadWarnings:
    """Each thread's warnings, recorded while it runs a cell: ``warnings.catch_warnings``
    swaps the process's filters and hook, so cells run in threads (``backend="threading"``,
    a dask worker's threads) attributed warnings to each other's rows. While any thread
    records, every warning is shown ("always", as ``catch_warnings(record=True)`` made it)
    and the hook appends it to the list of the thread that raised it (a thread that records
    nothing shows it as before); the first thread in saves the process's warning state
    (``catch_warnings``), the last one out restores it. While it is active, :func:`quietly`
    drops its thread's warnings of the categories it names here, in the hook."""

    def __init__(self):
        import threading

        self.lock, self.local = threading.Lock(), threading.local()
        self.active, self.saved, self.shown = 0, None, None

    def show(self, message, category, filename, lineno, file=None, line=None):
        if issubclass(category, getattr(self.local, "quiet", ())):  # :func:`quietly`
            return
        caught = getattr(self.local, "caught", None)
        if caught is None:
            self.shown(message, category, filename, lineno, file, line)
        else:
            caught.append(warnings.WarningMessage(message, category, filename, lineno, file,
                                                  line))

    def __enter__(self):
        with self.lock:
            if self.active == 0:
                self.saved = warnings.catch_warnings()
                self.saved.__enter__()
                self.shown = warnings.showwarning
                warnings.simplefilter("always")
                warnings.showwarning = self.show
            self.active += 1
        outer = getattr(self.local, "stack", [])  # a cell within a cell: its own list
        self.local.stack = [*outer, getattr(self.local, "caught", None)]
        self.local.caught = []
        return self.local.caught

    def __exit__(self, *exc):
        self.local.caught = self.local.stack.pop()
        self.leave()
        return False

    def leave(self):
        """One participant fewer; the last one restores the process's warning state."""
        with self.lock:
            self.active -= 1
            if self.active == 0:
                self.saved.__exit__(None, None, None)


RECORDED = ThreadWarnings()


@contextmanager
def quietly(*categories):
    """Silence the warnings of ``categories`` (all by default) in this block, in this thread:
    while :data:`RECORDED` records any thread, by a per-thread list its hook reads, so that
    other threads' filters and records stay as they are; otherwise by
    ``warnings.catch_warnings`` and ``simplefilter("ignore", category)``."""
    categories = categories or (Warning,)
    with RECORDED.lock:  # joined, the hook stays while this block needs it
        joined = RECORDED.active > 0
        if joined:
            RECORDED.active += 1
    if joined:
        local = RECORDED.local
        outer = getattr(local, "quiet", ())
        local.quiet = (*outer, *categories)
        try:
            yield
        finally:
            local.quiet = outer
            RECORDED.leave()
        return
    with warnings.catch_warnings():
        for category in categories:
            warnings.simplefilter("ignore", category)
        yield
