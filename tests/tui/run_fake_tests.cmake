# `mpibex run --fake N`: the batch front end on the fake back
# end, one process, no MPI: a CSV with the passes columns filled, the same
# CSV twice with --seed, a stopped run resumed measuring only the rest; and
# --fake's own bad values (one line, exit 2, no files).
foreach(case csv determinism resume)
  add_test(NAME tui.run_fake.${case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/run_fake.sh $<TARGET_FILE:mpibex>
                   $<TARGET_FILE:csvcheck> ${CMAKE_CURRENT_BINARY_DIR}/run-fake ${case})
  set_tests_properties(tui.run_fake.${case} PROPERTIES TIMEOUT 60 LABELS tui)
endforeach()
# --fake's own bad values and MPIBEX_RUN_OPTIONS' (a bad option in it, a
# plan file in it): badinput.fake_* and badinput.run_options_*, in process
# (tests/cmd/test_badinput.c).

# The explorer's --settle (the scheduler's settling before each run): a
# value outside 0..60 is one line and exit 2, before any terminal or MPI.
add_test(NAME badinput.explore_settle
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh
                 "^mpibex: --settle: expected seconds in 0\\.\\.60 \\(got '99'\\)$"
                 ${CMAKE_CURRENT_BINARY_DIR}/run-fake/bad_explore_settle.csv --
                 $<TARGET_FILE:mpibex> explore --fake 2 --settle 99)
set_tests_properties(badinput.explore_settle PROPERTIES TIMEOUT 30 LABELS "tui;badinput")

# Standard output fits the terminal it reaches (80 columns in script(1)'s
# pseudo-terminal); piped or redirected it keeps the full table.
add_test(NAME tui.outfit
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/outfit.sh $<TARGET_FILE:mpibex>
                 ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(tui.outfit PROPERTIES TIMEOUT 60 LABELS tui)

# --stop fixed:N: FIXED points in the batch run and the explorer.
add_test(NAME tui.fixed_status
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/fixed_status.sh $<TARGET_FILE:mpibex>
                 ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(tui.fixed_status PROPERTIES TIMEOUT 60 LABELS tui)
