#!/usr/bin/env bash
# Figures on the honesty of mpibex's intervals, each judged against what it
# claims to cover: a profile of P launches gives the launch-variance
# component; F fresh launches are judged in ordered pairs (does launch i's
# reproducibility interval contain launch j's median?), against the other
# fresh launches' median (leave-one-out), and each against its own held-out
# passes; the fresh launches split in two interleaved halves are compared
# (identical settings; Send vs Ssend at 1 B). Optional: wall time against
# osu_latency (--time) and refinement against a sqrt(2) grid (--refine).
# A benchmark, not a test: a missed target is a figure, the exit status is 0
# unless the harness itself fails. Rules and how to read the output:
# bench/README.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
    cat <<'USAGE'
usage: bench/honesty.sh [options]
  --mpibex PATH      the mpibex binary (default: build/mpibex of this tree)
  --profile-launches P  launches that build the profile, 2..1000 (default 4)
  --fresh F          fresh launches judged against it, 4..1000 (default 6)
  --sizes LIST       the plan's sizes (default 1,64K)
  --full             the full protocol: 10 profile and 20 fresh launches at
                     1,64,4K,64K,1M, with --time and --refine, the profile's
                     launches 35 s apart (--profile-gap 35)
  --time             per fresh launch also the default 1 B - 4 MiB curve,
                     osu_latency (--osu) and IMB-MPI1 PingPong (--imb), timed
  --refine           one refinement job at the end
  --osu DIR          directory holding osu_latency (OSU 7.4 built from source)
  --imb PATH         IMB-MPI1 binary
  --reps B           bootstrap resamples of the analysis, 100..100000 (1000)
  --out DIR          where every file goes (default ./honesty-YYYYmmdd-HHMMSS);
                     must not hold results already
  --mpiexec PATH     the launcher (default: mpiexec)
  --gap SEC          seconds between launches, 0..3600 (default 0): the
                     profile's (mpibex repeat --gap) and the fresh ones', so
                     both see how the machine drifts over the same time
  --profile-gap SEC  seconds between the profile's launches only, 0..3600
                     (default: --gap; 35 with --full): spread them over the
                     minutes the fresh launches take, as a profile should
                     span the time it serves (mpibex calibrate says so)
  --analyze DIR      only analyse a directory an earlier run left
  -h, --help         this text
Every launch runs 2 ranks with mpibex's default settings and --raw. The
profile is `mpibex repeat -k P` into DIR/profile; the fresh launches are
`mpiexec -n 2 mpibex run DIR/plan.ini -q --raw -o DIR/fresh/launch-NN.csv`.
mpibex's state directory is DIR/state (XDG_STATE_HOME), so a stored profile
never touches yours. Progress goes to stderr, figures to stdout, ending in
a summary table.
USAGE
}

die() { # status message
    echo "honesty: $2" >&2
    exit "$1"
}

mpibex=$root/build/mpibex
osu="" imb="" out="" mpiexec=mpiexec analyze="" reps=1000 gap=0 pgap=
nprof="" nfresh="" sizes="" full=0 do_time=0 do_refine=0
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --full) full=1; shift; continue ;;
    --time) do_time=1; shift; continue ;;
    --refine) do_refine=1; shift; continue ;;
    --mpibex | --osu | --imb | --profile-launches | --fresh | --sizes | --reps | --out | \
        --mpiexec | --analyze | --gap | --profile-gap)
        [ $# -ge 2 ] || die 2 "$1: expected a value"
        case $1 in
        --mpibex) mpibex=$2 ;;
        --osu) osu=$2 ;;
        --imb) imb=$2 ;;
        --profile-launches) nprof=$2 ;;
        --fresh) nfresh=$2 ;;
        --sizes) sizes=$2 ;;
        --reps) reps=$2 ;;
        --out) out=$2 ;;
        --mpiexec) mpiexec=$2 ;;
        --analyze) analyze=$2 ;;
        --gap) gap=$2 ;;
        --profile-gap) pgap=$2 ;;
        esac
        shift 2 ;;
    *) die 2 "unknown option '$1' (see --help)" ;;
    esac
done

