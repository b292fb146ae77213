#!/usr/bin/env bash
# The explorer's text where screens are narrow, headless on the fake back
# end (4 ranks): nothing a user needs is cut without a sign, and what is
# cut can be read in full.
#   footer     at 80x24 the run view's footer keeps q, ?, v, e, w and i (it
#              drops what the plot's title names first), and a click on
#              "i inspect" opens the inspector;
#   inspector  at 80x24 an inspector line that does not fit ends in an
#              ellipsis, and the part shown is the start of the whole line
#              (the same point at 160 columns);
#   overlay    the help and the series chooser are framed: every row of
#              their box starts and ends with the frame, so the screen
#              behind does not show through; the help explains the
#              numbers of the run view (err, pass 7/5, the level digits,
#              the percentages);
#   compare    a comparison's summary too long for its line ends in
#              "... (m)", and m shows all of it (as a wide terminal's
#              status line); the ratio is B/A, as `mpibex compare`
#              writes it: the = list's B/A column (the tested HL ratio)
#              is B's value over A's, within 3 %.
# usage: screens_fit.sh MPIBEX WORKDIR CASE
set -u
export LC_ALL=C.UTF-8 # ${s:i:1} counts characters, not bytes
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
mpibex=$1 work=$2 case=$3
test_case=$case
rm -rf "$work"
mkdir -p "$work/d"
cd "$work" || die "cannot enter $work"

# explore SIZE KEYS: the explorer at SIZE with the key script KEYS.
explore() {
    printf '%s\n' "$2" >keys.txt
    LC_ALL=C.UTF-8 "$mpibex" explore --fake 4 --headless "$1" --term xterm-mono --keys keys.txt \
        --dump-dir d --autosave none >out.txt 2>err.txt || die "the explorer failed: $(cat err.txt)"
}
# text DUMP: the screen's text rows (no header, no attribute runs).
text() { grep -v '^[@#]' "d/$1.txt"; }
# footer DUMP: its last text row.
footer() { text "$1" | tail -n 1; }

case $case in
footer)
    explore 80x24 'r wait dump:run'
    f=$(footer run)
    for k in 'q quit' '? help' 'v compare' 'e export' 'w report' 'i inspect'; do
        grep -qF -- "$k" <<<"$f" && pass "80x24 run footer has '$k'" ||
            fail "80x24 run footer lacks '$k': '$f'"
    done
    # A click on the footer's "i inspect" (its column, counted from 0).
    pre=${f%%i inspect*}
    col=$(printf '%s' "$pre" | wc -m)
    explore 80x24 "r wait mouse:$((col + 1)),23 dump:clicked"
    text clicked | grep -q 'inspector' && pass "a click on 'i inspect' (column $col) opens it" ||
        fail "a click at column $col of the footer did not open the inspector"
    ;;
inspector)
    explore 80x24 'r wait i dump:narrow'
    explore 160x40 'r wait i dump:wide'
    grep -q 'inspector (' d/narrow.txt || die "no inspector at 80x24"
    n=0 cut=0
    for key in 'median ' 'err ' 'SHIFTED\|SETTLED\|UNSETTLED'; do
        nl=$(text narrow | sed -n '/inspector (/,$p' | grep -o "\($key\).*" | head -n 1)
        wl=$(text wide | sed -n '/inspector (/,$p' | grep -o "\($key\).*" | head -n 1 | sed 's/ *$//')
        [ -n "$nl" ] && [ -n "$wl" ] || { fail "no line '$key' in the inspector"; continue; }
        # the narrow one runs to the screen's edge: the panel's own text
        nl=$(sed 's/ *$//' <<<"$nl")
        n=$((n + 1))
        if [ "$nl" = "$wl" ]; then
            pass "'$nl' fits"
        elif [ "${nl: -1}" = "…" ] && [ "${wl#"${nl%…}"}" != "$wl" ]; then
            cut=$((cut + 1))
            pass "'$wl' cut as '$nl'"
        else
            fail "'$wl' shown as '$nl' (cut without an ellipsis, or not its start)"
        fi
    done
    [ "$cut" -ge 1 ] && pass "$cut of $n lines cut at 80x24" ||
        fail "no inspector line was cut at 80x24: the case does not test the ellipsis"
    ;;
