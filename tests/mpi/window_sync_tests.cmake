# Window sync: one host's ranks share a clock (identity model),
# windows per batch that shrink again, a bounded point, a time bound with
# a note; and the two new options' ranges.
add_test(NAME mpi.window_sync.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/window_sync.sh ${MPIEXEC_EXECUTABLE}
                 ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> ${MBX_OUT}/window_sync)
set_tests_properties(mpi.window_sync.n2 PROPERTIES TIMEOUT 120 LABELS "mpi;fault" PROCESSORS 2)
# The two options' ranges: tests/cmd/test_badinput.c.
