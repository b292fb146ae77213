#!/usr/bin/env bash
# usage: list_absent.sh MPIBEX HAVE_PCOLL CSV -- MPIEXEC -n 1 [FLAGS...]
# HAVE_PCOLL is the configure check's value (1, or empty/0 when the MPI
# lacks the persistent collectives and partitioned communication, as Open
# MPI 4.1 does). Lacking: `mpibex list` ends with a "not in this build"
# section naming all 16 coll.*_init, part.send_recv and part.mt with the reason,
# `mpibex list coll.bcast_init` and a run of it exit 2 saying why. Having:
# no such section, and the 16 are listed as benchmarks.
set -u
mpibex=$1 have=$2 csv=$3
shift 3
[ "$1" = "--" ] && shift
fail() { echo "list_absent: $*" >&2; exit 1; }
list=$("$mpibex" list) || fail "mpibex list failed"
n=$(printf '%s\n' "$list" | grep -c '^coll\.[a-z_]*_init ')
if [ "$have" = 1 ] || [ "$have" = ON ] || [ "$have" = TRUE ]; then
    printf '%s\n' "$list" | grep -q 'not in this build' && fail "a build with them lists some as missing"
    [ "$n" = 16 ] || fail "expected 16 coll.*_init benchmarks, found $n"
    exit 0
fi
gone=$(printf '%s\n' "$list" | sed -n '/^# not in this build/,$p')
[ -n "$gone" ] || fail "no '# not in this build' section"
m=$(printf '%s\n' "$gone" | grep -c '^coll\.[a-z_]*_init .*not in this build: its MPI is [0-9]\.[0-9], without the MPI-4.0 persistent collectives')
[ "$m" = 16 ] || fail "expected 16 missing coll.*_init with the reason, found $m"
[ "$n" = 16 ] || fail "expected the 16 only under the section, found $n lines"
printf '%s\n' "$gone" | grep -q '^part\.send_recv .*not in this build: its MPI is [0-9]\.[0-9], without MPI-4.0 partitioned communication' ||
    fail "part.send_recv not named as missing"
printf '%s\n' "$gone" | grep -q '^part\.mt .*not in this build: its MPI is [0-9]\.[0-9], without MPI-4.0 partitioned communication' ||
    fail "part.mt not named as missing"
err=$("$mpibex" list coll.bcast_init 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "mpibex list coll.bcast_init: exit $rc, expected 2"
printf '%s\n' "$err" | grep -q "'coll.bcast_init' is not in this build: its MPI is" || fail "list: '$err'"
rm -f "$csv" "${csv%.csv}".*
err=$("$@" "$mpibex" run --bench 'coll.*_init' -q -o "$csv" 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "run --bench 'coll.*_init': exit $rc, expected 2 ($err)"
printf '%s\n' "$err" | grep -q "bench: 'coll.\*_init' is not in this build: its MPI is" || fail "run: '$err'"
echo "list_absent: 16 missing, named with the reason; list and run exit 2"
