# mpibex merge: a plain command, no MPI. Each test uses its own directory
# under ${MBX_OUT}; merge.real.n2 (two real runs merged: one row per point
# with runs = 2) is in tests/mpi/mpi_tests.cmake.
set(MBX_MERGE_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/cmd/merge_check.sh)

# Bad input: merge.bad.*, in process (tests/cmd/test_badinput.c).
add_test(NAME merge.stdout COMMAND bash ${MBX_MERGE_CHECK} stdout $<TARGET_FILE:mpibex> ${MBX_OUT}/merge_stdout)
set_tests_properties(merge.stdout PROPERTIES TIMEOUT 30 LABELS merge)
add_test(NAME merge.help COMMAND mpibex merge --help)
set_tests_properties(merge.help PROPERTIES TIMEOUT 30 LABELS merge
  PASS_REGULAR_EXPRESSION "Usage: mpibex merge A\\.csv B\\.csv \\.\\.\\. -o OUT\\.csv")
