"""What every benchmark script shares: the timer, peak memory, the machine, results files.

Scripts import it as ``import bench_common`` (``benchmarks/`` is on
``sys.path`` when a script runs from it, or through ``run.py``); the data
generators are in ``bench_data.py``.

* **Timer.** :func:`time_call` times one call (wall clock with
  ``time.perf_counter`` and this process's CPU time with
  ``time.process_time``). :func:`alternate` runs several contenders in
  turn, round after round, so that each sees the same minutes of a shared
  machine; its :class:`Timings` give the fastest, median and slowest run,
  in wall and CPU time.
* **Peak memory**, one probe per kind of process:

  - this process: :class:`PeakRSS` (a ``with`` block) frees what can be
    freed (``gc.collect``, ``malloc_trim(0)``), resets the peak resident
    set size ``VmHWM`` to the current RSS (writing ``5`` to
    ``/proc/self/clear_refs``, Linux >= 4.0) and reports the extra peak
    over the RSS before the block. It sees every allocator (numpy, Python,
    C++, torch). Where the reset is refused, the growth of ``ru_maxrss``
    during the block stands in (a lower bound; ``reset`` says which);
  - numpy's allocations alone: :class:`TracedPeak` (``tracemalloc``'s peak
    over the block, untouched pages included);
  - a command in a fresh process: :func:`run_command`, which starts it
    under ``/usr/bin/time`` (its ``%M``: the command's own peak RSS) and
    reaps it with ``os.wait4`` (that one child's CPU time). A child forked
    straight from Python would not do for the peak: Linux carries the
    forking process's peak RSS into the child's ``ru_maxrss`` across
    ``exec``, so a small tool would be charged this interpreter's memory;
    ``/usr/bin/time`` is a small process to fork from. Without it, the
    child's ``ru_maxrss`` is reported (an upper bound; ``peak_exact`` says
    which).
* **Results.** :func:`write_json` writes a results file, :func:`append_results`
  appends a markdown section to ``benchmarks/RESULTS.md``, and
  :func:`add_results_options` gives a script the ``--json`` / ``--append``
  options that call them; :func:`machine` and :func:`versions` describe
  where a run was made.
"""

import ctypes
import gc
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS_MD = HERE / "RESULTS.md"
OUT = HERE / "out"  # git-ignored: every script's default output folder


# -- the timer ---------------------------------------------------------------------
def time_call(func, *args, **kwargs):
    """One call: ``(wall seconds, CPU seconds of this process, returned value)``."""
    start_cpu = time.process_time()
    start = time.perf_counter()  # the wall clock brackets the call alone
    value = func(*args, **kwargs)
    wall = time.perf_counter() - start
    return wall, time.process_time() - start_cpu, value


@dataclass
class Timings:
    """The runs of one contender: wall-clock and CPU seconds, in run order."""

    wall: list = field(default_factory=list)
    cpu: list = field(default_factory=list)

    def add(self, wall, cpu=float("nan")):
        self.wall.append(wall)
        self.cpu.append(cpu)

    @property
    def best(self):
        """The fastest run: the least disturbed on a shared machine."""
        return min(self.wall)

    @property
    def median(self):
        return statistics.median(self.wall)

    @property
    def worst(self):
        return max(self.wall)

    @property
    def cpu_best(self):
        return min(self.cpu)

    @property
    def cpu_median(self):
        return statistics.median(self.cpu)

    def spread(self):
        """'median (fastest–slowest)', for a printed table."""
        return f"{self.median:.3f} ({self.best:.3f}–{self.worst:.3f})"

    def as_dict(self):
        return {"wall": self.wall, "cpu": self.cpu, "best": self.best,
                "median": self.median, "worst": self.worst}


def alternate(contenders, repeats, *, after=None):
    """Run every contender once per round, in turn, for ``repeats`` rounds.

    ``contenders`` maps a name to a function of no argument. ``after(name,
    value)`` is called after each run with what the function returned (to
    keep a result or a count). Returns ``{name: Timings}``.
    """
    timings = {name: Timings() for name in contenders}
    for _ in range(repeats):
        for name, func in contenders.items():
            wall, cpu, value = time_call(func)
            timings[name].add(wall, cpu)
            if after is not None:
                after(name, value)
            del value
    return timings


# -- peak memory ---------------------------------------------------------------------
def _libc():
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc
        return None


_LIBC = _libc()


