#!/usr/bin/env bash
# b_eff on N ranks with small settings, then checks of its rules on the
# files it wrote (python3 reads the CSVs):
#  * OUT.csv: every expected pattern, 21 sizes x 3 methods each (pingpong:
#    21 x sendrecv only); sizes 1..4096 then geometric to L_max; the same
#    sizes for every pattern; loop lengths 1..300; positive times and
#    bandwidths; bandwidth = bytes * messages * looplength / time.
#  * OUT.summary.csv: one row, every column present, figures positive;
#    b_eff recomputed from OUT.csv (max over methods, sum over sizes / 21,
#    logarithmic averages) matches; b_eff <= the largest ring/random
#    bandwidth; per process = total / procs; ping-pong at L_max is the
#    pingpong row at L_max; with --rmax, balance = b_eff / Rmax.
#  * OUT.env.csv exists; stdout ends with the summary lines.
# usage: beff_check.sh MPIEXEC NPFLAG NPROCS MPIBEX OUTDIR PATTERNS [beff args...]
# PATTERNS: the detail patterns expected for NPROCS, comma-separated.
set -u
mpiexec=$1 npflag=$2 np=$3 mpibex=$4 dir=$5 detail=$6
shift 6
csv=$dir/beff$np.csv
rm -f "$csv" "${csv%.csv}.summary.csv" "${csv%.csv}.env.csv"
start=$(date +%s)
"$mpiexec" "$npflag" "$np" "$mpibex" beff -q -o "$csv" "$@" >"$dir/beff$np.out" ||
  { echo "beff failed with exit $?"; tail -5 "$dir/beff$np.out"; exit 1; }
echo "beff on $np ranks: $(($(date +%s) - start)) s"
tail -9 "$dir/beff$np.out"
[ -s "${csv%.csv}.env.csv" ] || { echo "no environment file"; exit 1; }
grep -q "^b_eff per process " "$dir/beff$np.out" || { echo "no summary on stdout"; exit 1; }
tail -1 "$dir/beff$np.out" | grep -q "^rules: " || { echo "stdout does not end with the rules"; exit 1; }
case " $* " in
*" --rmax "*) grep -q "^balance factor .* byte/flop" "$dir/beff$np.out" || { echo "no balance factor"; exit 1; } ;;
esac

exec python3 - "$csv" "${csv%.csv}.summary.csv" "$np" "$detail" "$@" <<'EOF'
import csv, math, sys
det, summ, np, detail = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(",")
args = sys.argv[5:]
nrandom = int(args[args.index("--random") + 1]) if "--random" in args else 30
bad = []
def check(cond, what):
    if not cond:
        bad.append(what)
rows = list(csv.DictReader(open(det)))
cols = ["pattern", "kind", "size_index", "bytes", "method", "looplength", "messages", "reps",
        "time_us", "bandwidth_MBps", "bandwidth_per_proc_MBps"]
check(list(rows[0].keys()) == cols, "detail columns %s" % list(rows[0].keys()))
want = ["ring%d" % k for k in range(1, 7)] + ["random%d" % k for k in range(1, nrandom + 1)] + detail
got = []
for r in rows:
    if r["pattern"] not in got:
        got.append(r["pattern"])
check(got == want, "patterns %s, expected %s" % (got, want))
sizes = {}
for r in rows:
    k, b = int(r["size_index"]), int(r["bytes"])
    check(sizes.setdefault(k, b) == b, "size %d differs between patterns" % k)
    ll, t, bw, msgs = int(r["looplength"]), float(r["time_us"]), float(r["bandwidth_MBps"]), int(r["messages"])
    check(1 <= ll <= 300, "looplength %d" % ll)
    check(t > 0 and bw > 0, "time/bandwidth not positive: %s" % r)
    check(abs(b * msgs * ll / (t * 1e-6) / 1e6 - bw) <= 1e-3 * bw + 1e-3, "bandwidth formula: %s" % r)
    check(abs(float(r["bandwidth_per_proc_MBps"]) * np - bw) <= 1e-3 * bw + 1e-3, "per proc: %s" % r)
    kind = "ring" if r["pattern"].startswith("ring") else "random" if r["pattern"].startswith("random") else "detail"
    check(r["kind"] == kind, "kind of %s" % r["pattern"])
