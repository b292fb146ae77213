# Issue 15, untrusted text: hostile names and fields through report,
# compare and merge (no MPI; gnuplot and python3).
foreach(_case report report_bad compare merge repeat tty)
  add_test(NAME security.untrusted_text.${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/security/untrusted_text.sh ${_case}
                   $<TARGET_FILE:mpibex> ${CMAKE_CURRENT_BINARY_DIR}/out/untrusted_${_case})
  set_tests_properties(security.untrusted_text.${_case} PROPERTIES TIMEOUT 120
                       LABELS "security;report")
endforeach()
