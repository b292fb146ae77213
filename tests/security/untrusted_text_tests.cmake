# Untrusted text: hostile names and fields through report,
# compare and merge (no MPI; gnuplot and python3).
foreach(_case report report_bad compare merge repeat tty)
  add_test(NAME security.untrusted_text.${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/security/untrusted_text.sh ${_case}
                   $<TARGET_FILE:mpibex> ${CMAKE_CURRENT_BINARY_DIR}/out/untrusted_${_case})
  set_tests_properties(security.untrusted_text.${_case} PROPERTIES TIMEOUT 120
                       LABELS "security;report")
endforeach()
# run with a hostile plan: launched by the build's MPI (label mpi, so the
# Open MPI stage runs it too).
add_test(NAME security.untrusted_text.plan
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/security/untrusted_text.sh plan
                 $<TARGET_FILE:mpibex> ${CMAKE_CURRENT_BINARY_DIR}/out/untrusted_plan)
set_tests_properties(security.untrusted_text.plan PROPERTIES TIMEOUT 120 LABELS "security;mpi")
# Formula cells (CSV injection) through merge and compare, on the fake back
# end (no MPI).
add_test(NAME security.csv_formula
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/security/csv_formula.sh $<TARGET_FILE:mpibex>
                 ${CMAKE_CURRENT_BINARY_DIR}/out/csv_formula)
set_tests_properties(security.csv_formula PROPERTIES TIMEOUT 60 LABELS "security;merge;compare;quick")