s = [sizes[k] for k in range(21)]
check(s[:13] == [1 << k for k in range(13)], "first 13 sizes %s" % s[:13])
check(all(s[k] < s[k + 1] for k in range(20)), "sizes not increasing %s" % s)
for p in want:
    n = sum(1 for r in rows if r["pattern"] == p)
    check(n == (21 if p == "pingpong" else 63), "%s has %d rows" % (p, n))
    meths = sorted(set(r["method"] for r in rows if r["pattern"] == p))
    check(meths == (["sendrecv"] if p == "pingpong" else ["alltoallv", "nonblocking", "sendrecv"]), "%s methods %s" % (p, meths))
check(len(rows) == 63 * (len(want) - 1) + 21, "row count %d" % len(rows))

sm = list(csv.DictReader(open(summ)))
check(len(sm) == 1, "summary rows %d" % len(sm))
S = sm[0]
need = ["b_eff_MBps", "b_eff_per_proc_MBps", "b_eff_Lmax_MBps", "ring_Lmax_MBps", "pingpong_Lmax_MBps",
        "Lmax_bytes", "procs", "rules"]
for c in need:
    check(c in S and S[c] != "", "summary column %s" % c)
for c in need[:5]:
    check(float(S[c]) > 0, "%s not positive" % c)
check(int(S["procs"]) == np, "procs %s" % S["procs"])
check(int(S["Lmax_bytes"]) == s[20], "Lmax_bytes %s, last size %d" % (S["Lmax_bytes"], s[20]))
check("random" in S["rules"] and "ring" in S["rules"], "rules: %s" % S["rules"])
# Recompute b_eff from the table.
best = {}
for r in rows:
    key = (r["pattern"], int(r["size_index"]))
    best[key] = max(best.get(key, 0.0), float(r["bandwidth_MBps"]))
def logavg(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))
rings = ["ring%d" % k for k in range(1, 7)]
rands = ["random%d" % k for k in range(1, nrandom + 1)]
avg = lambda p: sum(best[(p, k)] for k in range(21)) / 21
beff = logavg([logavg([avg(p) for p in rings]), logavg([avg(p) for p in rands])])
lmax = logavg([logavg([best[(p, 20)] for p in rings]), logavg([best[(p, 20)] for p in rands])])
ringl = logavg([best[(p, 20)] for p in rings])
rel = lambda a, b: abs(a - b) <= 2e-3 * abs(b) + 1e-3
check(rel(float(S["b_eff_MBps"]), beff), "b_eff %s, recomputed %.4f" % (S["b_eff_MBps"], beff))
check(rel(float(S["b_eff_Lmax_MBps"]), lmax), "b_eff at Lmax %s, recomputed %.4f" % (S["b_eff_Lmax_MBps"], lmax))
check(rel(float(S["ring_Lmax_MBps"]), ringl), "ring at Lmax %s, recomputed %.4f" % (S["ring_Lmax_MBps"], ringl))
check(rel(float(S["b_eff_per_proc_MBps"]) * np, float(S["b_eff_MBps"])), "per process")
check(rel(float(S["pingpong_Lmax_MBps"]), best[("pingpong", 20)]), "ping-pong at Lmax")
if "--rmax" in args:
    rmax = float(args[args.index("--rmax") + 1])
    check(rel(float(S["rmax_GFlops"]), rmax), "rmax_GFlops %s" % S["rmax_GFlops"])
    want_bal = float(S["b_eff_MBps"]) / (rmax * 1e3)
    check(abs(float(S["balance_byte_per_flop"]) - want_bal) <= 1e-3 * want_bal,
          "balance %s, expected b_eff / (Rmax * 1000)" % S["balance_byte_per_flop"])
top = max(v for (p, k), v in best.items() if p in rings + rands)
check(float(S["b_eff_MBps"]) <= top * (1 + 1e-6), "b_eff %s above the largest bandwidth %.4f" % (S["b_eff_MBps"], top))
if bad:
    print("FAIL:\n  " + "\n  ".join(bad[:20]))
    sys.exit(1)
print("beff_check: %d rows, %d patterns, b_eff %.2f MB/s (recomputed %.2f), L_max %d" %
      (len(rows), len(want), float(S["b_eff_MBps"]), beff, s[20]))
EOF