def status_kib(key, pid="self"):
    """A ``kB`` field of ``/proc/<pid>/status`` (``VmRSS``, ``VmHWM``), or None."""
    try:
        with open(f"/proc/{pid}/status") as status:
            match = re.search(rf"^{key}:\s+(\d+) kB", status.read(), re.MULTILINE)
    except OSError:
        return None
    return int(match.group(1)) if match else None


def settle():
    """Free what can be freed, and give the heap's free pages back to the OS."""
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def reset_peak_rss():
    """Reset VmHWM to the current RSS (Linux >= 4.0); False if unavailable."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
        return True
    except OSError:
        return False


def max_rss_bytes():
    """This process's peak RSS so far, in bytes.

    ``VmHWM`` of ``/proc/self/status``: the peak of this program's own memory
    (``ru_maxrss`` instead, where ``/proc`` is missing, which on Linux also
    counts the parent's memory when this process was started).
    """
    peak = status_kib("VmHWM")
    if peak is None:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return peak * 1024


class PeakRSS:
    """Extra peak resident memory of this process during a ``with`` block.

    After the block, ``extra`` is the peak RSS during the block minus the
    RSS before it, in bytes (``None`` if ``/proc`` cannot be read), and
    ``reset`` says whether the peak could be reset first; without the reset
    ``extra`` is the growth of the process's peak so far (a lower bound).

    Examples
    --------
    >>> import numpy as np
    >>> with PeakRSS() as probe:
    ...     _ = np.ones(10**7)  # 80 MB, touched
    >>> probe.extra > 60 * 2**20
    True
    """

    def __enter__(self):
        settle()
        self.reset = reset_peak_rss()
        if self.reset:
            self._base = status_kib("VmRSS")
            self._base = None if self._base is None else self._base * 1024
        else:
            self._base = max_rss_bytes()
        self.extra = None
        return self

    def __exit__(self, *exc):
        if self.reset:
            peak = status_kib("VmHWM")
            peak = None if peak is None else peak * 1024
        else:
            peak = max_rss_bytes()
        if peak is not None and self._base is not None:
            self.extra = max(peak - self._base, 0)
        return False


class TracedPeak:
    """Peak bytes numpy and Python allocated during a ``with`` block (tracemalloc).

    Starts tracemalloc if it is off (and stops it after). ``peak`` is in bytes,
    counted from what was traced when the block began.
    """

    def __enter__(self):
        self._started = not tracemalloc.is_tracing()
        if self._started:
            tracemalloc.start()
        settle()
        tracemalloc.reset_peak()
        self._current = tracemalloc.get_traced_memory()[0]
        self.peak = None
        return self

    def __exit__(self, *exc):
        self.peak = tracemalloc.get_traced_memory()[1] - self._current
        if self._started:
            tracemalloc.stop()
        return False


@dataclass
class CommandRun:
    """One command run by :func:`run_command`."""

    seconds: float  # wall clock, start to exit
    cpu_seconds: float  # user + system time of the child (and what it waited for)
    peak_rss_bytes: int  # the command's own peak RSS (see peak_exact)
    peak_exact: bool  # False: ru_maxrss, which counts the forking parent's memory
    returncode: int
    stdout: str
    stderr: str

    @property
    def peak_mb(self):
        return self.peak_rss_bytes / 2**20

    def last_json(self):
        """The JSON object printed on the last line of stdout."""
        return json.loads(self.stdout.strip().splitlines()[-1])


TIME = "/usr/bin/time"  # GNU time: -f %M is the peak RSS in KiB, -o its file


def run_command(command, *, env=None, timeout=None, check=True):
    """Run ``command`` in a fresh process: time, CPU time, peak RSS and output.

    The peak RSS is ``/usr/bin/time``'s (the command's own) when that program
    is there; the child is reaped with ``os.wait4`` for its CPU time. With
    ``check``, a non-zero exit raises RuntimeError with the end of stderr.
    """
    command = [str(part) for part in command]
    with tempfile.TemporaryDirectory() as tmp:
        peak_file = Path(tmp) / "peak"
        exact = os.access(TIME, os.X_OK)
        full = [TIME, "-f", "%M", "-o", str(peak_file), *command] if exact else command
        with open(Path(tmp) / "out", "w+b") as out, open(Path(tmp) / "err", "w+b") as err:
            start = time.perf_counter()
            child = subprocess.Popen(full, stdout=out, stderr=err, env=env)
            try:
                status, usage = _wait4(child.pid, timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                os.waitpid(child.pid, 0)
                child.returncode = -9
                raise
            seconds = time.perf_counter() - start
            child.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            stdout = out.read().decode(errors="replace")
            stderr = err.read().decode(errors="replace")
        peak = usage.ru_maxrss * 1024
        if exact:
            # the last line: GNU time writes "Command exited with non-zero
            # status N" before it when the command fails
            lines = peak_file.read_text().split() if peak_file.exists() else []
            if lines and lines[-1].isdigit():
                peak = int(lines[-1]) * 1024
            else:
                exact = False
        done = CommandRun(seconds, usage.ru_utime + usage.ru_stime, peak, exact,
                          child.returncode, stdout, stderr)
    if check and done.returncode:
        raise RuntimeError(f"{Path(command[0]).name} failed "
                           f"({done.returncode}): {done.stderr[-3000:]}")
    return done


def _wait4(pid, timeout):
    if timeout is None:
        _, status, usage = os.wait4(pid, 0)
        return status, usage
    deadline = time.monotonic() + timeout
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return status, usage
        if time.monotonic() > deadline:
            raise subprocess.TimeoutExpired(str(pid), timeout)
        time.sleep(0.01)


# -- where a run was made ------------------------------------------------------------
def machine():
    """CPU model, cores, memory, platform and Python of this machine."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as info:
            match = re.search(r"^model name\s*:\s*(.+)$", info.read(), re.MULTILINE)
            cpu = match.group(1).strip() if match else cpu
    except OSError:
        cpu = platform.processor() or platform.machine() or cpu
    memory = None
    try:
        with open("/proc/meminfo") as info:
            memory = int(re.search(r"MemTotal:\s+(\d+)", info.read()).group(1)) * 1024
    except (OSError, AttributeError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_bytes": memory,
            "platform": platform.platform(), "python": platform.python_version()}


