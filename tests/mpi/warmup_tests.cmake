# Warm-up: every point starts with protocol-aware untimed calls,
# every pair is pre-faulted before the first point, and timed batches count
# their minor page faults (the faults column). Properties only.
foreach(_case counts option light)
  add_test(NAME mpi.warmup_${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/warmup.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_OUT}
                   ${_case})
  set_tests_properties(mpi.warmup_${_case} PROPERTIES TIMEOUT 60 LABELS mpi PROCESSORS 2)
endforeach()
# --warmup's range: badinput.warmup_range (tests/cmd/test_badinput.c).
