# Rank 0's memory under --raw (bounded by a pass, not a point) and a stop
# of `run -o -` that does not sum up the unfinished point; fake runs, no
# MPI job. tests/mpi/rawstop.sh says what each case asserts;
# docs/hardening.md, "Scale", lists them. The memory case not under the
# sanitizers: their quarantine of freed blocks is rank 0's memory there,
# so it skips itself there (exit 77), and the test exists in every build.
if(MBX_SANITIZE)
  set(_mbx_rawstop_san sanitized)
else()
  set(_mbx_rawstop_san plain)
endif()
foreach(_case stop_stdout raw_memory)
  add_test(NAME fault.${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/rawstop.sh $<TARGET_FILE:mpibex>
                   $<TARGET_FILE:csvcheck> ${MBX_OUT} ${_case} ${_mbx_rawstop_san})
  set_tests_properties(fault.${_case} PROPERTIES TIMEOUT 120 LABELS "fault" SKIP_RETURN_CODE 77)
endforeach()
