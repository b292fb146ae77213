#!/usr/bin/env bash
# A batch job, as a user submits it from the login node (mbxh3, see
# lib_slurm.sh):
#
#   sbatch -N 2 -n 2 job.sh     job.sh: srun mpibex run samples/quick.ini -o out.csv
#
# Checked: the job runs and leaves squeue; out.csv parses (csvcheck, every
# SETTLED row meets its rule); out.env.csv records the Slurm job (its id,
# node list, the step, and the binding Slurm gave: env.SLURM_CPU_BIND*), the
# ranks on mbxh1 and mbxh2 with each rank's binding, and of the
# environment nothing but those facts and library tuning variables (no
# SLURM_CONF, SLURM_SUBMIT_DIR, user names, ports); nothing is left on the
# nodes but slurmd.
#
#   sbatch_run.sh MPIBEX CSVCHECK SAMPLES_DIR
#
# PASS/FAIL lines; exit 77 ("SKIP: reason") where namespaces or the Slurm
# daemons cannot run here.
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
. "$(dirname "$(readlink -f "$0")")/../netns/lib_netns.sh"
. "$(dirname "$(readlink -f "$0")")/lib_slurm.sh"
test_case=slurm.sbatch_run
[ $# -eq 3 ] || { echo "usage: $0 MPIBEX CSVCHECK SAMPLES_DIR" >&2; exit 2; }
mpibex=$(readlink -f "$1")
csvcheck=$(readlink -f "$2")
samples=$(readlink -f "$3")
mbx_slurm_begin sbatch
cleanup() { mbx_slurm_down; }
mbx_netns_traps
mbx_slurm_up

cat >"$work/job.sh" <<JOB
#!/bin/bash
#SBATCH -N 2
#SBATCH -n 2
#SBATCH -o $work/job-%j.out
srun $mpibex run $samples/quick.ini -o $work/out.csv
echo "srun exited \$?"
JOB
jobid=$(mbx_slurm_login sbatch --parsable --chdir="$work" "$work/job.sh" 2>&1)
case "$jobid" in
    '' | *[!0-9]*) die "sbatch did not give a job id: $jobid" ;;
esac
pass "sbatch: job $jobid"
echo "INFO: squeue: $(mbx_slurm_login squeue -h -o '%i %T %N' | tr '\n' ';')"
# quick.ini is "well under 30 s" on a calm machine; allow for a busy one.
if mbx_slurm_job_gone "$jobid" 150; then
    pass "job $jobid ended and left squeue"
else
    fail "job $jobid still in squeue after 150 s"
fi
out="$work/job-$jobid.out"
if grep -q "^srun exited 0" "$out"; then
    pass "the job's srun exited 0"
else
    fail "the job's srun did not exit 0"
    sed 's/^/    out| /' "$out" | tail -15
fi
if "$csvcheck" "$work/out.csv" --env "$work/out.env.csv" >"$work/check.log" 2>&1; then
    pass "out.csv parses, every SETTLED row meets its rule ($(($(wc -l <"$work/out.csv") - 1)) rows)"
else
    fail "csvcheck: $(tail -3 "$work/check.log" | tr '\n' ' ')"
fi
env_csv=$work/out.env.csv
grep -E "^(env\.SLURM_|hosts,|ranks_per_host,|rank\.[0-9]+\.(host|binding),)" "$env_csv" | sed 's/^/    env| /'
v() { mbx_env_value "$env_csv" "$1"; }
[ "$(v env.SLURM_JOB_ID)" = "$jobid" ] && pass "env.SLURM_JOB_ID=$jobid" || fail "env.SLURM_JOB_ID is '$(v env.SLURM_JOB_ID)'"
[ "$(v env.SLURM_JOB_NODELIST)" = "mbxh[1-2]" ] && pass "env.SLURM_JOB_NODELIST=mbxh[1-2]" ||
    fail "env.SLURM_JOB_NODELIST is '$(v env.SLURM_JOB_NODELIST)'"
[ -n "$(v env.SLURM_STEP_ID)" ] && pass "env.SLURM_STEP_ID=$(v env.SLURM_STEP_ID)" || fail "no env.SLURM_STEP_ID"
# Slurm's implicit binding here: one core each (mbxh1 core 0, mbxh2 core 1).
case "$(v env.SLURM_CPU_BIND)" in
    *mask_cpu:*) pass "env.SLURM_CPU_BIND=$(v env.SLURM_CPU_BIND)" ;;
    *) fail "env.SLURM_CPU_BIND is '$(v env.SLURM_CPU_BIND)'" ;;
esac
[ "$(v ranks_per_host)" = "mbxh1:1 mbxh2:1" ] && pass "ranks_per_host=mbxh1:1 mbxh2:1" ||
    fail "ranks_per_host is '$(v ranks_per_host)'"
b0=$(v rank.0.binding) b1=$(v rank.1.binding)
case "$b0 / $b1" in
    "0 (core L#0) / 1 (core L#1)") pass "ranks bound as Slurm said: rank 0 $b0, rank 1 $b1" ;;
    *) fail "rank bindings: '$b0' / '$b1'" ;;
esac
others=$(grep -E "^env\." "$env_csv" | cut -d, -f1 |
    grep -vE "^env\.(MPICH_|MPIR_CVAR_|UCX_|OMPI_|FI_|OMP_|GOMP_|KMP_)" |
    grep -vxE "env\.SLURM_(CLUSTER_NAME|JOB_ID|JOB_PARTITION|JOB_NODELIST|JOB_NUM_NODES|JOB_CPUS_PER_NODE|NTASKS|TASKS_PER_NODE|CPUS_PER_TASK|STEP_ID|STEP_NODELIST|STEP_NUM_NODES|STEP_NUM_TASKS|STEP_TASKS_PER_NODE|DISTRIBUTION|CPU_BIND|CPU_BIND_TYPE|CPU_BIND_LIST|MPI_TYPE|RESTART_COUNT)")
if [ -z "$others" ]; then
    pass "no other environment variable in out.env.csv"
else
    fail "other variables recorded: $(echo "$others" | tr '\n' ' ')"
fi
grep -qE "$work|SLURM_CONF|SLURM_SUBMIT|SLURM_JOB_USER|root" "$env_csv" &&
    fail "out.env.csv names a path or user: $(grep -E "$work|SLURM_CONF|SLURM_SUBMIT|SLURM_JOB_USER|root" "$env_csv" | head -3 | tr '\n' ' ')" ||
    pass "out.env.csv names no path of the job, no user"
mbx_slurm_no_leftovers
mbx_finish
