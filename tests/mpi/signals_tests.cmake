# Signals and waits: --settle bounded in wall time, every wait
# answers a stop signal, SIGHUP and SIGPIPE and a signal to a rank other
# than 0 are accounted for in one line, standard output is checked at exit.
# tests/mpi/signals.sh says what each case asserts; docs/hardening.md,
# "Signals and waits", lists them.
set(_mbx_sig_cases
    settle_bound settle_sigint point_sigint hung_note sighup_rank0 double_sigterm sigterm_rank1
    beff_sigterm_rank1
    sigpipe_run)
foreach(_case ${_mbx_sig_cases})
  add_test(NAME fault.sig_${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/signals.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> ${MBX_OUT} ${_case})
  set_tests_properties(fault.sig_${_case} PROPERTIES TIMEOUT 90 LABELS "fault;mpi" PROCESSORS 2)
endforeach()
foreach(_case list_pipe list_full late_sigint)
  add_test(NAME fault.sig_${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/signals.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> ${MBX_OUT} ${_case})
  set_tests_properties(fault.sig_${_case} PROPERTIES TIMEOUT 60 LABELS "fault")
endforeach()
# compare's inputs come from a 2-rank run first.
add_test(NAME fault.sig_compare_full
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/signals.sh ${MPIEXEC_EXECUTABLE}
                 ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> ${MBX_OUT} compare_full)
set_tests_properties(fault.sig_compare_full PROPERTIES TIMEOUT 60 LABELS "fault;mpi" PROCESSORS 2)
