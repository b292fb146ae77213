#!/usr/bin/env bash
# Comments and docs cite what a reader of the repository can open: a
# `docs/` page that exists, never a design document kept elsewhere or an
# issue number (docs/contributing.md, "Citations and names"). Test files
# and test names say what they test, not the issue that asked for them.
# usage: docs_refs.sh SOURCE_DIR [CTEST BUILD_DIR]
#   with CTEST and BUILD_DIR, the registered test names are checked too.
set -u
. "$(dirname "$0")/lib.sh"
src=$1 ctest=${2:-} build=${3:-}
cd "$src" || die "cannot enter $src"
self=tests/docs_refs.sh
# The files a reader reads: sources, scripts, CMake, docs, key scripts.
# Golden screens and fuzz inputs are data.
files=$(find . -path ./.git -prune -o -path './build*' -prune -o -type f \
    \( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name '*.cmake' -o \
    -name CMakeLists.txt -o -name '*.md' -o -name '*.1' -o -name '*.keys' -o \
    -name '*.ini' -o -name '*.def' -o -name '*.in' -o -path './.ci/*' -o \
    -path './scripts/*' \) -print | sed 's|^\./||' |
    grep -vE '^(tests/tui/golden|tests/fuzz/(corpus|regress))/' | grep -vxF "$self" | sort)
[ -n "$files" ] || die "no files found under $src"
n=$(wc -l <<<"$files")

# grep_files REGEX WHAT: every line of the files matching REGEX is a failure.
grep_files() {
    local hits
    hits=$(xargs -d '\n' grep -nIE -- "$1" <<<"$files")
    if [ -n "$hits" ]; then
        echo "$hits" | head -20
        fail "$2 ($(wc -l <<<"$hits") lines)"
    else
        pass "no $2"
    fi
}
grep_files '\bDESIGN(\.md)?\b|\bdesign\.md\b' \
    "citation of a document outside the repository (cite docs/PAGE, \"Section\")"
grep_files '\b[Ii]ssues? ?#?[0-9]+|\b[Ii]ssue-[0-9]+' \
    "issue number (say what the code does, or cite docs/)"

# Every docs/NAME cited exists (a URL's .../docs/... is not ours).
missing=$(xargs -d '\n' grep -ohIE -- '(^|[^A-Za-z0-9_./-])docs/[A-Za-z0-9_.-]+' <<<"$files" |
    sed -E 's/^[^d]*//; s/[.]+$//' | sort -u | while read -r d; do
        [ -e "$d" ] || echo "$d"
    done)
[ -z "$missing" ] && pass "every docs/ page cited exists" ||
    fail "cited but not in docs/: $(tr '\n' ' ' <<<"$missing")"

# Test files and test names say what they test: no iNN_..., test_iNN_...,
# mpi.iNN.name, issueNN_... (an issue number as a name part).
issue_name='(^|[/._-])(test_)?(i|issue)[0-9]+([/._-]|$)'
bad=$(find tests -path tests/tui/golden -prune -o -type f -print | grep -E "$issue_name")
[ -z "$bad" ] && pass "no test file named after an issue" ||
    fail "test files named after an issue: $(tr '\n' ' ' <<<"$bad")"
if [ -n "$ctest" ]; then
    names=$("$ctest" --test-dir "$build" -N | sed -n 's/^ *Test *#[0-9]*: //p')
    [ -n "$names" ] || die "ctest -N listed no tests"
    bad=$(grep -E "$issue_name" <<<"$names")
    [ -z "$bad" ] && pass "no test name carries an issue number ($(wc -l <<<"$names") tests)" ||
        fail "test names with an issue number: $(tr '\n' ' ' <<<"$bad")"
fi
echo "$n files read; $fails failure(s)"
[ "$fails" -eq 0 ]