analyzer=$root/bench/honesty_analyze.py
if ! [[ $reps =~ ^[0-9]{3,6}$ ]] || [ "$reps" -lt 100 ] || [ "$reps" -gt 100000 ]; then
    die 2 "--reps: expected a whole number in 100..100000 (got '$reps')"
fi
if [ -n "$analyze" ]; then
    exec python3 "$analyzer" "$analyze" --mpibex "$mpibex" --reps "$reps"
fi

if [ $full = 1 ]; then
    nprof=${nprof:-10} nfresh=${nfresh:-20} sizes=${sizes:-1,64,4K,64K,1M}
    do_time=1 do_refine=1
fi
nprof=${nprof:-4} nfresh=${nfresh:-6} sizes=${sizes:-1,64K}
if ! [[ $nprof =~ ^[0-9]{1,4}$ ]] || [ "$nprof" -lt 2 ] || [ "$nprof" -gt 1000 ]; then
    die 2 "--profile-launches: expected a whole number in 2..1000 (got '$nprof')"
fi
if ! [[ $nfresh =~ ^[0-9]{1,4}$ ]] || [ "$nfresh" -lt 4 ] || [ "$nfresh" -gt 1000 ]; then
    die 2 "--fresh: expected a whole number in 4..1000 (got '$nfresh')"
fi
if ! [[ $gap =~ ^[0-9]{1,4}$ ]] || [ "$gap" -gt 3600 ]; then
    die 2 "--gap: expected whole seconds in 0..3600 (got '$gap')"
fi
if [ -z "$pgap" ]; then # --full: 10 launches over about the 8 min of 20 fresh ones
    pgap=$gap
    [ $full = 1 ] && [ "$gap" = 0 ] && pgap=35
fi
if ! [[ $pgap =~ ^[0-9]{1,4}$ ]] || [ "$pgap" -gt 3600 ]; then
    die 2 "--profile-gap: expected whole seconds in 0..3600 (got '$pgap')"
fi
if ! [[ $sizes =~ ^[0-9A-Za-z,:.]+$ ]]; then
    die 2 "--sizes: expected a size list such as 1,64,4K,64K,1M (got '$sizes')"
fi
[ -x "$mpibex" ] || die 2 "--mpibex: not an executable file: '$mpibex' (build first: scripts/build.sh)"
if [ -n "$osu" ]; then
    [ -x "$osu/osu_latency" ] || die 2 "--osu: no executable osu_latency in '$osu'"
fi
if [ -n "$imb" ]; then
    [ -x "$imb" ] || die 2 "--imb: not an executable file: '$imb'"
fi
mpiexec=$(command -v "$mpiexec") || die 2 "--mpiexec: not found: '$mpiexec'"
command -v python3 >/dev/null || die 2 "python3 is needed for the analysis"
out=${out:-honesty-$(date -u +%Y%m%d-%H%M%S)}
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
    die 2 "--out: '$out' is not empty; choose a new directory (or --analyze it)"
fi
mkdir -p "$out/fresh" || die 1 "--out: cannot create '$out'"
out=$(cd "$out" && pwd)
mkdir -m 700 "$out/state"
export XDG_STATE_HOME=$out/state

# One plan for profile and fresh launches: the judged points, and Ssend at
# 1 B, the difference compare must find against Send at 1 B.
cat >"$out/plan.ini" <<PLAN
# bench/honesty.sh: the points judged for reproducibility
[honesty]
bench = pingpong.send_recv, coll.allreduce
sizes = $sizes

# Send vs Ssend at 1 B: a difference the comparison must find
[S]
bench = pingpong.ssend_recv
sizes = 1
PLAN
cat >"$out/time.ini" <<'PLAN'
# bench/honesty.sh: the default ping-pong curve timed against osu_latency
[time]
bench = pingpong.send_recv
sizes = 1:4MiB
stop  = stderr:3%
PLAN
cat >"$out/refine.ini" <<PLAN
# bench/honesty.sh: refinement at 5 % against a fixed sqrt(2) grid, with the
# dense reference measured in the same job
[refined]
bench  = pingpong.send_recv
sizes  = 1:4MiB
refine = 5%
budget = 64

