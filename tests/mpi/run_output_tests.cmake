# Zero bytes (ping-pong, bcast, gather at 0 B; a reduction from
# its smallest size, 0 B alone refused), the default sizes from 0, the results file and table sorted
# with seq, --point-time and its status_reason, the plan's keys of the
# whole run, --warmup from a plan (tests/mpi/run_output.sh).
foreach(_case zero warmup_plan)
  add_test(NAME mpi.run_output.${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/run_output.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_OUT}
                   ${_case})
  set_tests_properties(mpi.run_output.${_case} PROPERTIES TIMEOUT 90 LABELS mpi PROCESSORS 2)
endforeach()
# The same script on the fake back end (one process, no MPI).
foreach(_case defaults point_time plan_keys reduce_zero)
  add_test(NAME tui.run_output.${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/run_output.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_OUT}
                   ${_case})
  set_tests_properties(tui.run_output.${_case} PROPERTIES TIMEOUT 60 LABELS tui)
endforeach()
# Every option of run is a plan key (tests/mpi/option_keys.sh): the keys take
# effect and the command line wins, on the fake back end and on 2 ranks.
foreach(_case fake_keys explorer_form)
  add_test(NAME tui.option_keys.${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/option_keys.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> ${MBX_OUT} ${_case})
  set_tests_properties(tui.option_keys.${_case} PROPERTIES TIMEOUT 60 LABELS tui)
endforeach()
add_test(NAME mpi.option_keys.validate_plan
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/option_keys.sh ${MPIEXEC_EXECUTABLE}
                 ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> ${MBX_OUT} validate_plan)
set_tests_properties(mpi.option_keys.validate_plan PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)
