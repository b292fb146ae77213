# `mpibex run --fake N` (issue 16): the batch front end on the fake back
# end, one process, no MPI: a CSV with the passes columns filled, the same
# CSV twice with --seed, a stopped run resumed measuring only the rest; and
# --fake's own bad values (one line, exit 2, no files).
foreach(case csv determinism resume)
  add_test(NAME tui.i16_runfake.${case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/i16_runfake.sh $<TARGET_FILE:mpibex>
                   $<TARGET_FILE:csvcheck> ${CMAKE_CURRENT_BINARY_DIR}/i16-runfake ${case})
  set_tests_properties(tui.i16_runfake.${case} PROPERTIES TIMEOUT 60 LABELS tui)
endforeach()
foreach(pair "zero|0" "word|abc")
  string(REPLACE "|" ";" kv "${pair}")
  list(GET kv 0 name)
  list(GET kv 1 value)
  add_test(NAME badinput.fake_${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh
                   "^mpibex: --fake: expected a rank count in 1\\.\\.4096 \\(got '${value}'\\)$"
                   ${CMAKE_CURRENT_BINARY_DIR}/i16-runfake/bad_${name}.csv --
                   $<TARGET_FILE:mpibex> run --fake ${value} --bench pingpong.send_recv
                   -o ${CMAKE_CURRENT_BINARY_DIR}/i16-runfake/bad_${name}.csv)
  set_tests_properties(badinput.fake_${name} PROPERTIES TIMEOUT 30 LABELS "tui;badinput")
endforeach()

# MPIBEX_RUN_OPTIONS: a bad option in it, and a plan file in it, are one-line
# errors naming the variable (exit 2, no file; no MPI: the fake back end).
foreach(pair "run_options_env|--span x|--span: expected seconds in 0\\.\\.86400 \\(got 'x'\\)"
             "run_options_plan|plan.ini|options only \\(no plan file, no --help. got 'plan\\.ini'\\)")
  string(REPLACE "|" ";" kv "${pair}")
  list(GET kv 0 name)
  list(GET kv 1 value)
  list(GET kv 2 msg)
  add_test(NAME badinput.${name}
           COMMAND ${CMAKE_COMMAND} -E env "MPIBEX_RUN_OPTIONS=${value}"
                   bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh
                   "^mpibex: MPIBEX_RUN_OPTIONS: ${msg}$"
                   ${CMAKE_CURRENT_BINARY_DIR}/i16-runfake/bad_${name}.csv --
                   $<TARGET_FILE:mpibex> run --fake 2 --bench pingpong.send_recv
                   -o ${CMAKE_CURRENT_BINARY_DIR}/i16-runfake/bad_${name}.csv)
  set_tests_properties(badinput.${name} PROPERTIES TIMEOUT 30 LABELS "tui;badinput")
endforeach()

# The explorer's --settle (the scheduler's settling before each run): a
# value outside 0..60 is one line and exit 2, before any terminal or MPI.
add_test(NAME badinput.explore_settle
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh
                 "^mpibex: --settle: expected seconds in 0\\.\\.60 \\(got '99'\\)$"
                 ${CMAKE_CURRENT_BINARY_DIR}/i16-runfake/bad_explore_settle.csv --
                 $<TARGET_FILE:mpibex> explore --fake 2 --settle 99)
set_tests_properties(badinput.explore_settle PROPERTIES TIMEOUT 30 LABELS "tui;badinput")
