# mpibex check on launches of the fake back end (no MPI; seconds each):
# a planted regression, identical settings, too little data, check files
# (tests/cmd/check_check.sh). Its bad input: check.bad.*, one line, exit 2.
set(MBX_CHECK_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/cmd/check_check.sh)
foreach(_m regression identical undecided rules)
  add_test(NAME check.${_m}
           COMMAND bash ${MBX_CHECK_CHECK} ${_m} $<TARGET_FILE:mpibex> ${MBX_OUT}/check_${_m})
  set_tests_properties(check.${_m} PROPERTIES TIMEOUT 60 LABELS "cmd;check;quick")
endforeach()
add_test(NAME check.help COMMAND mpibex check --help)
set_tests_properties(check.help PROPERTIES TIMEOUT 30 LABELS "check;quick"
  PASS_REGULAR_EXPRESSION "Usage: mpibex check BASELINE CURRENT")

# Bad input: exit 2, one line on stderr naming the field (and FILE:LINE
# in a check file) and what is allowed; the --junit file not written.
set(_d ${MBX_OUT}/check_bad)
file(MAKE_DIRECTORY ${_d})
function(mbx_check_bad name regex)
  add_test(NAME check.bad.${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh "${regex}" ${_d}/${name}.xml
                   -- $<TARGET_FILE:mpibex> check --junit ${_d}/${name}.xml ${ARGN})
  set_tests_properties(check.bad.${name} PROPERTIES TIMEOUT 30 LABELS "cmd;check;badinput")
endfunction()
mbx_check_bad(tolerance
  "^mpibex check: --tolerance: expected a percentage 0%\\.\\.100% \\(such as 5%\\) or microseconds 0us\\.\\.1000000us \\(such as 2us\\), got '150%'$"
  ${_d}/base ${_d}/cur --tolerance 150%)
mbx_check_bad(direction "^mpibex check: --direction: expected slower or both, got 'up'$"
  ${_d}/base ${_d}/cur --direction up)
mbx_check_bad(rules_value
  "^mpibex check: --rules: .*/check_bad_rules\\.ini:5: tolerance: expected a percentage 0%\\.\\.100% .*, got 'fast'$"
  ${_d}/base ${_d}/cur --rules ${CMAKE_CURRENT_SOURCE_DIR}/cmd/check_bad_rules.ini)
mbx_check_bad(rules_key
  "^mpibex check: --rules: .*/check_bad_key\\.ini:3: size: unknown key; allowed bench, sizes, tolerance, direction$"
  ${_d}/base ${_d}/cur --rules ${CMAKE_CURRENT_SOURCE_DIR}/cmd/check_bad_key.ini)
mbx_check_bad(rules_missing "^mpibex check: --rules: cannot read '.*/nope\\.ini': No such file or directory$"
  ${_d}/base ${_d}/cur --rules ${_d}/nope.ini)
# A report inside an input directory (launch files, a repeat's records)
# or beside an input file as its sidecar would destroy the input.
file(MAKE_DIRECTORY ${_d}/launches)
add_test(NAME check.bad.junit_in_input
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh
                 "^mpibex check: --junit: '.*/launches/launch-01\\.csv' is part of the input '.*/launches'; write the report elsewhere$"
                 ${_d}/launches/launch-01.csv
                 -- $<TARGET_FILE:mpibex> check ${_d}/launches ${_d}/cur --junit ${_d}/launches/launch-01.csv)
set_tests_properties(check.bad.junit_in_input PROPERTIES TIMEOUT 30 LABELS "cmd;check;badinput")
mbx_check_bad(one_input "^mpibex check: expected BASELINE and CURRENT .*, got 1$" ${_d}/base)

# The JUnit writer: escaping and counts (tests/cmd/test_check_junit.c).
mbx_cmocka_test(cmd test_check_junit mbx_cmd)
