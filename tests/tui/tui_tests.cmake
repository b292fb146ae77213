# TUI tests: pure modules (cmocka), headless golden screens, tmux end to end.
function(mbx_tui_unit name)
  mbx_cmocka_test(tui ${name} mbx_tuicore)
endfunction()

mbx_tui_unit(test_canvas)
mbx_tui_unit(test_axis)
mbx_tui_unit(test_layout)
mbx_tui_unit(test_theme)
mbx_tui_unit(test_bridgeproto)
target_compile_definitions(test_theme PRIVATE MBX_THEMES_DIR="${CMAKE_SOURCE_DIR}/themes")

# Golden screens of the main views under a 256-colour, an 8-colour and a
# no-colour terminal (regenerate: MBX_UPDATE_GOLDEN=1 ctest -R tui.golden).
foreach(term xterm-256color xterm xterm-mono)
  add_test(NAME tui.golden.${term}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/headless_test.sh $<TARGET_FILE:mpibex> ${term}
                   ${CMAKE_CURRENT_SOURCE_DIR}/tui/keys/views.keys
                   ${CMAKE_CURRENT_SOURCE_DIR}/tui/golden/${term} ${CMAKE_CURRENT_BINARY_DIR}/headless/${term})
  set_tests_properties(tui.golden.${term} PROPERTIES TIMEOUT 60 LABELS tui)
endforeach()
# An 80x24 terminal: the side column narrows, the convergence marks drop
# their numbers, the results keep the status column.
add_test(NAME tui.golden.80x24
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/headless_test.sh $<TARGET_FILE:mpibex> xterm-256color
                 ${CMAKE_CURRENT_SOURCE_DIR}/tui/keys/small.keys
                 ${CMAKE_CURRENT_SOURCE_DIR}/tui/golden/80x24 ${CMAKE_CURRENT_BINARY_DIR}/headless/80x24 80x24)
set_tests_properties(tui.golden.80x24 PROPERTIES TIMEOUT 60 LABELS tui)
# SKaMPI's refinement, process-count sweeps and comparisons, on a fake job
# of 16 ranks: the new form fields and their messages, refined marks, a
# sweep over P, the ratio strip; at 120x40 in colour and without, and at
# 80x24.
foreach(term xterm-256color xterm-mono)
  add_test(NAME tui.golden.skampi.${term}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/headless_test.sh $<TARGET_FILE:mpibex> ${term}
                   ${CMAKE_CURRENT_SOURCE_DIR}/tui/keys/skampi.keys
                   ${CMAKE_CURRENT_SOURCE_DIR}/tui/golden/skampi-${term}
                   ${CMAKE_CURRENT_BINARY_DIR}/headless/skampi-${term} 120x40 16)
  set_tests_properties(tui.golden.skampi.${term} PROPERTIES TIMEOUT 60 LABELS tui)
endforeach()
add_test(NAME tui.golden.skampi.80x24
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/headless_test.sh $<TARGET_FILE:mpibex> xterm-256color
                 ${CMAKE_CURRENT_SOURCE_DIR}/tui/keys/skampi_small.keys
                 ${CMAKE_CURRENT_SOURCE_DIR}/tui/golden/skampi-80x24
                 ${CMAKE_CURRENT_BINARY_DIR}/headless/skampi-80x24 80x24 16)
set_tests_properties(tui.golden.skampi.80x24 PROPERTIES TIMEOUT 60 LABELS tui)

# End to end through the real launcher, mpiexec -n 2 and tmux.
add_test(NAME e2e.explorer
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/explorer_e2e.sh $<TARGET_FILE:mpibex>
                 $<TARGET_FILE:csvcheck> ${CMAKE_CURRENT_BINARY_DIR}/e2e-explorer)
set_tests_properties(e2e.explorer PROPERTIES TIMEOUT 600 LABELS e2e RUN_SERIAL TRUE)

