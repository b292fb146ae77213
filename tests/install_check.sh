#!/usr/bin/env bash
# `cmake --install` into a fresh prefix, then the installed binary from
# there: --version, list, the man page (found through MANPATH and
# rendered), a sample plan run on the fake back end, and a theme found
# only under the prefix (the binary looks beside itself, in
# ../share/mpibex/themes, wherever it was installed).
# usage: install_check.sh CMAKE BUILD_DIR WORK_DIR
set -u
. "$(dirname "$0")/lib.sh"
cmake=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work/home"
prefix=$work/prefix
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; die "cmake --install $build --prefix $prefix failed"; }
bin=$prefix/bin/mpibex
[ -x "$bin" ] || die "no executable $bin"
cd "$work" || die "cannot enter $work"
# Nothing from the user's configuration (themes in ~/.config).
export HOME=$work/home
unset XDG_CONFIG_HOME

"$bin" --version >version.txt 2>&1 && grep -q '^mpibex [0-9]' version.txt &&
    pass "--version: $(head -1 version.txt)" || fail "--version: $(cat version.txt)"

"$bin" list >list.txt 2>&1 || fail "list: exit $?"
n=$(grep -vc '^#' list.txt)
[ "$n" -ge 10 ] && grep -q '^pingpong\.send_recv ' list.txt &&
    pass "list: $n benchmarks" || fail "list: $n benchmarks"
"$bin" list 'coll.i*' >ilist.txt 2>&1 && ! grep -v '^#' ilist.txt | grep -qv '^coll\.i' &&
    pass "list 'coll.i*': $(grep -vc '^#' ilist.txt) benchmarks" || fail "list 'coll.i*'"

man1=$prefix/share/man/man1/mpibex.1
[ -f "$man1" ] && pass "man page installed" || fail "no $man1"
found=$(MANPATH=$prefix/share/man man -w mpibex 2>&1)
[ "$found" = "$man1" ] && pass "man -w mpibex: $found" || fail "man -w mpibex: '$found'"
MANPATH=$prefix/share/man MANWIDTH=80 man -P cat mpibex >man.txt 2>man.err
grep -q 'SYNOPSIS' man.txt && grep -q 'mpibex list' man.txt &&
    pass "man mpibex renders ($(wc -l <man.txt) lines)" || fail "man mpibex: $(head -3 man.err)"

for f in samples/quick.ini samples/pingpong.ini themes/default.theme themes/light.theme; do
    [ -f "$prefix/share/mpibex/$f" ] || fail "not installed: share/mpibex/$f"
done
"$bin" run --fake 2 "$prefix/share/mpibex/samples/pingpong.ini" --sizes 8:64 -q \
    -o "$work/sample.csv" >run.txt 2>&1 &&
    [ "$(grep -c '^pingpong\.' "$work/sample.csv")" -ge 4 ] &&
    pass "run --fake 2 share/mpibex/samples/pingpong.ini" || { cat run.txt; fail "sample plan"; }

# A theme only the prefix has: found by name, an unknown one refused.
cp "$prefix/share/mpibex/themes/light.theme" "$prefix/share/mpibex/themes/zz-install.theme"
printf 'dump:picker\n' >keys.txt
mkdir -p dump dump2
LC_ALL=C.UTF-8 "$bin" explore --fake 2 --headless 80x24 --keys keys.txt --dump-dir dump \
    --autosave none --theme zz-install >explore.txt 2>&1 && [ -s dump/picker.txt ] &&
    pass "explorer found the theme under the prefix" || { cat explore.txt; fail "theme zz-install"; }
LC_ALL=C.UTF-8 "$bin" explore --fake 2 --headless 80x24 --keys keys.txt --dump-dir dump2 \
    --autosave none --theme zz-nowhere >explore2.txt 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q 'zz-nowhere' explore2.txt && [ ! -s dump2/picker.txt ] &&
    pass "an unknown theme is refused: $(grep -m1 zz-nowhere explore2.txt)" ||
    { cat explore2.txt; fail "an unknown theme: exit $rc"; }
mbx_finish
