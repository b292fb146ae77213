# Rank 0's memory under --raw (bounded by a pass, not a point) and a stop
# of `run -o -` that does not sum up the unfinished point; fake runs, no
# MPI job. tests/mpi/rawstop.sh says what each case asserts;
# docs/hardening.md, "Scale", lists them. The memory case not under the
# sanitizers: their quarantine of freed blocks is rank 0's memory there.
set(_mbx_rawstop_cases stop_stdout)
if(NOT MBX_SANITIZE)
  list(APPEND _mbx_rawstop_cases raw_memory)
endif()
foreach(_case ${_mbx_rawstop_cases})
  add_test(NAME fault.${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/rawstop.sh $<TARGET_FILE:mpibex>
                   $<TARGET_FILE:csvcheck> ${MBX_OUT} ${_case})
  set_tests_properties(fault.${_case} PROPERTIES TIMEOUT 120 LABELS "fault")
endforeach()
