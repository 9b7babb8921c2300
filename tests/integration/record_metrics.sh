#!/bin/bash
# record --metrics (issue 32): a real Prometheus server (Debian's package, on
# the loopback, its own config and data directory) scrapes a page-fault
# recording of freshpages (every fault on a new page, a few hundred
# thousand a second: the windows differ); its HTTP API then gives, for every
# window it scraped, the numbers `report --window 1s --bucket 4K` gives for
# the same window, and the pages and samples a Python count of the dumped
# samples gives (the ground truth).  The endpoint's format and its errors
# are checked with plain HTTP requests while recording.  KEEP=1 keeps
# $TMP (the trace, prom.log, the query answers) for a look.
. "$(dirname "$0")/lib.sh"
PROM=$(command -v prometheus) || skip prometheus "no prometheus (Debian package prometheus, tools/deps/prometheus.txt)"
export MEMTRACE_BACKEND=perf

free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
MPORT=$(free_port)
PPORT=$(free_port)
[ "$MPORT" != "$PPORT" ] || PPORT=$(free_port)

# Prometheus: scrapes every 250 ms (a window of 1 s is seen about four
# times: one sample, the same timestamp and value); stopped on any exit
cat >"$TMP/prom.yml" <<EOF
global:
  scrape_interval: 250ms
  scrape_timeout: 200ms
scrape_configs:
  - job_name: memtrace
    static_configs:
      - targets: ['127.0.0.1:$MPORT']
EOF
"$PROM" --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/prom-data" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$TMP/prom.log" 2>&1 &
PROM_PID=$!
trap 'kill $PROM_PID 2>/dev/null; wait $PROM_PID 2>/dev/null; kill $(jobs -p) 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
for _ in $(seq 100); do
	curl -sf "http://127.0.0.1:$PPORT/-/ready" >/dev/null && break
	sleep 0.1
done
curl -sf "http://127.0.0.1:$PPORT/-/ready" >/dev/null || fail "prometheus did not start: $(cat "$TMP/prom.log")"
# its scrape manager takes up new targets every 5 s: until it has tried ours
# (health down: nothing listens yet), a recording would not be scraped
scraping() {
	curl -sf "http://127.0.0.1:$PPORT/api/v1/targets" | $PY -c '
import json, sys
t = json.load(sys.stdin)["data"]["activeTargets"]
sys.exit(0 if t and t[0]["health"] != "unknown" else 1)'
}
for _ in $(seq 150); do
	scraping && break
	sleep 0.1
done
scraping || fail "prometheus does not scrape 127.0.0.1:$MPORT: $(cat "$TMP/prom.log")"

# bad values of the options: one line, status 2
expect_error "--metrics 'x': the port is not a number" "$MT" record --metrics x -- true
expect_error "--metrics '1.2.3:80': '1.2.3' is not an IPv4 address" "$MT" record --metrics 1.2.3:80 -- true
expect_error "--metrics-window needs --metrics" "$MT" record --metrics-window 1s -- true
# a port in use (Prometheus's): refused before anything starts, no file
expect_error "--metrics $PPORT: cannot listen: Address already in use" \
	"$MT" record -e page-faults --metrics "$PPORT" -o "$TMP/inuse.mtrace" -- true
[ ! -e "$TMP/inuse.mtrace" ] || fail "a refused --metrics left $TMP/inuse.mtrace"

"$MT" record -e page-faults --metrics "$MPORT" --metrics-window 1s -o "$TMP/t.mtrace" \
	-- "$WL/freshpages" -s 5 >/dev/null 2>"$TMP/rec.err" &
REC=$!
for _ in $(seq 50); do
	curl -s -o /dev/null "http://127.0.0.1:$MPORT/metrics" && break
	sleep 0.05
done
# while recording: the format, and errors that leave the recording going
curl -s -D "$TMP/h.txt" -o "$TMP/m.txt" "http://127.0.0.1:$MPORT/metrics" || fail "GET /metrics failed"
grep -q '^HTTP/1.1 200 OK' "$TMP/h.txt" || fail "GET /metrics: $(head -1 "$TMP/h.txt")"
grep -qi '^Content-Type: text/plain; version=0.0.4' "$TMP/h.txt" || fail "content type: $(cat "$TMP/h.txt")"
for m in memtrace_recording_info:gauge memtrace_samples_total:counter memtrace_lost_total:counter \
	memtrace_dropped_total:counter memtrace_window_seconds:gauge; do
	grep -q "^# HELP ${m%:*} ." "$TMP/m.txt" || fail "no HELP of ${m%:*}: $(cat "$TMP/m.txt")"
	grep -q "^# TYPE ${m%:*} ${m#*:}$" "$TMP/m.txt" || fail "no TYPE ${m#*:} of ${m%:*}"
done
grep -q '^memtrace_recording_info{sample_class="first-touch",event="page-faults",backend="perf",pid="[0-9]*"} 1$' \
	"$TMP/m.txt" || fail "info line: $(grep '^memtrace_recording_info' "$TMP/m.txt")"
