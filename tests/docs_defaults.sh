#!/usr/bin/env bash
# What the docs say the explorer and `run` do by default is what they do:
#   * refinement: `run --help` states its default, and the explorer's
#     parameter form (headless, fake back end) starts at the same refine and
#     budget; docs/explorer.md's form table, docs/user-guide.md's option
#     table and docs/mpibex.1 state the same;
#   * the passes: `run --help`'s --passes, --span and --max-passes defaults
#     are the ones docs/explorer.md ("final ... after N passes") and the man
#     page's DESCRIPTION give; the DESCRIPTION describes passes, not the old
#     trimmed-mean rule nor "one line per point";
#   * the mouse: docs/explorer.md does not say the plot has no mouse while a
#     click on a marker opens the inspector (tui/keys/insp_click.keys);
#   * compare: `mpibex compare` heads its ratio B/A; the explorer's help
#     and docs/explorer.md name the same ratio, never A/B.
#
#   docs_defaults.sh SOURCE_DIR MPIBEX WORKDIR
set -u
src=$1 mpibex=$2 work=$3
. "$src/tests/lib.sh"
man=$src/docs/mpibex.1
guide=$src/docs/user-guide.md
exp=$src/docs/explorer.md
rm -rf "$work"
mkdir -p "$work/d"
cd "$work" || die "cannot enter $work"
help=$("$mpibex" run --help | tr '\n' ' ' | tr -s ' ')
# The man page's text without its requests, one paragraph a line.
mantext() { sed -n "/^\.SH $1/,/^\.SH /p" "$man" | sed 's/\\f[BIRP]//g; s/\\-/-/g; s/"//g; s/^\.[A-Z]*\( \|$\)//' |
    tr '\n' ' ' | tr -s ' '; }
flat() { tr '\n' ' ' <"$1" | tr -s ' '; }

# --- refinement ---
refine=$(grep -oE -- '--refine off\|EPS [^-]*default (off|[0-9.]+%)' <<<"$help" | grep -oE '(off|[0-9.]+%)$')
budget=$(grep -oE -- '--budget N .{0,60}\(default [0-9]+\)' <<<"$help" | grep -oE '[0-9]+\)$' | tr -d ')')
[ -n "$refine" ] && [ -n "$budget" ] || die "run --help states no refine/budget default: '$refine' '$budget'"
printf '2 dump:params q\n' >keys.txt
LC_ALL=C.UTF-8 "$mpibex" explore --fake 2 --headless 100x30 --term xterm-mono --keys keys.txt \
    --dump-dir d --autosave none >/dev/null 2>err.txt || die "the explorer failed: $(cat err.txt)"
form_r=$(grep -E '^ +refine  ' d/params.txt | awk '{ print $2 }')
form_b=$(grep -E '^ +refine budget  ' d/params.txt | awk '{ print $3 }')
[ "$form_r" = "$refine" ] && pass "the explorer's form starts at refine $form_r, as run --help" ||
    fail "the explorer's form starts at refine '$form_r', run --help says $refine"
[ "$form_b" = "$budget" ] && pass "the explorer's form starts at budget $form_b, as run --help" ||
    fail "the explorer's form starts at budget '$form_b', run --help says $budget"
grep -E '^ +refine  ' d/params.txt | grep -q "default $refine" &&
    grep -E '^ +refine budget  ' d/params.txt | grep -q "default $budget" &&
    pass "the form's hints state the defaults" || fail "the form's hints do not state the defaults"
grep -Eq "^\| refine \|.*\| \`$refine\`" "$exp" && grep -Eq "^\| refine budget \|.*\| $budget\b" "$exp" &&
    pass "explorer.md's form table: $refine, $budget" || fail "explorer.md's form table differs"
grep -Fq "| \`--refine off\\|EPS\` | adaptive refinement of every curve to EPS | \`$refine\` |" "$guide" &&
    grep -Eq "^\| \`--budget N\` \|.*\| $budget \|" "$guide" &&
    pass "user-guide.md's option table: $refine, $budget" || fail "user-guide.md's option table differs"
grep -q "Refinement is $refine by default, in \`mpibex run\` and in the explorer alike" "$guide" &&
    pass "user-guide.md says why" || fail "user-guide.md gives no reason for the default"
opts=$(mantext OPTIONS)
grep -Eq -- "--refine EPS .{0,200}$refine \(default" <<<"$opts" &&
    grep -q -- "--budget N Most points refinement adds per curve (default $budget)" <<<"$opts" &&
    pass "mpibex.1: $refine, $budget" || fail "mpibex.1 states other refine/budget defaults"

