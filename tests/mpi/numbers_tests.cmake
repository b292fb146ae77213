# "Numbers that must not be reported": 1-rank collectives whose
# corrected times sit below the timer's resolution, and a rank stopped
# (SIGSTOP) in the middle of a point. docs/hardening.md names them.
add_test(NAME fault.numbers_tiny
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/numbers.sh ${MPIEXEC_EXECUTABLE}
                 ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_OUT}
                 tiny)
set_tests_properties(fault.numbers_tiny PROPERTIES TIMEOUT 60 LABELS "fault;mpi" PROCESSORS 1)
add_test(NAME fault.numbers_sigstop
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/numbers.sh ${MPIEXEC_EXECUTABLE}
                 ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_OUT}
                 sigstop)
set_tests_properties(fault.numbers_sigstop PROPERTIES TIMEOUT 120 LABELS "fault;mpi" PROCESSORS 2)
