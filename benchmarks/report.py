"""Wall time of the whole ``contentseen-report N M`` command, process start included.

    python3 benchmarks/report.py [--runs 9] [--baseline-runs 5]

Copies the four course files (from $CONTENTSEEN_ASSIGNMENT_DIR, else ../shared/assignment beside
the checkout) into a temporary directory and runs there, as fresh processes,

* ``python -m contentseen.cli.report N M`` (this checkout, via PYTHONPATH),
* ``python benchmarks/baseline_report.py N M`` -- a plain-Python student-style implementation,
  checked to write the same result.txt (and, at 1000 16, the course's example result),
* ``python -c pass`` and ``python -c "import numpy"`` as a floor: interpreter start and numpy
  import, which the command cannot go below,

in rounds (each command once a round) so drift in machine load hits all alike, and prints the median and best wall
seconds of each and the speed-up (baseline median / contentseen median).

The commands run in this process's environment. Where it sets PYTHONDONTWRITEBYTECODE (as some
sandboxes do) every run compiles contentseen's modules again; ``--bytecode-cache`` lets Python
cache bytecode (in a temporary PYTHONPYCACHEPREFIX, warmed before timing), as on a usual install.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COURSE_FILES = ("article.txt", "sample.txt", "stopwords.txt", "hashvalue.txt")
CASES = ((1000, 16), (10000, 128))


def course_dir() -> Path:
    env = os.environ.get("CONTENTSEEN_ASSIGNMENT_DIR")
    return Path(env) if env else ROOT.parent / "shared" / "assignment"


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.decode(errors='replace')}")
    return elapsed


def numpy_version(py: str, cwd: Path, env: dict[str, str]) -> str:
    code = "import numpy; print(numpy.__version__)"
    r = subprocess.run([py, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)
    return r.stdout.strip() or "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=9, help="runs of contentseen and of the floor rows")
    ap.add_argument("--baseline-runs", type=int, default=5, help="runs of the baseline per case")
    ap.add_argument("--bytecode-cache", action="store_true", help="let Python cache bytecode")
    args = ap.parse_args()

    src = course_dir()
    missing = [f for f in COURSE_FILES if not (src / f).is_file()]
    if missing:
        sys.exit(f"course files {', '.join(missing)} not found in {src} (set CONTENTSEEN_ASSIGNMENT_DIR)")
    example = src / "result(example).txt"

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    py = sys.executable
    baseline = str(ROOT / "benchmarks" / "baseline_report.py")

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="contentseen-bench-") as tmp:
        work = Path(tmp)
        if args.bytecode_cache:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        for f in COURSE_FILES:
            shutil.copy(src / f, work / f)
        result = work / "result.txt"

        cmds = {}
        for n, m in CASES:
            ours_cmd = [py, "-m", "contentseen.cli.report", str(n), str(m)]
            base_cmd = [py, baseline, str(n), str(m)]
            # Correctness first (and a warm-up): both write the same result.txt.
            timed(ours_cmd, work, env)
            ours_out = result.read_bytes()
            timed(base_cmd, work, env)
            if result.read_bytes() != ours_out:
                sys.exit(f"baseline and contentseen-report disagree at N={n} M={m}")
            if (n, m) == (1000, 16) and example.is_file() and ours_out != example.read_bytes():
                sys.exit("contentseen-report 1000 16 differs from result(example).txt")
            cmds[f"{n} {m}"] = (ours_cmd, base_cmd)
        floors = {"pass": [], "import numpy": []}
        for code in floors:
            timed([py, "-c", code], work, env)  # warm-up

        # One round runs every command once, so all see the same machine load.
        ours = {case: [] for case in cmds}
        base = {case: [] for case in cmds}
        for i in range(max(args.runs, args.baseline_runs)):
            if i < args.runs:
                for case, (ours_cmd, _) in cmds.items():
                    ours[case].append(timed(ours_cmd, work, env))
                for code, times in floors.items():
                    times.append(timed([py, "-c", code], work, env))
            if i < args.baseline_runs:
                for case, (_, base_cmd) in cmds.items():
                    base[case].append(timed(base_cmd, work, env))
            print(f"  round {i + 1} done", file=sys.stderr)
        np_version = numpy_version(py, work, env)

    med, best = statistics.median, min
    cache = "off" if env.get("PYTHONDONTWRITEBYTECODE") else "on"
    print(
        f"Python {platform.python_version()}, numpy {np_version}, {os.cpu_count()} CPUs, "
        f"bytecode cache {cache}, load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}; "
        f"{args.runs} runs of contentseen, {args.baseline_runs} of the baseline; wall seconds\n"
    )
    print("| N M | contentseen median | contentseen best | baseline median | baseline best | speed-up |")
    print("|---|---:|---:|---:|---:|---:|")
    for case in cmds:
        o, b = ours[case], base[case]
        print(
            f"| {case} | {med(o):.3f} | {best(o):.3f} | {med(b):.3f} | {best(b):.3f} "
            f"| {med(b) / med(o):.1f}x |"
        )
    for name, times in floors.items():
        print(f"| floor: `python -c '{name}'` | {med(times):.3f} | {best(times):.3f} | | | |")


if __name__ == "__main__":
    main()
