"""What a user reads about a real multi-threaded, multi-process recording is
what the workload knows about itself.

tests/workloads/mtfork, run through a symlink named mtserver (as Debian's
redis-server links to redis-check-rdb), records page faults with the perf
backend: BEFORE threads, AFTER threads and a forked child each touch their
own PAGES pages once and print "worker=I kind=K pid=P tid=T base=0x...
pages=K".  Checked against those lines:
  - the threads count (distinct pid, tid with samples) = the workers' tids,
    the main thread and the child: memtracectl report text and JSON and
    memtrace-analyze report's summary.txt;
  - no printed address carries the address-space tag (bits 48..62) of the
    child: its pages are listed at the addresses the child printed, with its
    pid (report --json --per-process, memtrace-analyze report summary.json);
  - the executable is named as the process runs: "mtserver (mtfork)+0x..."
    (memtracectl report and memtrace-analyze report's tables).
"""
import json
import os
import re
import subprocess

import pytest

from conftest import CLI, PYTHON, TOP
from memtrace_analyze.lib import Trace

CTL = os.path.join(TOP, "build", "memtracectl")
MTFORK = os.path.join(TOP, "build", "workloads", "mtfork")
PAGE = os.sysconf("SC_PAGE_SIZE")
BEFORE, AFTER, PAGES = 3, 4, 24
TAG = 0x7fff << 48

pytestmark = pytest.mark.skipif(not (os.access(CTL, os.X_OK) and os.access(MTFORK, os.X_OK)),
                                reason="build/memtracectl or build/workloads/mtfork not built")


@pytest.fixture(scope="module")
def rec(tmp_path_factory):
    d = tmp_path_factory.mktemp("present")
    link = d / "mtserver"
    os.symlink(MTFORK, link)
    path = d / "mt.mtrace"
    r = subprocess.run([CTL, "record", "-b", "perf", "-e", "page-faults", "-o", str(path), "--", str(link),
                        "-b", str(BEFORE), "-a", str(AFTER), "-k", str(PAGES), "-f"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        pytest.skip("perf page-fault recording not possible here: %s" % r.stderr.strip().splitlines()[-1:])
    workers = [dict(kv.split("=", 1) for kv in line.split()) for line in r.stdout.splitlines()
               if line.startswith("worker=")]
    main = int(re.search(r"ready pid=(\d+)", r.stdout).group(1))
    assert len(workers) == BEFORE + AFTER + 1, r.stdout
    return path, main, workers


def _json(*argv):
    r = subprocess.run([CTL, "report"] + [str(a) for a in argv] + ["--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _all_addresses(doc):
    """Every address and ip a report --json lists."""
    out = []
    for table in ("hot_data", "hot_code"):
        for h in doc[table]:
            out.append(h["address"])
            out += [i["ip"] for i in h["ips"]]
    for p in doc["peaks"]:
        out += [i["ip"] for i in p["locations"]]
    for p in doc.get("processes", []):
        out += [h["address"] for h in p["hot_data"]]
    return out


def test_threads_counted_as_the_workload_knows(rec, tmp_path):
    path, main, workers = rec
    # the workers' threads, the main thread (it started them) and the child process
    truth = {(int(w["pid"]), int(w["tid"])) for w in workers} | {(main, main)}
    assert len(truth) == BEFORE + AFTER + 2
    doc = _json(path)
    assert doc["threads"] == len(truth)
    text = subprocess.run([CTL, "report", str(path)], capture_output=True, text=True).stdout
    assert "threads:   %d with page faults" % len(truth) in text
    r = subprocess.run([PYTHON, CLI, "report", str(path), "-o", str(tmp_path / "rep")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    summary = (tmp_path / "rep" / "summary.txt").read_text()
    assert re.search(r"^threads +%d with page faults \(distinct pid, tid\)" % len(truth), summary, re.M), summary


def test_child_addresses_as_the_child_sees_them(rec, tmp_path):
    path, main, workers = rec
    child = [w for w in workers if w["kind"] == "child"][0]
    cpid, base = int(child["pid"]), int(child["base"], 16)
    pages = {base + i * PAGE for i in range(int(child["pages"]))}
    doc = _json(path, "--per-process", "-n", "2000")
    assert all(not (a & TAG and not a >> 63) for a in _all_addresses(doc))
    procs = {p["pid"]: p for p in doc["processes"]}
    assert set(procs) == {main, cpid}
    listed = {h["address"] for h in procs[cpid]["hot_data"] if h["pid"] == cpid}
    assert pages <= listed, sorted(pages - listed)[:4]
    # the whole trace's table: the child's pages with its pid, their keys tagged
    mine = [h for h in doc["hot_data"] if h["address"] in pages and h["pid"] == cpid]
    assert len(mine) == len(pages)
    assert all(h["key"] != h["address"] and h["key"] & TAG for h in mine)
    assert all(h["location"].startswith("pid %d " % cpid) for h in mine)
    # the text table: the child's pages at its addresses, no tagged one
    text = subprocess.run([CTL, "report", str(path), "-n", "2000"], capture_output=True, text=True).stdout
    printed = {int(a, 16) for a in re.findall(r"  (0x[0-9a-f]{16})  pid %d " % cpid, text)}
    assert pages <= printed
    assert not re.search(r"0x[0-9a-f]{0,2}[1-9a-f][0-9a-f]{12}\b", text.replace("0x0000", "")), \
        "a tagged address was printed"
    # memtrace-analyze report: summary.json's hot rows and the page's table
    r = subprocess.run([PYTHON, CLI, "report", str(path), "--top", "2000", "-o", str(tmp_path / "rep")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    s = json.load(open(tmp_path / "rep" / "summary.json"))
    rows = [h for h in s["hot"] if h["pid"] == cpid and h["address"] in pages]
    assert len(rows) == len(pages)
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "pid %d %#x" % (cpid, min(pages)) in page
    # its region (where the recorder caught the short-lived child's maps)
    if any(m[1] == cpid for m in Trace(str(path)).maps()):
        regs = [g for g in s["regions"] if g["pid"] == cpid and g["start_address"] <= base < g["end_address"]]
        assert regs and regs[0]["end_address"] - regs[0]["start_address"] == regs[0]["end"] - regs[0]["start"]


def test_executable_named_as_it_runs(rec, tmp_path):
    path, main, workers = rec
    doc = _json(path)
    where = [h["location"] for h in doc["hot_code"]] + [h["location"] for h in doc["hot_data"]]
    assert any(w.startswith("mtserver (mtfork)+0x") for w in where), where
    assert not any(re.match(r"(pid \d+ )?mtfork\+", w) for w in where), where
    r = subprocess.run([PYTHON, CLI, "regions", str(path), "-o", str(tmp_path / "r.png")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "mtserver (mtfork)" in r.stderr
