#!/usr/bin/env bash
# Every option of `run` is a plan key: the keys take effect, the
# command line wins, a bad value is the option's own line naming the key.
# One case per invocation, properties only, never a time:
#
#   option_keys.sh MPIEXEC NPFLAG MPIBEX OUTDIR CASE
#
#   fake_keys     (fake) order, passes, max_passes, span, time_limit,
#                 monitor, shift, settle, raw from a plan are recorded in
#                 the environment file (and FILE.obs.csv written); --order
#                 shuffle --passes 2 on the command line win; pass_ms = 0
#                 is one line naming the key, exit 2, no file
#   validate_plan 2 ranks, validate = yes and thread_level = multiple in a
#                 plan: every row validated, MPI asked for multiple; the
#                 same plan without them: not validated, single
#   explorer_form (fake, headless) a plan's sync, clock_sync, timer,
#                 validate and warmup fill the explorer's form; without
#                 them it shows its defaults
set -u
mpiexec=$1 npflag=$2 mpibex=$3 dir=$4 case=$5
. "$(dirname "$0")/../lib.sh"
test_case=$case
work=$dir/option_keys_$case
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
# The suite's MPIBEX_RUN_OPTIONS would win over the plan's keys.
unset MPIBEX_RUN_OPTIONS

envval() { grep -m1 "^$1," "$2" | cut -d, -f2- | tr -d '"'; }
# expect FILE KEY VALUE WHAT
expect() {
    local got
    got=$(envval "$2" "$1")
    [ "$got" = "$3" ] && pass "$4" || fail "$4: $2 is '$got', not '$3'"
}
column() {
    python3 -c 'import csv, sys
print(" ".join(sorted(set(r[sys.argv[2]] for r in csv.DictReader(open(sys.argv[1], newline=""))))))' "$1" "$2"
}

case $case in
fake_keys)
    cat >k.ini <<'PLAN'
[a]
bench = pingpong.send_recv
sizes = 8,64
order = plan
passes = 3
max_passes = 4
span = 0
time_limit = 30
monitor = off
shift = 0.5
settle = 0
raw = yes
[b]
bench = coll.bcast
sizes = 8
order = plan
PLAN
    "$mpibex" run --fake 2 k.ini -o k.csv >out 2>err || die "run: $(head -c 300 err)"
    expect k.env.csv order plan "order = plan"
    expect k.env.csv passes_min 3 "passes = 3"
    expect k.env.csv passes_max 4 "max_passes = 4"
    expect k.env.csv passes_span_s 0.000 "span = 0"
    expect k.env.csv passes_time_limit_s 30.000 "time_limit = 30"
    expect k.env.csv monitor off "monitor = off"
    [ -s k.obs.csv ] && pass "raw = yes: k.obs.csv written" || fail "raw = yes: no k.obs.csv"
    "$mpibex" run --fake 2 k.ini --order shuffle --passes 2 -o c.csv >out 2>err ||
        die "run: $(head -c 300 err)"
    expect c.env.csv order shuffle "--order shuffle wins over the plan"
    expect c.env.csv passes_min 2 "--passes 2 wins over the plan"
    expect c.env.csv passes_max 4 "max_passes = 4 still from the plan"
    printf '[a]\nbench = pingpong.send_recv\npass_ms = 0\n' >bad.ini
    "$mpibex" run --fake 2 bad.ini -o b.csv >out 2>err
    [ $? -eq 2 ] && pass "pass_ms = 0: exit 2" || fail "pass_ms = 0 accepted"
    mbx_one_line err "^mpibex: bad\.ini: \[a\]: pass_ms: expected milliseconds in 0\.01\.\.1000 \(got '0'\)$"
    [ ! -e b.csv ] && pass "no file" || fail "b.csv written"
    ;;
validate_plan)
    printf '[v]\nbench = pingpong.send_recv,coll.bcast\nsizes = 8,1KiB\nspan = 0\nmonitor = off\n' >plain.ini
    cp plain.ini v.ini
    printf 'validate = yes\nthread_level = multiple\n' >>v.ini
    "$mpiexec" "$npflag" 2 "$mpibex" run v.ini -o v.csv >out 2>err || die "run: $(head -c 300 err)"
    [ "$(column v.csv validated)" = yes ] && pass "validate = yes: every row validated" ||
        fail "validated: '$(column v.csv validated)'"
    expect v.env.csv mpi_thread_level_asked MPI_THREAD_MULTIPLE "thread_level = multiple asked of MPI"
    "$mpiexec" "$npflag" 2 "$mpibex" run plain.ini -o p.csv >out 2>err || die "run: $(head -c 300 err)"
    [ "$(column p.csv validated)" = no ] && pass "without the key: not validated" ||
        fail "validated: '$(column p.csv validated)'"
    expect p.env.csv mpi_thread_level_asked MPI_THREAD_SINGLE "without the key: single"
    "$mpiexec" "$npflag" 2 "$mpibex" run v.ini --thread-level funneled -o f.csv >out 2>err ||
        die "run: $(head -c 300 err)"
    expect f.env.csv mpi_thread_level_asked MPI_THREAD_FUNNELED "--thread-level funneled wins over the plan"
    ;;
explorer_form)
    printf '[a]\nbench = pingpong.send_recv\nsizes = 8,64\n' >plain.ini
    cp plain.ini k.ini
    printf 'sync = window\nclock_sync = hca\ntimer = wtime\nvalidate = yes\nwarmup = 300\n' >>k.ini
    printf 'passes = 3\norder = plan\n' >>k.ini
    printf '2 dump:params\n' >form.keys
    for p in k plain; do
        mkdir -p "$p"
        LC_ALL=C.UTF-8 "$mpibex" explore --fake 2 --plan $p.ini --headless 120x50 --term xterm-mono \
            --keys form.keys --dump-dir "$p" --autosave none >out 2>err ||
            die "explorer on $p.ini: $(head -c 300 err)"
    done
    # field NAME DIR: the value shown in the form's row NAME
    field() { sed -n "s/^  $1  *<* *\([a-z0-9]*\) *>* .*/\1/p" "$2/params.txt" | head -1; }
    for f in "validate on off" "timer wtime clock" "sync window barrier" "clock sync hca jk" \
        "warm-up 300 default"; do
        set -- $f
        [ $# -eq 4 ] && set -- "$1 $2" "$3" "$4"
        [ "$(field "$1" k)" = "$2" ] && pass "the plan's key fills $1 with $2" ||
            fail "$1 shows '$(field "$1" k)', not '$2'"
        [ "$(field "$1" plain)" = "$3" ] && pass "without the key $1 shows $3" ||
            fail "without the key $1 shows '$(field "$1" plain)', not '$3'"
    done
    ;;
*)
    fail "unknown case $case"
    ;;
esac
mbx_finish
