#!/usr/bin/env bash
# Headless golden-screen test: run the explorer on the fake back end with a
# key script under terminal type TERM_TYPE, then compare every dump with
# the golden file, both cut to the golden's scope (GOLDEN_DIR/scope: docs/contributing.md,
# "Golden screens").
# usage: headless_test.sh MPIBEX TERM_TYPE KEYS GOLDEN_DIR OUT_DIR [COLSxROWS [RANKS [ARG...]]]
# (ARG...: more options of the explorer, such as --sizes)
# With MBX_UPDATE_GOLDEN=1 the dumps replace the golden files instead.
set -u
mpibex=$1 term=$2 keys=$3 golden=$4 out=$5 size=${6:-100x30} ranks=${7:-4}
shift $(($# < 7 ? $# : 7))
rm -rf "$out"
mkdir -p "$out"
LC_ALL=C.UTF-8 NO_COLOR= "$mpibex" explore --fake "$ranks" --headless "$size" --term "$term" \
  --keys "$keys" --dump-dir "$out" --autosave none "$@" || { echo "explorer failed"; exit 1; }
# Only what this golden is about: the title bar's tabs and the registry's
# size where GOLDEN_DIR/scope names them (tests/tui/golden_scope.py).
python3 "$(dirname "$0")/golden_scope.py" "$golden/scope" "$out"/*.txt ||
  { echo "golden_scope.py failed"; exit 1; }
if [ "${MBX_UPDATE_GOLDEN:-0}" = 1 ]; then
  mkdir -p "$golden"
  cp "$out"/*.txt "$golden"/
  echo "golden files updated in $golden"
  exit 0
fi
fail=0
n=0
for g in "$golden"/*.txt; do
  name=$(basename "$g")
  n=$((n + 1))
  if ! diff -u "$g" "$out/$name" >"$out/$name.diff" 2>&1; then
    echo "DIFFERS: $name (see $out/$name.diff)"
    head -40 "$out/$name.diff"
    fail=1
  fi
done
[ "$n" -gt 0 ] || { echo "no golden files in $golden"; exit 1; }
[ $fail -eq 0 ] && echo "headless $term: $n screens match"
exit $fail
