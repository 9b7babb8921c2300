"""check_alloc_mix.py S.JSON WL.OUT... : report --by-site --json of a record
--allocs recording of allocmix runs (each WL.OUT one run's output, with
its "expect SITE BLOCKS SIZE" lines; the runs' blocks add up) against what
the workload made:
- blocks of alloc_large_bytes or more, and every block when
  alloc_sample_bytes <= its size (--alloc-rate 1): all recorded, exactly:
  blocks, est_blocks, bytes as made, all freed;
- smaller blocks, byte-sampled: kept with probability p = SIZE / R each, so
  the recorded blocks are Binomial(BLOCKS, p): within 5 standard
  deviations (+1) of BLOCKS * p, each kept one weighted R / SIZE
  (est_blocks = recorded * R / SIZE, bytes = est_blocks * SIZE), all freed.
Prints one summary line; exits 1 with the reason."""
import json
import math
import sys


def expected(paths):
    want = {}
    for path in paths:
        lines = open(path).read().split("\n")
        assert "done" in lines, f"{path}: the workload did not finish: {lines[-3:]}"
        for line in lines:
            f = line.split()
            if f and f[0] == "expect":
                n, size = int(f[2]), int(f[3])
                old = want.get(f[1], (0, size))
                assert old[1] == size, (f[1], old, size)
                want[f[1]] = (old[0] + n, size)
    assert want, f"no expect lines in {paths}"
    return want


def check(report, outs):
    r = json.load(open(report))
    rate, large = r["alloc_sample_bytes"], r["alloc_large_bytes"]
    want = expected(outs)
    sites = {}
    for s in r["sites"]:
        if s["function"] in want:
            assert s["function"] not in sites, f"two sites of {s['function']}: {s['name']}"
            sites[s["function"]] = s
    said = []
    for fn, (n, size) in sorted(want.items()):
        s = sites.get(fn, {"blocks": 0, "est_blocks": 0, "bytes": 0, "freed": 0, "live": 0})
        if size >= large or size >= rate:
            assert s["blocks"] == n and abs(s["est_blocks"] - n) < 1e-6, \
                f"{fn}: {s['blocks']} blocks recorded (est {s['est_blocks']}), the workload made {n}"
            assert s["bytes"] == n * size, f"{fn}: {s['bytes']} bytes, the workload allocated {n * size}"
            said.append(f"{fn}={s['blocks']}")
        else:
            p = size / rate
            mean, sd = n * p, math.sqrt(n * p * (1 - p))
            k = s["blocks"]
            assert abs(k - mean) <= 5 * sd + 1, \
                f"{fn}: {k} of {n} blocks of {size} bytes kept, want {mean:.1f} +- {5 * sd + 1:.1f} (p = {p:.4f})"
            assert abs(s["est_blocks"] - k * rate / size) <= 1e-6 * max(1, k * rate / size), \
                f"{fn}: est_blocks {s['est_blocks']} of {k} kept, want {k * rate / size}"
            assert abs(s["bytes"] - k * rate) <= 1e-6 * max(1, k * rate), \
                f"{fn}: est bytes {s['bytes']} of {k} kept, want {k * rate}"
            said.append(f"{fn}={k}/{n}~{mean:.0f}")
        assert s["freed"] == s["blocks"] and s["live"] == 0, \
            f"{fn}: {s['freed']} of {s['blocks']} blocks freed, {s['live']} live; the workload freed all"
    return "alloc-rate %d, large %d: %s" % (rate, large, " ".join(said))


if __name__ == "__main__":
    try:
        print(check(sys.argv[1], sys.argv[2:]))
    except (AssertionError, OSError, ValueError, KeyError, IndexError) as e:
        print("check_alloc_mix: %s" % (e,))
        sys.exit(1)
