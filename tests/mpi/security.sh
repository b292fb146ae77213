#!/usr/bin/env bash
# What a batch run writes, and where, one case per invocation:
#
#   security.sh MPIEXEC NPFLAG MPIBEX CSVCHECK OUTDIR CASE
#
#   symlink  a symbolic link planted at OUT.csv, OUT.env.csv, OUT.obs.csv,
#            OUT.probe.csv or OUT.journal (to an existing file, or dangling)
#            is refused before anything is measured: exit 2, one line naming
#            it, the link's target untouched (not created, not cut, not
#            written), no result file left; --resume through a planted link
#            to the CSV or the journal is refused the same way
#   umask    files are created with the user's umask: under 077 every result
#            file (CSV, .env.csv, .obs.csv, .probe.csv and the journal while
#            the run goes) is 0600, under 022 0644
#   secrets  variables that hold secrets (MBX_TEST_SECRET, AWS_SECRET_ACCESS_KEY,
#            and a made-up MPICH_TEST_TOKEN under a recorded prefix) reach
#            no output file, stdout or stderr; a tuning variable is recorded
set -u
mpiexec=$1 npflag=$2 mpibex=$3 csvcheck=$4 dir=$5 case=$6
. "$(dirname "$0")/../lib.sh"
test_case=$case
work=$dir/security_$case
rm -rf "$work"
mkdir -p "$work"

run() { # run ARGS...: a small batch run on 2 ranks, output in $work/run.*
    "$mpiexec" "$npflag" 2 "$mpibex" run "$@" >"$work/run.out" 2>"$work/run.err"
}
small=(--bench pingpong.send_recv --sizes 1,64 --stop fixed:20)

case $case in
symlink)
    out=$work/r.csv
    for side in .csv .env.csv .obs.csv .probe.csv .journal; do
        for kind in existing dangling; do
            rm -f "$work"/r.* "$work/victim"
            [ "$kind" = existing ] && printf 'victim\n' >"$work/victim"
            ln -s "$work/victim" "$work/r$side"
            run "${small[@]}" --raw -o "$out"
            code=$?
            msg=$(grep -v 'warning:' "$work/run.err")
            want="^mpibex: -o: '$work/r$side' is a symbolic link; mpibex never writes through one \(remove it, or choose another -o\)$"
            if [ "$code" -eq 2 ] && [ "$(printf '%s\n' "$msg" | grep -c .)" -eq 1 ] &&
                printf '%s\n' "$msg" | grep -Eq -- "$want"; then
                pass "link at r$side ($kind target): exit 2, one line naming it"
            else
                fail "link at r$side ($kind target): exit $code, stderr: $msg"
            fi
            if [ "$kind" = existing ]; then
                [ "$(cat "$work/victim")" = victim ] && pass "r$side: the link's target is untouched" ||
                    fail "r$side: the link's target was changed"
            else
                [ ! -e "$work/victim" ] && pass "r$side: the dangling link's target was not created" ||
                    fail "r$side: the dangling link's target was created"
            fi
            left=$(cd "$work" && ls r.* 2>/dev/null | grep -vxF "r$side")
            [ -z "$left" ] && pass "r$side: no result file written" || fail "r$side: files written: $left"
        done
    done
    # --resume: a link at the CSV (which resume would cut back to its last
    # complete row) or at the journal (which it would append to).
    for side in .csv .journal; do
        rm -f "$work"/r.* "$work/victim"
        printf 'victim,no newline at the end' >"$work/victim"
        other=.journal
        [ "$side" = .journal ] && other=.csv
        printf 'x\n' >"$work/r$other"
        ln -s "$work/victim" "$work/r$side"
        run "${small[@]}" -o "$out" --resume
        code=$?
        [ "$code" -eq 2 ] && grep -q "'$work/r$side' is a symbolic link" "$work/run.err" &&
            pass "--resume through a link at r$side: refused (exit 2)" ||
            fail "--resume through a link at r$side: exit $code, $(cat "$work/run.err")"
        [ "$(cat "$work/victim")" = "victim,no newline at the end" ] &&
            pass "--resume: the link's target is not cut or appended to" || fail "--resume changed the target"
    done
    ;;
umask)
    for mask in 077 022; do
        want=600
        [ "$mask" = 022 ] && want=644
        rm -f "$work"/u.*
        # The journal lives only while the run goes: look at it then.
        (umask "$mask" && exec "$mpiexec" "$npflag" 2 "$mpibex" run --bench pingpong.send_recv,coll.bcast \
            --sizes 1:4KiB:2 --stop fixed:200 --raw -q -o "$work/u.csv" >"$work/run.out" 2>"$work/run.err") &
        job=$!
        jmode=""
        for ((i = 0; i < 600 && ${#jmode} == 0; i++)); do
            jmode=$(stat -c %a "$work/u.journal" 2>/dev/null)
            [ -n "$jmode" ] || sleep 0.02
        done
        wait "$job"
        code=$?
        [ "$code" -eq 0 ] || fail "umask $mask: run exit $code: $(cat "$work/run.err")"
        [ "$jmode" = "$want" ] && pass "umask $mask: journal mode $jmode" || fail "umask $mask: journal mode '${jmode:-not seen}', want $want"
        for f in u.csv u.env.csv u.obs.csv u.probe.csv; do
            m=$(stat -c %a "$work/$f" 2>/dev/null)
            [ "$m" = "$want" ] && pass "umask $mask: $f mode $m" || fail "umask $mask: $f mode '${m:-missing}', want $want"
        done
    done
    ;;
secrets)
    secret=hunter2-$$-$RANDOM
    env MBX_TEST_SECRET="$secret" AWS_SECRET_ACCESS_KEY="$secret" MPICH_TEST_TOKEN="$secret" \
        MPIR_CVAR_TEST_PASSWORD="$secret" MPICH_TEST_TUNING=42 \
        "$mpiexec" "$npflag" 2 "$mpibex" run "${small[@]}" --raw -o "$work/s.csv" >"$work/run.out" 2>"$work/run.err"
    code=$?
    [ "$code" -eq 0 ] && pass "run exit 0" || fail "run exit $code: $(cat "$work/run.err")"
    ls "$work"/s.* >/dev/null 2>&1 && pass "files written: $(cd "$work" && ls s.* | tr '\n' ' ')" || fail "no output"
    hits=$(grep -rlF -- "$secret" "$work")
    [ -z "$hits" ] && pass "the secret is in no output file, stdout or stderr" || fail "the secret leaked into: $hits"
    grep -qx 'env.MPICH_TEST_TUNING,42' "$work/s.env.csv" && pass "a tuning variable is recorded" ||
        fail "env.MPICH_TEST_TUNING not recorded"
    grep -qx 'env.MPICH_TEST_TOKEN,(not recorded)' "$work/s.env.csv" &&
        grep -qx 'env.MPIR_CVAR_TEST_PASSWORD,(not recorded)' "$work/s.env.csv" &&
        pass "a secret-looking name under a recorded prefix keeps its value out" ||
        fail "MPICH_TEST_TOKEN / MPIR_CVAR_TEST_PASSWORD not marked (not recorded)"
    grep -qE '^env\.(MBX_TEST_SECRET|AWS_)' "$work/s.env.csv" && fail "a name outside the whitelist was recorded" ||
        pass "names outside the whitelist are not recorded"
    "$csvcheck" "$work/s.csv" --env "$work/s.env.csv" --obs "$work/s.obs.csv" >/dev/null || fail "csvcheck"
    ;;
*)
    echo "unknown case $case" >&2
    exit 2
    ;;
esac
mbx_finish
