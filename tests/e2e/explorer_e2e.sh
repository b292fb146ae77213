#!/usr/bin/env bash
# End to end through the real launcher and mpiexec -n 2, in tmux: start,
# run, see braille plot cells appear, resize mid-run, export a CSV that
# parses, quit, find the shell prompt back with a sane terminal and no
# leftover process; then Ctrl-C mid-run (the autosaved CSV of finished
# points still parses); the b_eff screen (5): b_eff in quick mode and
# b_eff_io with T = 2 s show their summaries (no file left behind), a run
# cancels with c; the method fields (sync window), the monitor's probe
# strip, a comparison's Wilcoxon summary and p-values, and a report (w)
# whose files exist. Prints figures: key-to-screen latency, draw time, the
# b_eff and b_eff_io wall times and summaries.
# usage: explorer_e2e.sh MPIBEX CSVCHECK WORKDIR
set -u
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
mpibex=$1 check=$2 work=$3
sess=mbxe2e$$
# Every job this test starts carries the tag in its environment (the
# launcher, mpiexec and the ranks): its processes are found by it, never
# by the binary's name, so other tests' explorers may run beside it.
tag="e2e-explorer-$$-$RANDOM$RANDOM"
rm -rf "$work"
mkdir -p "$work"
screen() { tmux capture-pane -p -t "$sess" 2>/dev/null; }
cleanup() {
  local p
  tmux kill-session -t "$sess" 2>/dev/null
  for p in $(mbx_tagged "MBX_E2E_TAG=$tag"); do kill -KILL "$p" 2>/dev/null; done
}
trap cleanup EXIT
# The explorer's processes of this test: mpiexec and the ranks, i.e. the
# tagged ones whose command line names "$mpibex explore".
explorers() {
  local p
  for p in $(mbx_tagged "MBX_E2E_TAG=$tag"); do
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- "$mpibex explore" && echo "$p"
  done
}
no_explorers() { [ -z "$(explorers)" ]; }
# explorers_gone SECONDS: 0 once none is left, else 1.
explorers_gone() { mbx_until "$1" no_explorers; }

tmux new-session -d -s "$sess" -x 120 -y 36 "env -i $(mbx_mpi_env)HOME=$work PATH=$PATH TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 bash --norc --noprofile"
tmux send-keys -t "$sess" "cd $work && PS1='PROMPT> '" Enter
wait_for "PROMPT>" 10 || fail "shell prompt"

# 1. start the explorer on 2 ranks with the quick plan preloaded
tmux send-keys -t "$sess" "MBX_E2E_TAG=$tag $mpibex -n 2 --autosave $work/auto; echo EXIT=\$?" Enter
if wait_for "1 Picker" 30; then pass "explorer up through the launcher and mpiexec -n 2"; else fail "explorer did not start"; screen; fi
wait_for "2 ranks on 1 host" 5 && pass "title shows the job" || fail "title"

# key_latency KEY REGEX: ms from send-keys until the pane shows REGEX,
# polled every 10 ms (includes tmux's own delivery and capture)
key_latency() {
  local t0 t1 end=$((SECONDS + 5))
  t0=$(date +%s%N)
  tmux send-keys -t "$sess" "$1"
  until screen | grep -Eq -- "$2" || [ $SECONDS -ge $end ]; do sleep 0.01; done
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}
echo "FIGURE: key-to-screen latency in a menu: $(key_latency 2 '\[2 Parameters\]') ms, $(key_latency 1 '\[1 Picker\]') ms"

# 2. pick: none, then filter for allreduce and select it and ping-pong
tmux send-keys -t "$sess" n
wait_for "0 selected of" 5 && pass "picker: select none" || fail "picker: none"
tmux send-keys -t "$sess" / a l l r e d Enter
wait_for "filter: allred" 5 || fail "picker: filter"
tmux send-keys -t "$sess" j Space
wait_for "1 selected of" 5 && pass "picker: filtered and selected coll.allreduce" || fail "picker: select"
tmux send-keys -t "$sess" / Escape
tmux send-keys -t "$sess" j Space
wait_for "2 selected of" 5 && pass "picker: selected a second benchmark" || fail "picker: second"

