# Two runs, one output: -o is claimed for the life of a run
# (mbx/output.h). Each case runs the real binary on 1 rank (a few seconds);
# the cases are in mpi/output_claim.sh.
function(mbx_output_claim name labels case)
  set(np 1)
  if(case STREQUAL "beff")
    set(np 2)
  endif()
  add_test(NAME ${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/output_claim.sh ${case}
                   ${MBX_OUT}/output_claim $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> --
                   ${MBX_MPIEXEC} ${np} ${MPIEXEC_PREFLAGS})
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS "mpi;${labels}" PROCESSORS ${np})
endfunction()

mbx_output_claim(security.output.concurrent_runs security concurrent)
mbx_output_claim(badinput.output.existing_csv badinput exists)
mbx_output_claim(badinput.output.plan_file badinput plan)
mbx_output_claim(badinput.output.journal_present badinput journal)
mbx_output_claim(badinput.output.stdout badinput stdout)
mbx_output_claim(security.output.dev_null security devnull)
mbx_output_claim(badinput.output.fifo badinput fifo)
mbx_output_claim(badinput.output.merge_existing badinput merge)
mbx_output_claim(badinput.output.beff_existing badinput beff)