# --- passes ---
passes=$(grep -oE -- '--passes R .{0,80}\(default [0-9]+' <<<"$help" | grep -oE '[0-9]+$')
span=$(grep -oE -- '--span SEC .{0,80}\(default [0-9.]+' <<<"$help" | grep -oE '[0-9.]+$')
maxp=$(grep -oE -- '--max-passes N .{0,60}\(default [0-9]+' <<<"$help" | grep -oE '[0-9]+$')
[ -n "$passes" ] && [ -n "$span" ] && [ -n "$maxp" ] || die "run --help: passes '$passes' span '$span' max '$maxp'"
doc=$(flat "$exp" | grep -oE 'SETTLED \(at least [0-9]+ passes over at least [0-9.]+ s[^)]*\), after [0-9]+ passes')
[ "$doc" != "" ] || die "explorer.md: no 'SETTLED (at least R passes over at least S s ...), after N passes'"
read -r dr ds dn <<<"$(grep -oE '[0-9.]+' <<<"$doc" | tr '\n' ' ')"
[ "$dr $ds $dn" = "$passes $span $maxp" ] && pass "explorer.md: $dr passes, $ds s, final after $dn" ||
    fail "explorer.md says $dr passes, $ds s, final after $dn; the code: $passes, $span, $maxp"
desc=$(mantext DESCRIPTION)
grep -q "at least $passes passes over at least $span s" <<<"$desc" && grep -q "after $maxp passes" <<<"$desc" &&
    pass "mpibex.1's DESCRIPTION: $passes passes, $span s, $maxp at most" ||
    fail "mpibex.1's DESCRIPTION does not say $passes passes over $span s, $maxp at most: $desc"
grep -qi 'trimmed' <<<"$desc" && fail "mpibex.1's DESCRIPTION describes the trimmed-mean rule"
grep -qi 'one line per point' <<<"$desc" && fail "mpibex.1's DESCRIPTION says 'one line per point'"

# --- the mouse on the plot ---
LC_ALL=C.UTF-8 "$mpibex" explore --fake 4 --headless 120x40 --term xterm-mono \
    --keys "$src/tests/tui/keys/insp_click.keys" --dump-dir d --autosave none >/dev/null 2>err.txt ||
    die "the explorer failed: $(cat err.txt)"
if grep -q 'inspector (' d/click.txt; then
    flat "$exp" | grep -Eiq "plot('s)? has (no mouse|none)|no mouse yet|none yet" &&
        fail "explorer.md says the plot has no mouse; a click on a marker opens the inspector" ||
        pass "explorer.md does not deny the plot's mouse"
    flat "$exp" | grep -q "a click on a point opens the inspector" &&
        pass "explorer.md: a click on a point opens the inspector" ||
        fail "explorer.md does not say a click on a point opens the inspector"
else
    fail "insp_click.keys: the click opened no inspector (see d/click.txt)"
fi

# --- compare's ratio ---
"$mpibex" run --fake 2 --bench pingpong.send_recv --sizes 8 -q --raw -o a.csv >/dev/null 2>&1 &&
    "$mpibex" run --fake 2 --bench pingpong.send_recv --sizes 8 -q --raw -o b.csv >/dev/null 2>&1 ||
    die "run --fake failed"
"$mpibex" compare a.csv b.csv >cmp.txt 2>/dev/null
head -n 1 cmp.txt | grep -qw 'B/A' || die "mpibex compare heads no B/A: $(head -n 1 cmp.txt)"
printf '3 ? dump:help end dump:help_end q\n' >keys.txt
LC_ALL=C.UTF-8 "$mpibex" explore --fake 2 --headless 100x30 --term xterm-mono --keys keys.txt \
    --dump-dir d --autosave none >/dev/null 2>err.txt || die "the explorer failed: $(cat err.txt)"
keys=$(cat d/help.txt d/help_end.txt | grep -v '^@')
grep -q 'B/A' <<<"$keys" && ! grep -q 'A/B' <<<"$keys" && pass "the explorer's help names B/A, as compare" ||
    fail "the explorer's help: $(grep -o '.\{0,20\}[AB]/[AB].\{0,20\}' <<<"$keys" | head -n 3)"
grep -q 'A/B' "$exp" && fail "explorer.md names a ratio A/B: $(grep -n 'A/B' "$exp" | head -n 3)" ||
    pass "explorer.md names no A/B ratio"
flat "$exp" | grep -q 'ratio B/A' && pass "explorer.md: ratio B/A" || fail "explorer.md names no ratio B/A"
mbx_finish