# 2b. refinement is off by default, as in batch: 5 % in the form for the
#     refined rows checked after the export; the cursor back on size min
tmux send-keys -t "$sess" 2
wait_for "\[2 Param" 5 || fail "parameters for refinement"
for _ in $(seq 1 8); do tmux send-keys -t "$sess" Down; done
tmux send-keys -t "$sess" Enter
for _ in $(seq 1 10); do tmux send-keys -t "$sess" BSpace; done
tmux send-keys -t "$sess" 5% Enter
wait_for "refine +5% " 5 && pass "form: refine 5%" || { fail "form: refine 5%"; screen; }
for _ in $(seq 1 8); do tmux send-keys -t "$sess" Up; done
tmux send-keys -t "$sess" 1

# 3. run; braille cells appear; resize mid-run
tmux send-keys -t "$sess" r
wait_for "\[3 Run\]" 5 || fail "run view"
# Braille cells are U+2801..U+28FF: UTF-8 bytes E2 A0..A3 xx.
braille() { screen | LC_ALL=C grep -qaP '\xe2[\xa0-\xa3][\x80-\xbf]'; }
end=$((SECONDS + 20))
until braille || [ $SECONDS -ge $end ]; do sleep 0.1; done
if braille; then pass "braille plot cells appear"; else fail "no braille cells"; screen; fi
tmux resize-window -t "$sess" -x 100 -y 30
sleep 0.5
rows=$(screen | wc -l)
[ "$rows" -le 30 ] && screen | tail -1 | grep -q "quit" && pass "resized to 100x30, footer on the last row" || fail "resize (rows=$rows)"
# Points are measured in passes spread over at least 1 s of run time each
# (the scheduler), and refined points join later rounds: a run takes
# seconds, more on a busy machine.
if wait_for "done: [0-9]+ points" 180; then pass "run finished"; else fail "run did not finish"; screen; fi
series=$(screen | grep -cE "^.*[o+] (allreduce|send_recv|ssend_recv) ")
[ "$series" -eq 2 ] && pass "the legend shows exactly the 2 picked series" || { fail "legend ($series series)"; screen | head -8; }

# 3b. compare the two curves: the chooser, the ratio strip, the ratio list
tmux send-keys -t "$sess" v
wait_for "compare: choose curve A" 5 && pass "compare: the series chooser opens" || fail "compare chooser"
tmux send-keys -t "$sess" Enter Down Enter
if wait_for "B/A: " 5; then pass "compare: the ratio strip under the plot"; else fail "ratio strip"; screen; fi
tmux send-keys -t "$sess" =
wait_for "B/A at each common x" 5 && pass "compare: B/A listed at each common x" || fail "ratio list"
tmux send-keys -t "$sess" v
# the legend head is "series" again (then what its values are)
wait_for "series( +(median|MB/s) at .*)?$" 5 || fail "compare did not end"

# 4. export: clear the suggested name, type ours, confirm
tmux send-keys -t "$sess" e
wait_for "Export CSV to:" 5 || fail "export prompt"
for _ in $(seq 1 40); do tmux send-keys -t "$sess" BSpace; done
tmux send-keys -t "$sess" "$work/out.csv" Enter
# A fast machine gathers more observations than the ask threshold (16 MB):
# the explorer then asks whether to write them too; this test wants the
# results only.
wait_for "exported [0-9]+ points to|Write them too\\?" 10
if screen | grep -q "Write them too?"; then
  pass "export: asks before writing large observations"
  tmux send-keys -t "$sess" n
fi
if wait_for "exported [0-9]+ points to" 10; then pass "export message"; else fail "export"; screen; fi
"$check" "$work/out.csv" --env "$work/out.env.csv" >/dev/null && pass "exported CSV parses, every SETTLED row meets its rule" || fail "exported CSV"
# Refinement on the real engine (5 %, set in the form): a refined row is a
# size strictly between two grid sizes of its curve, and every grid size
# is there as a grid row.
python3 - "$work/out.csv" <<'EOF_PY' && pass "refined rows lie between grid sizes, the grid is complete" || fail "refined rows"
import csv, sys
grid = {4**k for k in range(9)}  # 1:64KiB:4 (allreduce aligns 1 up to 4)
rows = list(csv.DictReader(open(sys.argv[1])))
bad = 0
for name in {r["benchmark"] for r in rows}:
    mine = [r for r in rows if r["benchmark"] == name]
    g = {int(r["bytes"]) for r in mine if r["refined"] == "0"}
    ref = [int(r["bytes"]) for r in mine if r["refined"] == "1"]
    print("FIGURE: %s: %d grid points, %d refined" % (name, len(g), len(ref)))
    want = {b for b in grid if b >= (4 if "allreduce" in name else 1)}
    if g != want:
        print("grid of %s: %s" % (name, sorted(g))); bad += 1
    for b in ref:
        if b in grid or not min(g) < b < max(g):
            print("refined size %d of %s is not inside a grid segment" % (b, name)); bad += 1
