#!/usr/bin/env bash
# A batch run that Slurm ends before it finishes, then finished by
# --resume in a new job (from the login node mbxh3, see lib_slurm.sh):
#
#   sbatch_stop.sh cancel    MPIBEX CSVCHECK   scancel of the running job
#   sbatch_stop.sh timelimit MPIBEX CSVCHECK   sbatch --time=1: the limit ends it
#
# The job (-N 2 -n 2) runs `srun mpibex run plan.ini -o out.csv`, a plan of
# sections of 4 short points each, measured in shuffled rounds (a row lands
# as its point settles). Slurm ends the step
# with SIGTERM (SIGKILL KillWait = 5 s later). Checked: the job leaves
# squeue; Slurm's own line in the job's output (CANCELLED, or DUE TO TIME
# LIMIT); mpibex's note line (stopped by signal 15, the Slurm job, how
# many points are in out.csv, continue with --resume); every row of
# out.csv whole, as many as the note says; the journal kept. Then a second
# job runs `srun mpibex run plan.ini --resume -o out.csv`: it exits 0, the
# journal is gone, out.csv parses (csvcheck) with every point of the plan,
# and its env file names the second job. Nothing is left on the nodes.
#
# For the time limit: Slurm checks limits about every 30 s, so a 1-minute
# job ends 60 to 90 s after it starts; the plan's pace (below) keeps the
# run going for 100 s whatever the machine's speed.
#
# PASS/FAIL lines; exit 77 ("SKIP: reason") where namespaces or the Slurm
# daemons cannot run here.
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
. "$(dirname "$(readlink -f "$0")")/../netns/lib_netns.sh"
. "$(dirname "$(readlink -f "$0")")/lib_slurm.sh"
[ $# -eq 3 ] || { echo "usage: $0 cancel|timelimit MPIBEX CSVCHECK" >&2; exit 2; }
mode=$1
case "$mode" in cancel | timelimit) ;; *) echo "usage: $0 cancel|timelimit MPIBEX CSVCHECK" >&2; exit 2 ;; esac
test_case=slurm.sbatch_$mode
mpibex=$(readlink -f "$2")
csvcheck=$(readlink -f "$3")
mbx_slurm_begin "$mode"
cleanup() { mbx_slurm_down; }
mbx_netns_traps
mbx_slurm_up

# Sections of 4 points each (S, 8S, 64S, 512S bytes). Cancel: 12 sections,
# cancelled once a few rows are in. The odd ones settle after 2 passes over
# 1 s; the even ones never settle (stderr:0.001%) and take --max-passes 12,
# so the run is still under way when the rows come (with one rule for all,
# the 48 rows came within 0.3 s and the cancel could miss the run). Time limit: the run must still be under way when Slurm ends the
# job, 60 to 90 s after it starts (Slurm checks limits about every 30 s),
# on a fast machine as on a slow one, and the resume should be short. So
# its pace is set by time, not work: 3 passes over 40 s (a pass every
# 20 s); 2 sections take exactly those 3 (stop = fixed:N), their rows land
# at 40 s; 2 never settle (stderr:0.001%) and take --max-passes 6, to
# 100 s. A resume keeps the spacing of the passes carried over, so it only
# adds the passes still due, 20 s apart.
plan=$work/plan.ini
section() { # section S PASSES SPAN STOP
    printf '[s%d]\nbench = pingpong.send_recv\nsizes = %d:%d:8\nstop = %s\n' "$1" "$1" $(($1 * 512)) "$4"
    printf 'passes = %d\nspan = %s\nrefine = off\n\n' "$2" "$3"
}
if [ "$mode" = cancel ]; then
    sections=12 run_opts="--max-passes 12"
    for ((s = 1; s <= sections; s++)); do
        section $s 2 1 "$([ $((s % 2)) = 1 ] && echo stderr:5% || echo stderr:0.001%)"
    done >"$plan"
else
    sections=4 run_opts="--max-passes 6"
    { section 1 3 40 fixed:600; section 2 3 40 stderr:0.001%
      section 3 3 40 fixed:600; section 4 3 40 stderr:0.001%; } >"$plan"
fi
points=$((sections * 4))

# job NAME [sbatch options]: submits a job script that runs srun mpibex run
# with the given run options; prints the job id.
job() {
    local name=$1 opts=$2
    shift 2
    {
        echo "#!/bin/bash"
        echo "srun $mpibex run $plan -q $opts -o $work/out.csv"
        echo "echo \"srun exited \$?\""
    } >"$work/$name.sh"
    mbx_slurm_login sbatch --parsable -N 2 -n 2 -o "$work/$name-%j.out" --chdir="$work" "$@" "$work/$name.sh" 2>&1
}

if [ "$mode" = cancel ]; then
    jobid=$(job first "$run_opts")
else
    jobid=$(job first "$run_opts" --time=1)
