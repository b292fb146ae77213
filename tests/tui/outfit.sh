#!/usr/bin/env bash
# `mpibex run`'s standard output fits the terminal it is written to, and a
# file or a pipe keeps the full table (on the fake back end, no MPI):
#
#   outfit.sh MPIBEX OUTDIR
#
# In a pseudo-terminal of 80 columns (script(1), stty cols 80): no line of
# standard output is longer than 80, the header keeps benchmark, bytes,
# median_us and status, each row its status on its first line, and the
# comment lines wrap with "#   ". Piped to cat inside the same terminal
# (a reader, not a process manager) and redirected to a file: the full
# header with tmean_us and ci95_us, rows as wide as before. Under a
# process manager that gives the run a pseudo-terminal of its own (Open
# MPI's): the manager's output decides, a file or a terminal.
set -u
mpibex=$1 dir=$2
. "$(dirname "$0")/../lib.sh"
work=$dir/outfit
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
command -v script >/dev/null || die "script(1) (util-linux) is needed for a pseudo-terminal"

args="run --fake 2 --bench pingpong.send_recv,coll.allreduce --sizes 8:64 --monitor off -q"
longest() { tr -d '\r' <"$1" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }

# stderr to a file: the pseudo-terminal carries standard output only.
script -qec "stty cols 80; '$mpibex' $args 2>tty.err" /dev/null >tty.out </dev/null ||
    die "run in a terminal: exit $? ($(head -c 300 tty.err))"
n=$(longest tty.out)
[ "$n" -le 80 ] && pass "terminal of 80 columns: the longest line is $n" ||
    fail "terminal of 80 columns: a line of $n: $(tr -d '\r' <tty.out | awk 'length($0) > 80' | head -2)"
head=$(tr -d '\r' <tty.out | grep '^# benchmark')
for w in procs bytes median_us status; do
    grep -qw "$w" <<<"$head" && pass "the narrow header keeps $w" || fail "no $w in '$head'"
done
grep -q 'tmean_us' <<<"$head" && fail "tmean_us in an 80-column header" || pass "tmean_us left out"
grep -q "^# this terminal's 80 columns show part of the table" <(tr -d '\r' <tty.out) &&
    pass "the head says the terminal shows part of the table" || fail "no line saying so"
rows=$(tr -d '\r' <tty.out | grep -cE '^(pingpong|coll)\.[a-z_]+ .*(SETTLED|UNSETTLED|SHIFTED)$')
[ "$rows" = 8 ] && pass "8 rows, each ending with its status" || fail "$rows rows end with a status"
tr -d '\r' <tty.out | grep -qE '^    [0-9]+ passes over ' && pass "notes after the status on a line of their own" ||
    fail "no continued row notes"
tr -d '\r' <tty.out | grep -q '^#   ' && pass "comments continue with '#   '" || fail "no continued comment"

# The same terminal, piped to a reader: the full table.
script -qec "stty cols 80; '$mpibex' $args 2>pipe.err | cat" /dev/null >pipe.out </dev/null ||
    die "run piped: exit $?"
head=$(tr -d '\r' <pipe.out | grep '^# benchmark')
grep -q 'tmean_us' <<<"$head" && grep -q 'ci95_us' <<<"$head" && pass "piped: the full header" ||
    fail "piped header '$head'"
[ "$(longest pipe.out)" -gt 120 ] && pass "piped: rows as wide as before" ||
    fail "piped: the longest line is $(longest pipe.out)"

# A process manager that gives the run a pseudo-terminal of its own (no
# size set) and copies it to its own output, as Open MPI's mpirun does:
# to a file, the full table; to a terminal of 100 columns, that
# terminal's width (not the 80 of a terminal without a size). The manager is found by its name, so the copier is called mpirun.
py=$(python3 -c 'import sys; print(sys.executable)')
cat >mpirun <<PY
#!$py
import os, subprocess, sys
master, slave = os.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave, stderr=open("mgr.err", "w"))
os.close(slave)
while True:
    try:
        b = os.read(master, 65536)
    except OSError:
        break
    if not b:
        break
    sys.stdout.buffer.write(b)
    sys.stdout.flush()
sys.exit(p.wait())
PY
chmod +x mpirun
./mpirun "$mpibex" $args >mgr.out 2>/dev/null || die "run under the fake mpirun: exit $? ($(head -c 300 mgr.err))"
head=$(tr -d '\r' <mgr.out | grep '^# benchmark')
grep -q 'ci95_us' <<<"$head" && [ "$(longest mgr.out)" -gt 120 ] &&
    pass "a manager's terminal copied to a file: the full table" ||
    fail "manager to a file: header '$head', longest line $(longest mgr.out)"
script -qec "stty cols 100; ./mpirun '$mpibex' $args 2>/dev/null" /dev/null >mgrtty.out </dev/null ||
    die "run under the fake mpirun in a terminal: exit $?"
n=$(longest mgrtty.out)
[ "$n" -le 100 ] && grep -q "^# this terminal's 100 columns" <(tr -d '\r' <mgrtty.out) &&
    pass "a manager's terminal copied to a terminal of 100: the longest line is $n" ||
    fail "manager to a terminal of 100: a line of $n; $(tr -d '\r' <mgrtty.out | grep "this terminal's")"

# A file: the full table too.
"$mpibex" $args >file.out 2>file.err || die "run to a file: exit $?"
grep '^# benchmark' file.out | grep -q 'ci95_us' && pass "file: the full header" ||
    fail "file header: $(grep '^# benchmark' file.out)"
grep -q "this terminal's" file.out && fail "file: a terminal note" || pass "file: no terminal note"
mbx_finish