sys.exit(1 if bad else 0)
EOF_PY
# the overwrite question
tmux send-keys -t "$sess" e
wait_for "Export CSV to:" 5
for _ in $(seq 1 40); do tmux send-keys -t "$sess" BSpace; done
tmux send-keys -t "$sess" "$work/out.csv" Enter
wait_for "exists. Overwrite\? \(y/n\)" 5 && pass "overwrite question" || fail "overwrite question"
tmux send-keys -t "$sess" n

# 4b. the method fields, the monitor, significance and the report: sync
#     window in the form, a second (short) run on the real engine with the probe
#     strip under the plot, the comparison's Wilcoxon summary and p-values,
#     then w writes the results with their sidecars and a gnuplot report
# A short run: window sync on this 2-vCPU VM is much noisier than
# barrier, so sizes up to 128 B, n_max 200, no refinement, and a point
# time of 3 s (IMB's -time): on a loaded machine its points did not settle
# in 15 passes each and the run outlasted the wait below. With 1 s, a slow
# build (the sanitizers) or a busy machine left every compared point with
# under 2 passes in a common span, so no p value could show.
tmux send-keys -t "$sess" 2
wait_for "\[2 Params\]" 5 || fail "parameters for the method"
form_text() { # FIELD-DOWNS TEXT: move down, open the field, replace its text
  for _ in $(seq 1 "$1"); do tmux send-keys -t "$sess" Down; done
  tmux send-keys -t "$sess" Enter
  for _ in $(seq 1 10); do tmux send-keys -t "$sess" BSpace; done
  tmux send-keys -t "$sess" "$2" Enter
}
form_text 1 128  # size max
form_text 6 200   # n_max
form_text 1 off   # refine
for _ in $(seq 1 7); do tmux send-keys -t "$sess" Down; done
tmux send-keys -t "$sess" Enter   # sync: window
wait_for "sync +< window >" 5 && pass "form: sync set to window" || { fail "form: sync window"; screen; }
screen | grep -qE "clock sync +< jk >" && screen | grep -qE "cache +< warm >" &&
  pass "form: clock sync and cache fields" || fail "form: clock sync / cache fields"
form_text 4 3 # point time
wait_for "point time +3 " 5 && pass "form: point time 3 s" || { fail "form: point time"; screen; }
tmux send-keys -t "$sess" r
wait_for "\[3 Run\]" 5 || fail "second run view"
if wait_for "done: [0-9]+ points" 180; then pass "second run (window sync) finished"; else fail "second run"; screen; fi
screen | grep -E "^ +probe " | sed 's/^/FIGURE: monitor strip: /'
screen | grep -qE "^ +probe +.+ ([0-9.]+(ns|µs|us|ms) now, [0-9]+ levels?, [0-9]+ shifts?|[0-9]+lv [0-9]+sh)" &&
  pass "the monitor's strip under the plot" || { fail "monitor strip"; screen; }
screen | grep -E "^ done: " | sed 's/^/FIGURE: /'
tmux send-keys -t "$sess" v
wait_for "compare: choose curve A" 5 || fail "second compare chooser"
tmux send-keys -t "$sess" Enter Down Enter
# The summary outgrows 100 columns when points lack passes in a common
# span ("(9 with under 2 passes ...)"): its line then ends in "... (m)"
# and m shows it whole; at 250 columns the line holds all of it.
if wait_for "interleaved; Wilcoxon 5%, pass medians: A faster at [0-9]+ x, slower at [0-9]+, not distin" 10; then
  if screen | grep -q "Wilcoxon 5%.*\.\.\. (m)"; then
    tmux send-keys -t "$sess" m
    wait_for "message in full" 5 && pass "compare: m opens the summary cut on its line" || fail "m on a cut summary"
    tmux send-keys -t "$sess" Escape
  fi
  tmux resize-window -t "$sess" -x 250 -y 30
  if wait_for "interleaved; Wilcoxon 5%, pass medians: A faster at [0-9]+ x, slower at [0-9]+, not distinguishable at [0-9]+" 10; then
    pass "compare: Wilcoxon summary line"
    screen | grep -oE "interleaved; Wilcoxon 5%.*" | sed 's/ *$//; s/^/FIGURE: /'
  else
    fail "compare: summary line at 250 columns"
    screen
  fi
  tmux resize-window -t "$sess" -x 100 -y 30