[sqrt2]
bench = pingpong.send_recv
sizes = 1:4MiB:sqrt2

[dense]
bench = pingpong.send_recv
sizes = 1:4MiB:1.1
PLAN

now() { date +%s.%N; }
# timed NAME cmd...: run, stdout to NAME.txt, stderr to NAME.err, seconds to NAME.wall
timed() {
    local name=$1 t0 t1 rc=0
    shift
    t0=$(now)
    "$@" >"$out/$name.txt" 2>"$out/$name.err" || rc=$?
    t1=$(now)
    python3 -c "import sys; print('%.3f' % (float(sys.argv[2]) - float(sys.argv[1])))" \
        "$t0" "$t1" >"$out/$name.wall"
    if [ $rc -ne 0 ]; then
        echo "honesty: $name failed (exit $rc): $(tail -n 2 "$out/$name.err" | tr '\n' ' ')" >&2
        return 1
    fi
}

echo "honesty: $nprof profile + $nfresh fresh launches at sizes $sizes into $out" \
    "(mpibex $mpibex${osu:+, osu $osu}${imb:+, imb $imb})" >&2
t_start=$(now)
echo "honesty: profile: mpibex repeat -k $nprof" >&2
gapopt=()
[ "$pgap" -gt 0 ] && gapopt=(--gap "$pgap") # an mpibex before --gap takes none
"$mpibex" repeat -k "$nprof" "${gapopt[@]}" --mpiexec "$mpiexec" -n 2 -q -- "$out/plan.ini" -q \
    -o "$out/profile" >&2 || die 1 "the profile's repeat failed; files in $out/profile"
# A stored profile (ci_scope=profile, pi95_* columns) when this mpibex can
# make one; the analysis computes its own from the CSVs either way.
if "$mpibex" calibrate --help >/dev/null 2>&1; then
    if "$mpibex" calibrate "$out/profile" >"$out/calibrate.txt" 2>&1; then
        echo "honesty: mpibex calibrate stored a profile in $XDG_STATE_HOME" >&2
    else
        echo "honesty: mpibex calibrate failed ($(tail -n 1 "$out/calibrate.txt")): the fresh" \
            "launches keep their own scope" >&2
    fi
else
    echo "honesty: this mpibex has no calibrate: the fresh launches are launch-scoped;" \
        "the analysis widens them by the profile it computes" >&2
fi
# Fresh launches, one round each; with --time the time curve, osu_latency
# and IMB follow in the same round so every tool sees the same machine states.
for k in $(seq 1 "$nfresh"); do
    nn=$(printf '%02d' "$k")
    [ "$k" -gt 1 ] && [ "$gap" -gt 0 ] && sleep "$gap"
    echo "honesty: fresh launch $k/$nfresh" >&2
    timed "fresh/launch-$nn" "$mpiexec" -n 2 "$mpibex" run "$out/plan.ini" -q --raw \
        -o "$out/fresh/launch-$nn.csv" || die 1 "fresh launch $k failed; files in $out"
    [ $do_time = 1 ] || continue
    timed "time$k" "$mpiexec" -n 2 "$mpibex" run "$out/time.ini" -q -o "$out/time$k.csv" ||
        die 1 "time launch $k failed; files in $out"
    if [ -n "$osu" ]; then
        timed "osu$k" "$mpiexec" -n 2 "$osu/osu_latency" || die 1 "osu_latency failed"
    fi
    if [ -n "$imb" ]; then
        timed "imb$k" "$mpiexec" -n 2 "$imb" PingPong || die 1 "IMB-MPI1 failed"
    fi
done
if [ $do_refine = 1 ]; then
    echo "honesty: refinement job" >&2
    timed refine "$mpiexec" -n 2 "$mpibex" run "$out/refine.ini" -q -o "$out/refine.csv" ||
        die 1 "refinement job failed; files in $out"
fi
echo "honesty: measured in $(python3 -c "import sys; print('%.0f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t_start" "$(now)") s; analysing" >&2
python3 "$analyzer" "$out" --mpibex "$mpibex" --reps "$reps" || die 1 "the analysis failed; files in $out"
