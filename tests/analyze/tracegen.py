"""Test traces written through libmemtrace's writer (memtrace_writer_* via
memtrace_analyze.lib.Writer): no second encoder in Python."""
import numpy as np

from memtrace_analyze.lib import Writer

PID = 4242
MAPS = (
    "00400000-004c0000 r-xp 00000000 08:01 42 /nonexistent/dbquery\n"
    "004c8000-004f0000 rw-p 00000000 00:00 0 [heap]\n"
    "7f0000000000-7f0000400000 rw-p 00000000 00:00 0 [anon:column]\n"
    "7f0000400000-7f0000c00000 rw-p 00000000 00:00 0 [anon:positions]\n"
    "7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0 [stack]\n"
)


def write_trace(path, time, addr, ip=None, pid=PID, tid=None, maps=MAPS, time_unit="insn", start_time=0,
                sample_period=1, end_time=None, meta=None, chunk=5000, end=True, extra_maps=()):
    """Writes samples (numpy-able sequences) with one MAPS snapshot at
    start_time (maps=None: none) plus extra_maps [(time, text)]; returns path."""
    time = np.asarray(time, dtype=np.uint64)
    addr = np.asarray(addr, dtype=np.uint64)
    n = time.size
    # pid: one for every sample, or one per sample (the first is the target)
    pids = np.full(n, pid, np.uint32) if np.isscalar(pid) else np.asarray(pid, np.uint32)
    pid = int(pids[0]) if not np.isscalar(pid) else pid
    h = {"format": "memtrace-1", "host": "test", "backend": "test", "source": "synthetic", "event": "loads",
         "sample_period": sample_period, "clock": "instructions" if time_unit == "insn" else "monotonic",
         "time_unit": time_unit, "start_time": start_time, "bucket_default": 4096, "target_pid": pid,
         "target_comm": "synthetic", "command": "tracegen"}
    h.update(meta or {})
    w = Writer(path, h)
    if maps is not None:
        w.maps(start_time, pid, maps)
    for t, text in extra_maps:
        w.maps(t, pid, text)
    w.thread(start_time, pid, pid if tid is None else tid, "synthetic")
    tids = pids if tid is None else np.full(n, tid, np.uint32) if np.isscalar(tid) \
        else np.asarray(tid, np.uint32)
    ips = None if ip is None else np.asarray(ip, dtype=np.uint64)
    for lo in range(0, max(n, 1), chunk):
        hi = min(n, lo + chunk)
        if hi <= lo:
            break
        w.samples(time=time[lo:hi], addr=addr[lo:hi], pid=pids[lo:hi], tid=tids[lo:hi],
                  cpu=np.zeros(hi - lo, np.uint32), ip=None if ips is None else ips[lo:hi])
    if end:
        et = end_time if end_time is not None else (int(time.max()) if n else start_time)
        w.close({"end_reason": "target-exited", "end_time": et, "samples": n, "lost": 0, "throttled": 0,
                 "dropped": 0})
    else:
        w.close(None)
    return path
