# The explorer on the scheduler, headless on the fake back end:
# every curve's grid on screen after the first round, several passes a
# point in the autosave (and a stopped run saving each point once, as it
# stands), Send vs Send not distinguishable on pass medians and said to be
# interleaved.
add_test(NAME tui.explorer_passes
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/explorer_passes.sh $<TARGET_FILE:mpibex>
                 ${CMAKE_CURRENT_BINARY_DIR}/explorer-passes)
set_tests_properties(tui.explorer_passes PROPERTIES TIMEOUT 60 LABELS tui)

# The explorer headless on real ranks under mpiexec, a key script with
# `wait`: Send vs Ssend to the compare view's verdicts (properties only).
add_test(NAME mpi.explore_headless.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/explore_headless.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/explore-headless
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex>)
set_tests_properties(mpi.explore_headless.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)
# A thread that cannot be bound (test hook), in the explorer as in `run`
# (mpi.threadlevel.bindfail.n1): the run's closing line names the rank.
add_test(NAME mpi.explore_bindfail.n1
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/explore_bindfail.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/explore-bindfail
                 ${MBX_MPIEXEC} 1 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex>)
set_tests_properties(mpi.explore_bindfail.n1 PROPERTIES TIMEOUT 60 LABELS mpi PROCESSORS 1)

# --headless without a key script: one line, exit 2.
add_test(NAME badinput.explore_headless_keys
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh
                 "^mpibex: --headless: needs --keys FILE$"
                 ${CMAKE_CURRENT_BINARY_DIR}/explore-headless-bad.csv --
                 $<TARGET_FILE:mpibex> explore --fake 2 --headless 80x24)
set_tests_properties(badinput.explore_headless_keys PROPERTIES TIMEOUT 30 LABELS "tui;badinput")

# One point, one story: on the fake back end's planted points, the CSV, the
# batch table, the report and the explorer's results screen and inspector
# show the same median, interval, err and status (a SHIFTED point's
# interval "n/a, 2 levels" everywhere, with advice); a point with no level
# of its own is not SHIFTED.
add_test(NAME tui.one_story
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/one_story.sh $<TARGET_FILE:mpibex>
                 ${CMAKE_CURRENT_BINARY_DIR}/one-story)
set_tests_properties(tui.one_story PROPERTIES TIMEOUT 60 LABELS tui)