VERSIONED = ("skrank", "numpy", "scipy", "scikit-learn", "pandas", "ranx", "numba",
             "pytrec-eval-terrier", "torch", "torchmetrics")


def versions(packages=VERSIONED):
    """Installed versions of ``packages``, and the skrank source with its git commit."""
    from importlib import metadata

    out = {}
    for name in packages:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    try:
        import skrank

        out["skrank_path"] = str(Path(skrank.__file__).parent)
        rev = subprocess.run(["git", "-C", out["skrank_path"], "rev-parse", "HEAD"],
                             capture_output=True, text=True)
        dirty = subprocess.run(
            ["git", "-C", out["skrank_path"], "status", "--porcelain", "--", "."],
            capture_output=True, text=True)
        if rev.returncode == 0:
            out["skrank_git"] = rev.stdout.strip() + ("+dirty" if dirty.stdout else "")
    except ImportError:
        pass
    return out


def command_line():
    """How this run was started, for a results file."""
    return " ".join([Path(sys.executable).name] + sys.argv)


# -- results files -------------------------------------------------------------------
def write_json(path, data):
    """Write ``data`` as indented JSON (numpy scalars as floats), making the folder."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, default=float))
    return path


def append_results(text, path=RESULTS_MD):
    """Append a markdown section (starting with its ``## `` title) to RESULTS.md."""
    with open(path, "a") as handle:
        handle.write("\n" + text.strip("\n") + "\n")


def add_results_options(parser, append=False):
    """``--json PATH`` and ``--append`` (or ``--no-append`` when ``append``)."""
    parser.add_argument("--json", type=Path, default=None,
                        help="also write the numbers to this JSON file")
    if append:
        parser.add_argument("--no-append", dest="append", action="store_false",
                            help="do not append the section to benchmarks/RESULTS.md")
    else:
        parser.add_argument("--append", action="store_true",
                            help="append the printed section to benchmarks/RESULTS.md")


def publish(args, text, data=None, *, echo=True, title=None, preformatted=False):
    """Print a script's figures, then save them as its options ask.

    ``text`` is printed unless ``echo`` is False (already printed line by
    line). With ``--json`` the ``data`` go to that file with the command and
    the machine; with ``--append`` the text goes to RESULTS.md, under a
    ``## title`` when given, and in a code block when ``preformatted``
    (plain-text tables).
    """
    if echo:
        print(text, flush=True)
    if getattr(args, "json", None) and data is not None:
        write_json(args.json, {"command": command_line(), "machine": machine(),
                               **data})
    if getattr(args, "append", False):
        body = f"```\n{text.strip(chr(10))}\n```" if preformatted else text
        append_results(f"## {title}\n\n{body}" if title else body)