fi
case "$jobid" in '' | *[!0-9]*) die "sbatch did not give a job id: $jobid" ;; esac
pass "sbatch: job $jobid ($sections sections, $points points)"
t0=$SECONDS
if [ "$mode" = cancel ]; then
    # Cancel once a few sections' rows are in.
    for ((i = 0; i < 120; i++)); do
        [ -f "$work/out.csv" ] && [ "$(wc -l <"$work/out.csv")" -gt 8 ] && break
        sleep 0.5
    done
    rows=$(($(wc -l <"$work/out.csv" 2>/dev/null || echo 1) - 1))
    echo "INFO: squeue before scancel: $(mbx_slurm_login squeue -h -o '%i %T %M %N' | tr '\n' ';')"
    mbx_slurm_login scancel "$jobid"
    pass "scancel $jobid with $rows rows in out.csv"
fi
if mbx_slurm_job_gone "$jobid" 150; then
    pass "job $jobid ended after $((SECONDS - t0)) s and left squeue"
else
    fail "job $jobid still in squeue after 150 s"
fi
out=$(ls "$work"/first-*.out)
sed 's/^/    out| /' "$out"
if [ "$mode" = cancel ]; then
    slurm_line=$(grep -E "\*\*\* (STEP|JOB) $jobid(\.0)? ON mbxh1 CANCELLED AT" "$out" | head -1)
else
    slurm_line=$(grep -E "\*\*\* (STEP|JOB) $jobid(\.0)? ON mbxh1 CANCELLED AT .* DUE TO TIME LIMIT" "$out" | head -1)
fi
[ -n "$slurm_line" ] && pass "Slurm says: $slurm_line" || fail "no CANCELLED line of Slurm's in the job's output"
note=$(grep -E "^mpibex: stopped by signal 15 \(Slurm job $jobid ending: scancel, time limit or preemption\): [0-9]+ points finished and are in $work/out.csv.*; continue with --resume" "$out" | head -1)
if [ -n "$note" ]; then
    pass "note: ${note//$work\//}"
else
    fail "no 'mpibex: stopped by signal 15 (Slurm job $jobid ...)' note in the job's output"
    # What was in flight, and when Slurm signalled: the journal's last
    # records and slurmd's lines about the step's signals.
    tail -4 "$work/out.journal" 2>/dev/null | cut -c1-160 | sed 's/^/    journal| /'
    grep -hiE 'signal|kill|cancel|time limit' "$work"/slurmd-*.log 2>/dev/null | tail -12 |
        sed 's/^/    slurmd| /'
fi
said=$(echo "$note" | grep -oE "[0-9]+ points finished" | grep -oE "^[0-9]+")
whole=$(python3 - "$work/out.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
width = len(rows[0])
bad = [i for i, r in enumerate(rows[1:], 2) if len(r) != width or not r[-1:] or r[0] == ""]
raw = open(sys.argv[1], "rb").read()
print(len(rows) - 1, "whole" if not bad and raw.endswith(b"\n") else "broken at lines %s" % bad[:3])
PY
)
echo "INFO: out.csv after the stop: $whole"
case "$whole" in
    "${said:-x} whole") pass "out.csv: $said rows, each whole, as the note says" ;;
    *) fail "out.csv: '$whole', the note said ${said:-nothing}" ;;
esac
[ -f "$work/out.journal" ] && pass "the journal (out.journal) is kept for --resume" || fail "no out.journal"
if [ "${said:-0}" -ge "$points" ]; then fail "the run finished before Slurm ended it"; fi

# Resume in a new job.
job2=$(job resume "$run_opts --resume")
case "$job2" in '' | *[!0-9]*) die "sbatch (resume) did not give a job id: $job2" ;; esac
t0=$SECONDS
mbx_slurm_job_gone "$job2" 150 || fail "resume job $job2 still in squeue after 150 s"
echo "INFO: the resume job took $((SECONDS - t0)) s"
out2=$(ls "$work"/resume-*.out)
if grep -q "^srun exited 0" "$out2"; then
    pass "resume job $job2: srun exited 0"
else
    fail "resume job $job2 did not exit 0"
    sed 's/^/    out| /' "$out2" | tail -10
fi
[ -f "$work/out.journal" ] && fail "the journal is still there after the resume" || pass "journal gone: the run is complete"
n=$(($(wc -l <"$work/out.csv") - 1))
[ "$n" -eq "$points" ] && pass "out.csv has all $points points" || fail "out.csv has $n rows, the plan $points points"
"$csvcheck" "$work/out.csv" --env "$work/out.env.csv" >"$work/check.log" 2>&1 &&
    pass "out.csv parses, every SETTLED row meets its rule" || fail "csvcheck: $(tail -3 "$work/check.log" | tr '\n' ' ')"
echo "INFO: out.env.csv: $(grep -E "^env\.SLURM_(JOB_ID|JOB_NODELIST|CPU_BIND)," "$work/out.env.csv" | tr '\n' ' ')"
mbx_slurm_no_leftovers
mbx_finish