# The launcher and terminal bridge on their own, through a test driver and
# an echo program as rank 0: tty and socket bridges, resize, strangers with
# wrong, replayed and garbage tokens, Ctrl-C, SIGTERM.
add_executable(launcher_driver tui/launcher_driver.c ${CMAKE_SOURCE_DIR}/tui/launcher.c
               ${CMAKE_SOURCE_DIR}/tui/launcher_job.c ${CMAKE_SOURCE_DIR}/tui/launcher_relay.c)
target_link_libraries(launcher_driver PRIVATE mbx_tuicore)
add_executable(term_echo tui/term_echo.c ${CMAKE_SOURCE_DIR}/tui/term.c
               ${CMAKE_SOURCE_DIR}/tui/term_bridge.c)
target_link_libraries(term_echo PRIVATE mbx_tuicore MPI::MPI_C util Threads::Threads)
add_test(NAME e2e.bridge
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/bridge_e2e.sh $<TARGET_FILE:launcher_driver>
                 $<TARGET_FILE:term_echo>)
set_tests_properties(e2e.bridge PROPERTIES TIMEOUT 300 LABELS e2e RUN_SERIAL TRUE)

# The b_eff / b_eff_io screen (5) on the fake back end, 4 ranks: the form,
# runs mid-way and done with their summaries, a field in error, a cancel,
# the help; at 120x40 and at 80x24.
add_test(NAME tui.golden.beff.xterm-256color
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/headless_test.sh $<TARGET_FILE:mpibex> xterm-256color
                 ${CMAKE_CURRENT_SOURCE_DIR}/tui/keys/beff.keys
                 ${CMAKE_CURRENT_SOURCE_DIR}/tui/golden/beff-xterm-256color
                 ${CMAKE_CURRENT_BINARY_DIR}/headless/beff-xterm-256color 120x40 4)
set_tests_properties(tui.golden.beff.xterm-256color PROPERTIES TIMEOUT 60 LABELS tui)
add_test(NAME tui.golden.beff.80x24
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/headless_test.sh $<TARGET_FILE:mpibex> xterm-256color
                 ${CMAKE_CURRENT_SOURCE_DIR}/tui/keys/beff_small.keys
                 ${CMAKE_CURRENT_SOURCE_DIR}/tui/golden/beff-80x24
                 ${CMAKE_CURRENT_BINARY_DIR}/headless/beff-80x24 80x24 4)
set_tests_properties(tui.golden.beff.80x24 PROPERTIES TIMEOUT 60 LABELS tui)

# The machine-state monitor (the probe strip, points measured again and
# SHIFTED), the method fields (sync, clock sync, cache) and comparisons with
# Wilcoxon significance, on the fake back end with 4 ranks: at 120x40 in
# colour and without, and at 80x24.
foreach(term xterm-256color xterm-mono)
  add_test(NAME tui.golden.monitor.${term}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/headless_test.sh $<TARGET_FILE:mpibex> ${term}
                   ${CMAKE_CURRENT_SOURCE_DIR}/tui/keys/monitor.keys
                   ${CMAKE_CURRENT_SOURCE_DIR}/tui/golden/monitor-${term}
                   ${CMAKE_CURRENT_BINARY_DIR}/headless/monitor-${term} 120x40 4)
  set_tests_properties(tui.golden.monitor.${term} PROPERTIES TIMEOUT 60 LABELS tui)
endforeach()
add_test(NAME tui.golden.monitor.80x24
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/headless_test.sh $<TARGET_FILE:mpibex> xterm-256color
                 ${CMAKE_CURRENT_SOURCE_DIR}/tui/keys/monitor_small.keys
                 ${CMAKE_CURRENT_SOURCE_DIR}/tui/golden/monitor-80x24
                 ${CMAKE_CURRENT_BINARY_DIR}/headless/monitor-80x24 80x24 4)
set_tests_properties(tui.golden.monitor.80x24 PROPERTIES TIMEOUT 60 LABELS tui)
