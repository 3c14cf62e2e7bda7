"""Warnings that stay with the thread that raised them.

Python's warning filters and its ``showwarning`` hook belong to the process (before Python
3.14's context-aware warnings): ``warnings.catch_warnings`` saves and restores them, so two
threads that enter and leave it out of order leave each other's state behind. A study's
cells run in threads under ``backend="threading"`` and on a dask worker's threads;
:data:`RECORDED` records each thread's warnings apart, and :func:`quietly`, the package's
way of silencing the warnings of an inner fit, silences them for its own thread only while
any thread records (filter entries of its own otherwise). Both put in and take out their
own entries of the process's filter list, not a copy of the whole list, so that threads
that leave out of order leave the list as they found it.
"""

import warnings
from contextlib import contextmanager


def _insert_filter(action, category):
    """Put one filter entry in front of the process's list and return it with that list:
    an entry of its own (not ``simplefilter``'s, which merges equal entries), so that
    :func:`_remove_filter` takes out this one and no other thread's, in whatever order the
    threads leave."""
    entry, home = (action, None, category, None, 0), warnings.filters
    home.insert(0, entry)
    _filters_changed()
    return entry, home


def _remove_filter(placed):
    """Take an entry of :func:`_insert_filter` out of the list it was put in, and out of
    the current one when another thread's ``catch_warnings`` has put a copy in its place
    meanwhile (which restores the first list, the entry left out, when it ends)."""
    entry, home = placed
    for filters in (home, warnings.filters) if warnings.filters is not home else (home,):
        for index, present in enumerate(filters):
            if present is entry:
                del filters[index]
                break
    _filters_changed()


def _filters_changed():
    """What ``simplefilter`` does after changing the list: the modules' caches of shown
    warnings are read again."""
    changed = getattr(warnings, "_filters_mutated", None) or getattr(
        warnings, "_filters_mutated_lock_held", None)
    if changed is not None:
        changed()


class ThreadWarnings:
    """Each thread's warnings, recorded while it runs a cell. While any thread records,
    every warning is shown (an "always" entry in front of the filters, as
    ``catch_warnings(record=True)`` with ``simplefilter("always")`` made it) and the hook
    appends it to the list of the thread that raised it (a thread that records nothing
    shows it as before); the first thread in puts the entry and the hook in, the last one
    out takes out that entry alone and puts the hook back: ``catch_warnings`` would
    restore the whole list as it found it, another thread's entries of that moment
    included. While it is active, :func:`quietly` drops its thread's warnings of the
    categories it names, in the hook."""

    def __init__(self):
        import threading

        self.lock, self.local = threading.Lock(), threading.local()
        self.active, self.entry, self.shown = 0, None, None

    def show(self, message, category, filename, lineno, file=None, line=None):
        if issubclass(category, getattr(self.local, "quiet", ())):  # :func:`quietly`
            return
        caught = getattr(self.local, "caught", None)
        if caught is None:
            self.shown(message, category, filename, lineno, file, line)
        else:
            caught.append(warnings.WarningMessage(message, category, filename, lineno, file,
                                                  line))

    def join(self, quiet=()):
        """One participant more (the first puts the entry and the hook in). With ``quiet``
        categories (:func:`quietly`), a thread joins only when another one is in, and
        otherwise puts "ignore" entries of its own in front, in the same step (a recorder
        that starts between would have its entry behind them). Returns whether it joined
        and the entries it put."""
        with self.lock:
            if self.active == 0:
                if quiet:
                    return False, [_insert_filter("ignore", category) for category in quiet]
                if warnings.showwarning != self.show:  # a catch_warnings put it back
                    self.shown = warnings.showwarning
                self.entry = _insert_filter("always", Warning)
                warnings.showwarning = self.show
            self.active += 1
            return True, []

    def leave(self):
        """One participant fewer; the last one takes the entry out and the hook back."""
        with self.lock:
            self.active -= 1
            if self.active == 0:
                _remove_filter(self.entry)
                if warnings.showwarning == self.show:  # not replaced meanwhile
                    warnings.showwarning = self.shown

    def __enter__(self):
        self.join()
        outer = getattr(self.local, "stack", [])  # a cell within a cell: its own list
        self.local.stack = [*outer, getattr(self.local, "caught", None)]
        self.local.caught = []
        return self.local.caught

    def __exit__(self, *exc):
        self.local.caught = self.local.stack.pop()
        self.leave()
        return False


RECORDED = ThreadWarnings()


@contextmanager
def quietly(*categories):
    """Silence the warnings of ``categories`` (all by default) in this block, in this thread:
    by a per-thread list :data:`RECORDED`'s hook reads while any thread records (joining
    it, so that its hook stays while the block needs it), and by "ignore" entries of its
    own in front of the filters while none does, taken out alone when the block ends (a
    recorder that starts meanwhile reads the per-thread list)."""
    categories = categories or (Warning,)
    local = RECORDED.local
    outer = getattr(local, "quiet", ())
    local.quiet = (*outer, *categories)
    joined, entries = RECORDED.join(quiet=categories)
    try:
        yield
    finally:
        with RECORDED.lock:
            for entry in entries:
                _remove_filter(entry)
        local.quiet = outer
        if joined:
            RECORDED.leave()
