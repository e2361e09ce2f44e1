"""contentseen-report: byte-exact output on the course files, checked against a simple second
implementation (on made-up files in the course format too), CRLF input, and one-line errors on
bad input (made-up files: these tests run without the course files)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from conftest import run_cli

REPORT = "contentseen.cli.report"


def simple_report(d: Path, n: int, m: int, k: int = 3) -> bytes:
    """The assignment, written as plainly as possible, with no code shared with the package."""
    stop = set(open(d / "stopwords.txt", "rb").read().lower().split())

    def pages(name):
        out = []
        for chunk in open(d / name, "rb").read().replace(b"\r\n", b"\n").split(b"\f"):
            lines = chunk.split(b"\n")
            while lines and not lines[0].strip():
                lines.pop(0)
            if lines:
                body = b"\n".join(lines[1:]).lower()
                out.append((lines[0].strip(), [w for w in re.findall(rb"[a-z]+", body) if w not in stop]))
        return out

    art, sam = pages("article.txt"), pages("sample.txt")
    total = Counter(w for _, ws in art for w in ws)
    vocab = [w for w, _ in sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]
    rows = open(d / "hashvalue.txt", "rb").read().split(b"\n")[:n]

    rank = {w: i for i, w in enumerate(vocab)}

    def fp(words):
        sums = [0] * m
        for w, c in Counter(words).items():
            if w in rank:
                for j in range(m):
                    sums[j] += c if rows[rank[w]][j : j + 1] == b"1" else -c
        return [s > 0 for s in sums]

    afp = [fp(ws) for _, ws in art]
    out = b""
    for sid, ws in sam:
        f = fp(ws)
        dist = [sum(a != b for a, b in zip(f, g)) for g in afp]
        out += sid + b"\n"
        for d_ in range(k + 1):
            ids = [art[i][0] for i in range(len(art)) if dist[i] == d_]
            if ids:
                out += str(d_).encode() + b":" + b"".join(x + b" " for x in ids) + b"\n"
    return out


def test_1000_16_matches_example_byte_for_byte(course_copy: Path, course_dir: Path):
    r = run_cli(REPORT, "1000", "16", cwd=course_copy)
    assert r.returncode == 0, r.stderr
    expected = (course_dir / "result(example).txt").read_bytes()
    assert (course_copy / "result.txt").read_bytes() == expected
    first_block = expected.split(b"\nSample-2\n")[0] + b"\n"
    assert r.stdout == first_block
    assert r.stderr == b""


def test_1000_32_first_block(course_copy: Path):
    r = run_cli(REPORT, "1000", "32", cwd=course_copy)
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"Sample-1\n0:1-1 \n2:1-901 \n"
    assert (course_copy / "result.txt").read_bytes().startswith(r.stdout)


@pytest.mark.parametrize(
    "n,m,k", [(1, 1, 3), (7, 3, 1), (50, 8, 3), (300, 64, 12), (2000, 20, 3), (1000, 128, 30)]
)
def test_agrees_with_simple_implementation(input_copy: Path, n: int, m: int, k: int):
    r = run_cli(REPORT, str(n), str(m), "--distance", str(k), cwd=input_copy)
    assert r.returncode == 0, r.stderr
    assert (input_copy / "result.txt").read_bytes() == simple_report(input_copy, n, m, k)


def test_largest_table(course_copy: Path):
    r = run_cli(REPORT, "10000", "128", "--distance", "40", "-o", "out.txt", cwd=course_copy)
    assert r.returncode == 0, r.stderr
    out = (course_copy / "out.txt").read_bytes()
    assert out.startswith(b"Sample-1\n0:1-1 \n")
    assert re.search(rb"^[1-3]?[0-9]:", out.split(b"\n", 2)[2], re.M)
    assert not (course_copy / "result.txt").exists()


def test_crlf_copies_give_identical_result(input_copy: Path, tmp_path_factory):
    crlf = tmp_path_factory.mktemp("crlf")
    for f in ("article.txt", "sample.txt", "stopwords.txt", "hashvalue.txt"):
        (crlf / f).write_bytes((input_copy / f).read_bytes().replace(b"\n", b"\r\n"))
    for d in (input_copy, crlf):
        r = run_cli(REPORT, "1000", "16", cwd=d)
        assert r.returncode == 0, r.stderr
    assert (crlf / "result.txt").read_bytes() == (input_copy / "result.txt").read_bytes()


def test_options_point_at_files_elsewhere(synthetic_copy: Path, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")
    r = run_cli(
        REPORT, "1000", "16",
        "--article", str(synthetic_copy / "article.txt"),
        "--sample", str(synthetic_copy / "sample.txt"),
        "--stopwords", str(synthetic_copy / "stopwords.txt"),
        "--hashvalue", str(synthetic_copy / "hashvalue.txt"),
        "--output", str(other / "r.txt"),
        cwd=other,
    )
    assert r.returncode == 0, r.stderr
    r2 = run_cli(REPORT, "1000", "16", "--dir", str(synthetic_copy), cwd=other)
    assert r2.returncode == 0
    assert (other / "r.txt").read_bytes() == (synthetic_copy / "result.txt").read_bytes()


def _assert_one_line_error(r, *needles: str):
    err = r.stderr.decode()
    assert r.returncode == 2, (r.returncode, err)
    assert err.count("\n") == 1 and err.startswith("contentseen-report: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)


@pytest.mark.parametrize(
    "args,needle",
    [
        (["abc", "16"], "argument N"),
        (["0", "16"], "argument N"),
        (["1000", "-3"], "argument M"),
        (["1000", "1.5"], "argument M"),
        (["10001", "16"], "argument N"),
        (["1000", "129"], "argument M"),
        (["1000", "16", "--distance", "x"], "--distance"),
        (["1000"], "M"),
        (["1000", "16", "--bogus"], "--bogus"),
    ],
)
def test_bad_arguments(synthetic_copy: Path, args, needle):
    r = run_cli(REPORT, *args, cwd=synthetic_copy)
    _assert_one_line_error(r, needle)
    assert not (synthetic_copy / "result.txt").exists()


def _break(d: Path, name: str, content: bytes | None):
    if content is None:
        (d / name).unlink()
    else:
        (d / name).write_bytes(content)


@pytest.mark.parametrize(
    "name,content,needle",
    [
        ("article.txt", None, "article.txt"),
        ("sample.txt", None, "sample.txt"),
        ("stopwords.txt", None, "stopwords.txt"),
        ("hashvalue.txt", None, "hashvalue.txt"),
        ("article.txt", b"", "article.txt"),
        ("sample.txt", b"\n\f\n", "sample.txt"),
        ("article.txt", bytes(range(256)) * 50, "article.txt"),
        ("hashvalue.txt", b"0101\n1100\n", "hashvalue.txt"),
        ("hashvalue.txt", b"01x1" * 40 + b"\n", "hashvalue.txt"),
        ("hashvalue.txt", b"\x00\x01\x02" * 1000, "hashvalue.txt"),
    ],
)
def test_bad_files(synthetic_copy: Path, name, content, needle):
    _break(synthetic_copy, name, content)
    r = run_cli(REPORT, "1000", "16", cwd=synthetic_copy)
    _assert_one_line_error(r, needle)
    assert not (synthetic_copy / "result.txt").exists()
    assert not list(synthetic_copy.glob(".result-*"))


def test_hash_file_with_short_row_or_bad_char_names_line(synthetic_copy: Path):
    rows = (synthetic_copy / "hashvalue.txt").read_bytes().split(b"\n")
    rows[41] = rows[41][:10]
    (synthetic_copy / "hashvalue.txt").write_bytes(b"\n".join(rows))
    r = run_cli(REPORT, "1000", "16", cwd=synthetic_copy)
    _assert_one_line_error(r, "line 42")
    rows[41] = b"2" * 128
    (synthetic_copy / "hashvalue.txt").write_bytes(b"\n".join(rows))
    r = run_cli(REPORT, "100", "16", cwd=synthetic_copy)
    _assert_one_line_error(r, "line 42")
    r = run_cli(REPORT, "41", "16", cwd=synthetic_copy)  # the bad row is not used
    assert r.returncode == 0


def test_existing_result_kept_on_error(synthetic_copy: Path):
    (synthetic_copy / "result.txt").write_bytes(b"old\n")
    (synthetic_copy / "sample.txt").write_bytes(b"")
    r = run_cli(REPORT, "1000", "16", cwd=synthetic_copy)
    _assert_one_line_error(r, "sample.txt")
    assert (synthetic_copy / "result.txt").read_bytes() == b"old\n"


def test_unwritable_output_is_one_line_error(synthetic_copy: Path):
    r = run_cli(REPORT, "1000", "16", "-o", str(synthetic_copy / "no" / "such" / "r.txt"), cwd=synthetic_copy)
    _assert_one_line_error(r, "r.txt")


def test_help(tmp_path: Path):
    r = run_cli(REPORT, "--help", cwd=tmp_path)
    assert r.returncode == 0 and b"--distance" in r.stdout
