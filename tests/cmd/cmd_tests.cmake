# Commands without MPI: the subcommands' bad input in process, and the
# checks of files that start no MPI job.

# test_badinput.c: one table of bad-input cases (run, repeat, merge,
# compare, report). Each case is a test of its name, `test_badinput NAME`;
# the names are read from the table's lines ({"name", KIND, ...).
mbx_cmocka_program(cmd test_badinput mbx_cmd)
target_compile_definitions(test_badinput PRIVATE MBX_TMP_DIR="${CMAKE_CURRENT_BINARY_DIR}"
  MBX_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
  MBX_REPORT_FIXTURES="${CMAKE_CURRENT_SOURCE_DIR}/mpi/report_fixtures.py")
file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/cmd/test_badinput.c _bad_lines
     REGEX "^ *\\{\"[a-z_.]+\", (RUN_PARSE|RUN|REPEAT|MERGE|COMPARE|REPORT),")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cmd/test_badinput.c)
foreach(_line IN LISTS _bad_lines)
  string(REGEX REPLACE "^ *\\{\"([a-z_.]+)\".*" "\\1" _name "${_line}")
  # merge.bad.x, report.bad.x, ...: also the command's label, as before
  string(REGEX MATCH "^(merge|report|repeat|compare)\\." _cmd "${_name}")
  string(REPLACE "." "" _cmd "${_cmd}")
  add_test(NAME ${_name} COMMAND test_badinput ${_name})
  set_tests_properties(${_name} PROPERTIES TIMEOUT 30 LABELS "cmd;badinput;${_cmd}")
endforeach()