code() { curl -s -o "$TMP/body" -w '%{http_code}' "$@"; }
[ "$(code "http://127.0.0.1:$MPORT/")" = 404 ] || fail "GET / is not 404"
grep -qx 'memtracectl: no such page: GET /metrics' "$TMP/body" || fail "404 body: $(cat "$TMP/body")"
[ "$(code -X POST "http://127.0.0.1:$MPORT/metrics")" = 405 ] || fail "POST is not 405"
exec 3<>"/dev/tcp/127.0.0.1/$MPORT"
printf 'garbage\r\n\r\n' >&3
reply=$(head -1 <&3)
exec 3<&-
[ "${reply%$'\r'}" = "HTTP/1.1 400 Bad Request" ] || fail "garbage request: $reply"
exec 3<>"/dev/tcp/127.0.0.1/$MPORT"
head -c 5000 /dev/zero | tr '\0' a >&3 2>/dev/null
reply=$(head -1 <&3)
exec 3<&-
[ "${reply%$'\r'}" = "HTTP/1.1 400 Bad Request" ] || fail "a 5000-byte request: $reply"
# a client that connects and says nothing holds nobody up
exec 4<>"/dev/tcp/127.0.0.1/$MPORT"
[ "$(code "http://127.0.0.1:$MPORT/metrics")" = 200 ] || fail "GET /metrics beside an idle client"
grep -q '^memtrace_samples_total{sample_class="first-touch"} [1-9]' "$TMP/body" ||
	fail "no samples counted while recording: $(grep samples_total "$TMP/body")"
wait $REC || fail "record failed: $(cat "$TMP/rec.err")"
exec 4<&-
grep -q '^memtracectl: wrote [1-9][0-9]* samples' "$TMP/rec.err" || fail "record: $(cat "$TMP/rec.err")"

# what Prometheus stored, what report says, what the samples say
"$MT" report "$TMP/t.mtrace" --window 1s --bucket 4K --series "$TMP/s.csv" >/dev/null || fail "report failed"
"$MT" dump --meta "$TMP/t.mtrace" | sed -n 's/^start_time=//p' >"$TMP/start"
"$MT" dump "$TMP/t.mtrace" >"$TMP/d.csv" || fail "dump failed"
q() { curl -sf -G "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1"; }
q 'memtrace_window_pages[10m]' >"$TMP/pages.json" || fail "query of pages failed"
q 'memtrace_window_index[10m]' >"$TMP/index.json" || fail "query of index failed"
q 'memtrace_window_samples[10m]' >"$TMP/samples.json" || fail "query of samples failed"
q 'max_over_time(memtrace_samples_total[10m])' >"$TMP/total.json" || fail "query of samples_total failed"
$PY - "$TMP" <<'PY' || exit 1
import collections, csv, json, sys
tmp = sys.argv[1]
def matrix(name):
    j = json.load(open(f"{tmp}/{name}.json"))
    assert j["status"] == "success", j
    return j["data"]["result"]
# the window index at each timestamp (ms): which report window a sample is
index = {}
for s in matrix("index"):
    for t, v in s["values"]:
        index[round(t * 1000)] = int(v)
ks = sorted(index.values())
assert ks, "prometheus holds no window"
assert len(set(ks)) == len(ks), f"two timestamps for one window: {sorted(index.items())}"
got = collections.defaultdict(dict)          # k -> {"data": , "code": , "samples": }
for name in ("pages", "samples"):
    for s in matrix(name):
        key = s["metric"].get("space", "samples")
        assert s["metric"]["sample_class"] == "first-touch", s["metric"]
        for t, v in s["values"]:
            got[index[round(t * 1000)]][key] = int(v)
# report --window 1s --bucket 4K: rows at k x 1 s (a missing row: 0)
report = {}
for row in csv.DictReader(open(f"{tmp}/s.csv")):
    report[int(row["time"]) // 1_000_000_000] = (int(row["wss_data"]), int(row["wss_code"]))
# the ground truth: the dumped samples in (start + (k-1) s, start + k s]
start = int(open(f"{tmp}/start").read())
truth = collections.defaultdict(lambda: [set(), set(), 0])
for row in csv.DictReader(open(f"{tmp}/d.csv")):
    k = -(-(int(row["time"]) - start) // 1_000_000_000)   # ceil: the window holding it
    w = truth[k]
    w[0].add(int(row["addr"], 16) >> 12)
    ip = int(row["ip"], 16)
    if ip:
        w[1].add(ip >> 12)
    w[2] += 1
last = max(truth)
# every closed window of a 5 s run was scraped: 1..4 at least (the 5th may end after the last scrape)
assert ks == list(range(1, ks[-1] + 1)) and ks[-1] >= 4, f"windows scraped: {ks}"
assert ks[-1] < last, f"window {ks[-1]} served, the samples end in window {last}"
for k in ks:
    d, c, n = len(truth[k][0]), len(truth[k][1]), truth[k][2]
    assert report.get(k, (0, 0)) == (d, c), f"window {k}: report {report.get(k)}, samples say {(d, c)}"
    g = got[k]
    assert (g.get("data"), g.get("code"), g.get("samples")) == (d, c, n), \
        f"window {k}: prometheus {g}, report and samples say data {d} code {c} samples {n}"
    print(f"window {k}: data {d} pages, code {c} pages, {n} page faults: prometheus = report = samples")
total = max(float(s["value"][1]) for s in matrix("total"))
end = sum(w[2] for w in truth.values())
assert 0 < total <= end, (total, end)
PY
