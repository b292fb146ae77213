#!/usr/bin/env bash
# Figures on the error bars' honesty: calibration of the CI over
# launches, launch-to-launch spread within one machine level, wall time
# against osu_latency, the first-point transient, refinement against a fixed
# sqrt(2) grid, and fairness of two identical sections. A benchmark, not a
# test: a missed target is a figure, the exit status is 0 unless the harness
# itself fails. Rules and how to read the output: bench/README.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
    cat <<'USAGE'
usage: bench/honesty.sh [options]
  --mpibex PATH    the mpibex binary (default: build/mpibex of this tree)
  --osu DIR        directory holding osu_latency (OSU 7.4 built from source);
                   without it the time comparison runs mpibex alone
  --imb PATH       IMB-MPI1 binary (optional): its default PingPong joins the
                   interleaved time comparison
  --launches K     fresh jobs per measurement, 2..1000 (default 10)
  --quick          3 launches, fewer sizes, a coarser dense reference
  --out DIR        where every file goes (default ./honesty-YYYYmmdd-HHMMSS);
                   must not hold results already
  --mpiexec PATH   the launcher (default: mpiexec)
  --analyze DIR    only analyse a directory an earlier run left
  -h, --help       this text
Each launch is `mpiexec -n 2 mpibex run PLAN -o DIR/NAME.csv` with default
settings; the plans are written to DIR (honesty.ini, time.ini, refine.ini).
Progress goes to stderr, figures to stdout, ending in a summary table.
USAGE
}

die() { # status message
    echo "honesty: $2" >&2
    exit "$1"
}

mpibex=$root/build/mpibex
osu="" imb="" launches="" quick=0 out="" mpiexec=mpiexec analyze=""
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --quick) quick=1; shift; continue ;;
    --mpibex | --osu | --imb | --launches | --out | --mpiexec | --analyze)
        [ $# -ge 2 ] || die 2 "$1: expected a value"
        case $1 in
        --mpibex) mpibex=$2 ;;
        --osu) osu=$2 ;;
        --imb) imb=$2 ;;
        --launches) launches=$2 ;;
        --out) out=$2 ;;
        --mpiexec) mpiexec=$2 ;;
        --analyze) analyze=$2 ;;
        esac
        shift 2 ;;
    *) die 2 "unknown option '$1' (see --help)" ;;
    esac
done

analyzer=$root/bench/honesty_analyze.py
if [ -n "$analyze" ]; then
    exec python3 "$analyzer" "$analyze" --mpibex "$mpibex"
fi

if [ -z "$launches" ]; then
    launches=$([ $quick = 1 ] && echo 3 || echo 10)
fi
if ! [[ $launches =~ ^[0-9]{1,4}$ ]] || [ "$launches" -lt 2 ] || [ "$launches" -gt 1000 ]; then
    die 2 "--launches: expected a whole number in 2..1000 (got '$launches')"
fi
[ -x "$mpibex" ] || die 2 "--mpibex: not an executable file: '$mpibex' (build first: scripts/build.sh)"
if [ -n "$osu" ]; then
    [ -x "$osu/osu_latency" ] || die 2 "--osu: no executable osu_latency in '$osu'"
fi
if [ -n "$imb" ]; then
    [ -x "$imb" ] || die 2 "--imb: not an executable file: '$imb'"
fi
command -v "$mpiexec" >/dev/null || die 2 "--mpiexec: not found: '$mpiexec'"
command -v python3 >/dev/null || die 2 "python3 is needed for the analysis"
out=${out:-honesty-$(date -u +%Y%m%d-%H%M%S)}
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
    die 2 "--out: '$out' is not empty; choose a new directory (or --analyze it)"
fi
mkdir -p "$out" || die 1 "--out: cannot create '$out'"

if [ $quick = 1 ]; then
    sizes=1:1MiB:16 dense=1.25
else
    sizes=1:1MiB:4 dense=1.1
fi
# Sections A and B are the same measurement: their twins give the transient
# (the job's first point above 4 KiB against its twin measured later) and
# the fairness comparison; both count in calibration and spread. Section S
# (Ssend at 1 B) is the difference the comparison must find.
cat >"$out/honesty.ini" <<PLAN
# bench/honesty.sh: calibration, launch spread, transient, fairness
[A]
bench = pingpong.send_recv, coll.allreduce
sizes = $sizes

[B]
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
sizes = 1:4MiB:$dense
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

echo "honesty: $launches launches into $out (mpibex $mpibex${osu:+, osu $osu}${imb:+, imb $imb})" >&2
t_start=$(now)
# Interleaved A B A B ...: each launch round runs the calibration plan, the
# time curve, osu_latency (and IMB) once, so every tool sees the same
# machine states over the run.
for k in $(seq 1 "$launches"); do
    echo "honesty: launch $k/$launches: calibration plan" >&2
    timed "launch$k" "$mpiexec" -n 2 "$mpibex" run "$out/honesty.ini" -q --raw \
        -o "$out/launch$k.csv" || die 1 "launch $k failed; files in $out"
    echo "honesty: launch $k/$launches: time curve" >&2
    timed "time$k" "$mpiexec" -n 2 "$mpibex" run "$out/time.ini" -q -o "$out/time$k.csv" ||
        die 1 "time launch $k failed; files in $out"
    if [ -n "$osu" ]; then
        echo "honesty: launch $k/$launches: osu_latency" >&2
        timed "osu$k" "$mpiexec" -n 2 "$osu/osu_latency" || die 1 "osu_latency failed"
    fi
    if [ -n "$imb" ]; then
        echo "honesty: launch $k/$launches: IMB-MPI1 PingPong" >&2
        timed "imb$k" "$mpiexec" -n 2 "$imb" PingPong || die 1 "IMB-MPI1 failed"
    fi
done
echo "honesty: refinement job" >&2
timed refine "$mpiexec" -n 2 "$mpibex" run "$out/refine.ini" -q -o "$out/refine.csv" ||
    die 1 "refinement job failed; files in $out"
echo "honesty: measured in $(python3 -c "import sys; print('%.0f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t_start" "$(now)") s; analysing" >&2
python3 "$analyzer" "$out" --mpibex "$mpibex" || die 1 "the analysis failed; files in $out"
