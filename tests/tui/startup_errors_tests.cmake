# The explorer's start-up errors reach the terminal through the
# launcher (rank 0's reason in its status file), TERM=dumb is refused.
foreach(_case plan_bad term_unknown term_dumb)
  add_test(NAME badinput.explorer_${_case}
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/startup_e2e.sh $<TARGET_FILE:mpibex>
                   ${CMAKE_CURRENT_BINARY_DIR}/e2e-startup ${_case})
  set_tests_properties(badinput.explorer_${_case} PROPERTIES TIMEOUT 90 LABELS "e2e;badinput")
endforeach()