else
  fail "compare: summary line"
  screen
fi
screen | grep -qE "^ *signif " && pass "compare: significance row under the ratio strip" || fail "significance row"
tmux send-keys -t "$sess" =
wait_for "B/A tested \(HL( of passes)?\), p" 5 && pass "compare: p-values and verdicts listed" || fail "p-value list"
screen | grep -qE "[0-9.]+ +(<\.001|[01]\.[0-9]{3})\**  *[<>=]" && pass "compare: a row with p and a verdict" || { fail "p row"; screen; }
tmux send-keys -t "$sess" w
wait_for "Write the report into the new directory" 5 || fail "report prompt"
for _ in $(seq 1 40); do tmux send-keys -t "$sess" BSpace; done
t0=$SECONDS
tmux send-keys -t "$sess" "$work/rep" Enter
if wait_for "report in .*index.html" 90; then pass "report written ($((SECONDS - t0)) s)"; else fail "report"; screen | tail -4; fi
for f in results.csv results.env.csv results.obs.csv results.probe.csv report/index.html report/index.md report/plots.gp; do
  [ -s "$work/rep/$f" ] || fail "report: $f missing"
done
ls "$work"/rep/report/*.png >/dev/null 2>&1 && pass "report: results, sidecars, plots and index pages exist" || fail "report: no plots"
python3 - "$work/rep" <<'EOF_PY' && pass "report CSV: window sync, jk clock, a probe with every point, observations and probes beside it" || fail "report CSV"
import csv, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/results.csv")))
obs = list(csv.DictReader(open(d + "/results.obs.csv")))
probes = list(csv.DictReader(open(d + "/results.probe.csv")))
env = dict(csv.reader(open(d + "/results.env.csv")))
bad = 0
for r in rows:
    if r["sync"] != "window" or r["clock_sync"] != "jk" or r["cache"] != "warm":
        print("method columns:", r["benchmark"], r["bytes"], r["sync"], r["clock_sync"], r["cache"]); bad += 1
    if not r["probe_us"] or not r["probe_after_us"] or r["remeasured"] not in ("0", "1"):
        print("monitor columns:", r["benchmark"], r["bytes"], r["probe_us"], r["remeasured"]); bad += 1
    if r["status"] not in ("SETTLED", "UNSETTLED", "UNRELIABLE", "SHIFTED", "INVALID"):
        print("status", r["status"]); bad += 1
again = sum(r["remeasured"] == "1" for r in rows)
shifted = sum(r["status"] == "SHIFTED" for r in rows)
print("FIGURE: %d points, %d measured again, %d SHIFTED; %d observations; %d probes, %s level(s)" %
      (len(rows), again, shifted, len(obs), len(probes), env.get("monitor.levels", "?")))
# probes are taken every 0.1 s of run time (the scheduler), not one a point
if len(obs) < len(rows) or len(probes) < 2 or env.get("monitor") != "on":
    print("sidecars: obs %d probes %d monitor %s" % (len(obs), len(probes), env.get("monitor"))); bad += 1
sys.exit(1 if bad else 0)
EOF_PY
tmux send-keys -t "$sess" v

# 5. quit: prompt back, terminal sane, nothing left
tmux send-keys -t "$sess" q
if wait_for "EXIT=0" 20; then pass "quit, exit 0"; else fail "no clean exit"; screen; fi
log=$(screen | grep -o "log: [^ ]*" | tail -1 | cut -d' ' -f2)
[ -n "$log" ] && grep -h "explorer: .* frames" "$log" | sed 's/^/FIGURE: /'
tmux send-keys -t "$sess" "stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '; echo" Enter
wait_for "^icanon echo" 5 && pass "terminal sane (icanon echo)" || { fail "terminal modes"; screen | tail -3; }
explorers_gone 2 && pass "no leftover process" || fail "a rank is left running"

# 6. Ctrl-C mid-run: a long run, interrupted after a few points
tmux send-keys -t "$sess" clear Enter
tmux send-keys -t "$sess" "MBX_E2E_TAG=$tag $mpibex -n 2 --autosave $work/auto2 --start --plan $work/long.ini; echo EXIT=\$?" Enter
cat >"$work/long.ini" <<'INI'
[long]
bench = pingpong.send_recv, coll.bcast
sizes = 1:4MiB:sqrt2
stop = stderr:0.5%
nmax = 100000
INI
wait_for " ([3-9]|[1-9][0-9]+) passes, round" 40 || fail "long run did not progress"
echo "FIGURE: key-to-screen latency while measuring: $(key_latency b 'bandwidth MB/s') ms, $(key_latency b 'median time vs') ms, $(key_latency b 'bandwidth MB/s') ms"
tmux send-keys -t "$sess" C-c
if wait_for "EXIT=130" 20; then pass "Ctrl-C: exit 130"; else fail "Ctrl-C exit"; screen | tail -5; fi
auto=$(ls "$work"/auto2/*.csv 2>/dev/null | head -1)
[ -n "$auto" ] && "$check" "$auto" >/dev/null && pass "autosaved CSV of finished points parses ($(($(wc -l <"$auto") - 1)) rows)" || fail "autosave after Ctrl-C"
tmux send-keys -t "$sess" "stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '; echo" Enter
wait_for "^icanon echo" 5 && pass "terminal sane after Ctrl-C" || fail "terminal after Ctrl-C"
explorers_gone 2 && pass "no leftover process after Ctrl-C" || fail "a rank is left after Ctrl-C"

# 7. a rank crashes mid-run (SIGKILL of rank 1): the job ends, the launcher
#    restores the terminal and reports a failure code, nothing is left
tmux send-keys -t "$sess" clear Enter
tmux send-keys -t "$sess" "MBX_E2E_TAG=$tag $mpibex -n 2 --autosave none --start --plan $work/long.ini; echo EXIT=\$?" Enter
wait_for " ([2-9]|[1-9][0-9]+) passes, round" 40 || fail "run for the crash case did not start"
rank1=$(mbx_tagged_rank "MBX_E2E_TAG=$tag" 1)
[ -n "$rank1" ] && kill -KILL "$rank1"
if wait_for "EXIT=[1-9][0-9]*" 30; then pass "rank crash: launcher exits with $(screen | grep -o 'EXIT=[0-9]*' | tail -1)"; else fail "rank crash: no exit"; screen | tail -5; fi
tmux send-keys -t "$sess" "stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '; echo" Enter
wait_for "^icanon echo" 5 && pass "terminal sane after a rank crash" || fail "terminal after a rank crash"
explorers_gone 2 && pass "no leftover process after a rank crash" || fail "a rank is left after a rank crash"

# 7b. the b_eff screen (5) on the real engine: b_eff in quick mode (L_max
#     4 KiB, 1 random pattern, 1 repetition) fills the plot and shows its
#     summary; b_eff_io with a 2-second schedule fills its table, shows
#     b_eff_io and leaves no file in its directory; a cancelled run gives no
#     summary; the terminal stays sane.
tmux send-keys -t "$sess" clear Enter
mkdir -p "$work/io"
tmux send-keys -t "$sess" "MBX_E2E_TAG=$tag $mpibex -n 2 --autosave none; echo EXIT=\$?" Enter
wait_for "1 Pick" 30 || fail "explorer for the b_eff screen"
tmux send-keys -t "$sess" 5
wait_for "\[5 b_eff\]" 5 && pass "b_eff screen opens with 5" || fail "b_eff screen"
# field text: Enter opens it, BSpace clears, Enter closes
set_field() {
  tmux send-keys -t "$sess" Enter
  for _ in $(seq 1 10); do tmux send-keys -t "$sess" BSpace; done
  tmux send-keys -t "$sess" "$1" Enter
}
tmux send-keys -t "$sess" Down   # quick
set_field 4KiB
tmux send-keys -t "$sess" Down Down Down Down   # random
set_field 1
tmux send-keys -t "$sess" Down   # repetitions
set_field 1
wait_for "repetitions +1 " 5 || fail "b_eff form"
t0=$SECONDS
tmux send-keys -t "$sess" r
wait_for "b_eff: row [0-9]+/[0-9]+ .*running" 10 && pass "b_eff runs with a progress line" || fail "b_eff progress"
end=$((SECONDS + 30))
until braille || [ $SECONDS -ge $end ]; do sleep 0.2; done
braille && pass "b_eff: braille plot cells appear" || fail "b_eff: no plot"
if wait_for "^ b_eff [0-9.]+ MB/s +per process [0-9.]+ MB/s" 150; then
  pass "b_eff summary shown"
  echo "FIGURE: b_eff quick (L_max 4KiB, 1 random, 1 rep) on 2 ranks in the explorer: $((SECONDS - t0)) s"
  screen | grep -E "^ (b_eff[:] row|b_eff [0-9]|at L_max|L_max )" | sed 's/^/FIGURE: /'
  screen | grep -qE "^ b_eff: row ([0-9]+)/\1 .* done" && pass "b_eff: every row in (done = total)" || fail "b_eff: rows done != total"
  screen | grep -qE "at L_max [0-9.]+ MB/s +ring at L_max [0-9.]+ +ping-pong at L_max [0-9.]+" &&
    pass "b_eff: at L_max, ring and ping-pong at L_max" || fail "b_eff: L_max figures"
  screen | grep -q "fake back end" && fail "the engine's screen claims a fake back end" || pass "no fake-back-end notice on the engine"
else
  fail "b_eff summary"
  screen
fi
# b_eff_io: to the benchmark field, switch, T = 2, the directory
tmux send-keys -t "$sess" Up Up Up Up Up Up Right
wait_for "T seconds" 5 || fail "b_eff_io form"
tmux send-keys -t "$sess" Down
set_field 2
tmux send-keys -t "$sess" Down
set_field "$work/io"
t0=$SECONDS
tmux send-keys -t "$sess" r
wait_for "b_eff_io: row [0-9]+/[0-9]+" 20 && pass "b_eff_io runs with a progress line" || fail "b_eff_io progress"
if wait_for "^ b_eff_io [0-9.]+ MB/s \(25% write" 150; then
  pass "b_eff_io summary shown"
  echo "FIGURE: b_eff_io T=2 s on 2 ranks in the explorer: $((SECONDS - t0)) s"
  screen | grep -E "^ (b_eff_io[:] row|b_eff_io [0-9]|[0-4] [a-z-]+ +[0-9])" | sed 's/^/FIGURE: /'
  screen | grep -qE "^ b_eff_io: row ([0-9]+)/\1 .* done" && pass "b_eff_io: every row in (done = total)" || fail "b_eff_io: rows done != total"
else
  fail "b_eff_io summary"
  screen
fi
[ -z "$(ls -A "$work/io")" ] && pass "b_eff_io left no file behind" || fail "b_eff_io left files: $(ls -A "$work/io")"
# cancel a b_eff run
tmux send-keys -t "$sess" Up Up Left
wait_for "repetitions" 5 || fail "back to b_eff"
tmux send-keys -t "$sess" r
wait_for "b_eff: row [1-9][0-9]*/" 20 || fail "b_eff rerun"
tmux send-keys -t "$sess" c
wait_for "cancelled after [0-9]+ of [0-9]+ rows" 20 && pass "b_eff cancelled with c" || { fail "b_eff cancel"; screen | tail -5; }
tmux send-keys -t "$sess" q
if wait_for "EXIT=0" 20; then pass "quit from the b_eff screen, exit 0"; else fail "b_eff screen exit"; screen | tail -5; fi
tmux send-keys -t "$sess" "stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '; echo" Enter
wait_for "^icanon echo" 5 && pass "terminal sane after the b_eff screen" || fail "terminal after the b_eff screen"
explorers_gone 2 && pass "no leftover process after the b_eff screen" || fail "a rank is left after the b_eff screen"

# 8. the terminal closes under the explorer (the tmux window is killed):
#    the launcher gets SIGHUP and takes the job down
tmux send-keys -t "$sess" "MBX_E2E_TAG=$tag $mpibex -n 2 --autosave none; echo EXIT=\$?" Enter
wait_for "1 Pick" 30 || fail "explorer for the hang-up case"
tmux kill-session -t "$sess"
explorers_gone 20 && pass "terminal closed: no process left" || fail "a rank is left after the terminal closed"

mbx_finish
