# mpibex merge: a plain command, no MPI. Bad input exits 2 with one line on
# stderr and writes nothing; a merge of two real runs has one row per point
# with runs = 2. Each test uses its own directory under ${MBX_OUT}.
set(MBX_MERGE_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/mpi/merge_check.sh)

# Bad input: merge.bad.*, in process (tests/cmd/test_badinput.c).
add_test(NAME merge.stdout COMMAND bash ${MBX_MERGE_CHECK} stdout $<TARGET_FILE:mpibex> ${MBX_OUT}/merge_stdout)
set_tests_properties(merge.stdout PROPERTIES TIMEOUT 30 LABELS merge)
add_test(NAME merge.help COMMAND mpibex merge --help)
set_tests_properties(merge.help PROPERTIES TIMEOUT 30 LABELS merge
  PASS_REGULAR_EXPRESSION "Usage: mpibex merge A\\.csv B\\.csv \\.\\.\\. -o OUT\\.csv")

# Two real runs (MPI), then the merge (no MPI).
add_test(NAME merge.real.n2
         COMMAND bash ${MBX_MERGE_CHECK} real $<TARGET_FILE:mpibex> ${MBX_OUT}/merge_real --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS})
set_tests_properties(merge.real.n2 PROPERTIES TIMEOUT 120 LABELS "mpi;merge" PROCESSORS 2)
