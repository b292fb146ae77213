# Faults and security of batch runs: signals, a killed or hung
# rank, a full disk, a vanished output directory; planted symbolic links,
# the umask, secrets in the environment. Each case is its own test with a
# timeout; the tables in docs/hardening.md name them.
foreach(_case sigint_rank0 sigterm_rank0 sigterm_mpiexec sigterm_hung sigkill_rank1 enospc_obs
              enospc_csv dir_gone enospc_start)
  add_test(NAME fault.${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/faults.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_OUT}
                   ${_case})
  # 77: no tmpfs could be mounted (not root); said with a SKIP line.
  set_tests_properties(fault.${_case} PROPERTIES TIMEOUT 240 LABELS "fault;mpi" PROCESSORS 2
                                                 SKIP_RETURN_CODE 77)
endforeach()

foreach(_case symlink umask secrets)
  add_test(NAME security.${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/security.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_OUT}
                   ${_case})
  set_tests_properties(security.${_case} PROPERTIES TIMEOUT 120 LABELS "security;mpi" PROCESSORS 2)
endforeach()

# The watchdog: rank 1 stops answering at one size (MBX_TEST_HANG, a hook
# of builds with the test suite); a HUNG row, the run goes on or ends with
# its rows and journal kept, --resume skips the point or retries it.
set(_hung_cases goes_on ends retry)
if(MBX_HAVE_MPI_PART) # a partitioned receive that never completes
  list(APPEND _hung_cases part)
endif()
foreach(_case ${_hung_cases})
  add_test(NAME fault.hung_${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/hung.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_OUT}
                   ${_case})
  set_tests_properties(fault.hung_${_case} PROPERTIES TIMEOUT 150 LABELS "fault;mpi"
                                                      PROCESSORS 2)
endforeach()

# The explorer's watchdog: headless on 2 ranks, rank 1 stops answering at
# one size; the point is HUNG and the run goes on, or the explorer ends
# (exit 3) with its note and autosave, on a terminal reset first.
foreach(_case goes_on ends tty)
  add_test(NAME fault.explore_hung_${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/explore_hung.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> ${MBX_OUT} ${_case})
  set_tests_properties(fault.explore_hung_${_case} PROPERTIES TIMEOUT 90 LABELS "fault;mpi"
                                                              PROCESSORS 2 SKIP_RETURN_CODE 77)
endforeach()