overlay)
    explore 80x24 'r wait ? dump:help end dump:help_end esc v dump:chooser'
    for d in help chooser; do
        # The box: from the row of its top-left corner to the one of its
        # bottom-left corner, at the corner's column (characters).
        top=$(text $d | grep -n '┌' | head -n 1 | cut -d: -f1)
        bot=$(text $d | grep -n '└' | head -n 1 | cut -d: -f1)
        [ -n "$top" ] && [ -n "$bot" ] && [ "$bot" -gt "$top" ] ||
            { fail "$d: no frame (┌ ... └)"; continue; }
        first=$(text $d | sed -n "${top}p")
        pre=${first%%┌*} && lcol=${#pre}
        rest=${first:$lcol} && pre=${rest%%┐*} && w=$((${#pre} + 1))
        bad=0
        while IFS= read -r row; do
            [ "${row:$lcol:1}" = "│" ] && [ "${row:$((lcol + w - 1)):1}" = "│" ] || bad=$((bad + 1))
        done < <(text $d | sed -n "$((top + 1)),$((bot - 1))p")
        [ "$bad" -eq 0 ] && pass "$d: framed, rows $top-$bot, columns $lcol-$((lcol + w - 1))" ||
            fail "$d: $bad rows of its box without the frame"
    done
    for k in 'err 0.30%' 'pass 7/5' 'level 0112' 'target 3%' '43% \[###\]'; do
        cat d/help.txt d/help_end.txt | grep -v '^[@#]' | grep -q "$k" &&
            pass "the help explains '$k'" || fail "the help does not explain '$k'"
    done
    ;;
compare)
    explore 100x30 'r wait v enter down enter dump:cmp m dump:msg esc = resize:250x40 dump:wide'
    status=$(text cmp | grep 'interleaved; Wilcoxon' | sed 's/^ *//; s/ *$//')
    full=$(text wide | grep -o 'interleaved; Wilcoxon.*' | sed 's/ *$//')
    [ -n "$full" ] || die "no comparison summary at 250 columns"
    [ "${status%... (m)}" != "$status" ] && pass "100 columns: '$status'" ||
        fail "the summary cut at 100 columns does not end in '... (m)': '$status'"
    # The overlay's text rows joined (frame and margins off).
    first=$(text msg | grep 'message in full')
    pre=${first%%┌*} && lcol=${#pre}
    rest=${first:$lcol} && pre=${rest%%┐*} && w=$((${#pre} + 1))
    shown=$(text msg | sed -n '/message in full/,/└/p' | sed '1d;$d' | while IFS= read -r row; do
        echo "${row:$((lcol + 1)):$((w - 2))}"
    done | tr '\n' ' ' | sed 's/  */ /g; s/^ //; s/ $//')
    grep -qF -- "$full" <<<"$shown" && pass "m shows the whole summary: '$full'" ||
        fail "m shows '$shown', not the summary '$full'"
    # The = list at 250 columns: x, A, B, the ratio, p.
    text wide | grep -q ' B/A tested (HL of passes), p' && pass "the = list is headed B/A tested" ||
        fail "the = list's head: $(text wide | grep -o '[AB]/[AB], p.*' | head -n 1)"
    row=$(text wide | sed -n '/[AB]\/[AB] tested (HL of passes), p/,$p' | grep -E '^.* [0-9.]+(µs|ns|ms) +[0-9.]+(µs|ns|ms) +[0-9.]+ ' |
        head -n 1)
    [ -n "$row" ] || die "no row of the = list"
    read -r a b r <<<"$(grep -oE '[0-9.]+(µs|ns|ms) +[0-9.]+(µs|ns|ms) +[0-9.]+' <<<"$row" |
        head -n 1 | sed 's/µs/e-6/g; s/ns/e-9/g; s/ms/e-3/g')"
    awk -v a="$a" -v b="$b" -v r="$r" 'BEGIN { q = b / a; exit !(r > q * 0.97 && r < q * 1.03) }' &&
        pass "ratio $r = B/A ($b / $a)" || fail "ratio $r is not B/A = $b / $a"
    ;;
*) die "unknown case $case" ;;
esac
mbx_finish
