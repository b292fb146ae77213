# TUI tests: pure modules (cmocka), headless golden screens, tmux end to end.
function(mbx_tui_unit name)
  mbx_cmocka_test(tui ${name} mbx_tuicore)
endfunction()

mbx_tui_unit(test_canvas)
mbx_tui_unit(test_axis)
mbx_tui_unit(test_layout)
mbx_tui_unit(test_theme)
mbx_tui_unit(test_textedit)
mbx_cmocka_test(tui test_bridgeproto mbx_bridgeproto)
# The socket bridge against other local users on loopback: a false
# listener, --bridge-addr NAME, a crowd holding every slot, a flood of
# refusals in the log; and the reset the launcher writes after a crash.
mbx_cmocka_program(tui test_bridge_peers mbx_term)
add_test(NAME security.bridge_peers COMMAND test_bridge_peers)
set_tests_properties(security.bridge_peers PROPERTIES TIMEOUT 60 LABELS "tui;security")
# the run view's curve styles and short names (tui/explorer/ex_style.c)
mbx_cmocka_test(tui test_exstyle mbx_explorer)
# the run view's point inspector: its keys and the cursor a click puts
mbx_cmocka_test(tui test_exinspect mbx_explorer)
target_compile_definitions(test_theme PRIVATE MBX_THEMES_DIR="${CMAKE_SOURCE_DIR}/themes")

# One golden-screen test: the explorer on the fake back end of RANKS ranks
# at COLSxROWS under terminal type TERM runs tui/keys/KEYS and its dumps are
# compared with tui/golden/DIR (regenerate: MBX_UPDATE_GOLDEN=1 ctest -R
# tui.golden). Arguments after RANKS go to the explorer.
function(mbx_golden name term keys dir size ranks)
  add_test(NAME tui.golden.${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/headless_test.sh $<TARGET_FILE:mpibex> ${term}
                   ${CMAKE_CURRENT_SOURCE_DIR}/tui/keys/${keys}
                   ${CMAKE_CURRENT_SOURCE_DIR}/tui/golden/${dir}
                   ${CMAKE_CURRENT_BINARY_DIR}/headless/${dir} ${size} ${ranks} ${ARGN})
  set_tests_properties(tui.golden.${name} PROPERTIES TIMEOUT 60 LABELS tui)
endfunction()

# Golden screens of the main views under a 256-colour, an 8-colour and a
# no-colour terminal (regenerate: MBX_UPDATE_GOLDEN=1 ctest -R tui.golden).
foreach(term xterm-256color xterm xterm-mono)
  mbx_golden(${term} ${term} views.keys ${term} 100x30 4)
endforeach()
# An 80x24 terminal: the side column narrows, the convergence marks drop
# their numbers, the results keep the status column.
mbx_golden(80x24 xterm-256color small.keys 80x24 80x24 4)
# SKaMPI's refinement, process-count sweeps and comparisons, on a fake job
# of 16 ranks: the new form fields and their messages, refined marks, a
# sweep over P, the ratio strip; at 120x40 in colour and without, and at
# 80x24.
foreach(term xterm-256color xterm-mono)
  mbx_golden(skampi.${term} ${term} skampi.keys skampi-${term} 120x40 16)
endforeach()
mbx_golden(skampi.80x24 xterm-256color skampi_small.keys skampi-80x24 80x24 16)

# threads.* and omp.* over their thread count (param 1:8) on the fake back
# end of 2 ranks: unsized benchmarks start on the parameter's axis, the
# convergence list names points by it, x has no other axis to go to.
mbx_golden(threads xterm-mono threads.keys threads 100x30 2)
# Streaming bandwidth (bw.*) on 4 fake ranks: the picker's bw
# pattern, the window set in the form's param field, MB/s of the bytes a
# window moves, the window in the results.
mbx_golden(bw xterm-mono bw.keys bw 100x30 4)

# rma.* on the fake back end of 2 ranks: picked, the form's rma sync set
# to pscw, run (the times follow the mode), the results.
mbx_golden(rma xterm-mono rma.keys rma 100x30 2)

# End to end through the real launcher, mpiexec -n 2 and tmux.
add_test(NAME e2e.explorer
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/explorer_e2e.sh $<TARGET_FILE:mpibex>
                 $<TARGET_FILE:csvcheck> ${CMAKE_CURRENT_BINARY_DIR}/e2e-explorer)
set_tests_properties(e2e.explorer PROPERTIES TIMEOUT 600 LABELS e2e)

# Input through a real terminal in tmux: mouse escape sequences
# click tabs, a benchmark and the footer and turn the wheel on the fake back
# end, with tmux's mouse flags on while the explorer runs and off after;
# a tab click through the launcher and mpiexec -n 2 over the tty and the
# socket bridges; a click on a marker of a real run (mpiexec -n 2) opens the
# point inspector; TERM=linux (no alternate screen) leaves nothing behind.
foreach(_case fake launcher inspector linux)
  add_test(NAME e2e.input.${_case}
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/input_e2e.sh $<TARGET_FILE:mpibex>
                   ${CMAKE_CURRENT_BINARY_DIR}/e2e-input-${_case} ${_case})
  set_tests_properties(e2e.input.${_case} PROPERTIES TIMEOUT 180 LABELS e2e)
endforeach()

# The launcher and terminal bridge on their own, through a test driver and
# an echo program as rank 0: tty and socket bridges, resize, strangers with
# wrong, replayed and garbage tokens, Ctrl-C, SIGTERM.
add_executable(launcher_driver tui/launcher_driver.c)
target_link_libraries(launcher_driver PRIVATE mbx_term)
add_executable(term_echo tui/term_echo.c)
target_link_libraries(term_echo PRIVATE mbx_term MPI::MPI_C)
add_test(NAME e2e.bridge
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/bridge_e2e.sh $<TARGET_FILE:launcher_driver>
                 $<TARGET_FILE:term_echo>)
set_tests_properties(e2e.bridge PROPERTIES TIMEOUT 300 LABELS "e2e;security")
# Where the launcher listens (nowhere with --bridge tty, only on
# --bridge-addr, every interface without it), its private status directory,
# no token or environment secret in its log.
add_test(NAME security.bridge
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/bridge_e2e.sh $<TARGET_FILE:launcher_driver>
                 $<TARGET_FILE:term_echo> bind)
set_tests_properties(security.bridge PROPERTIES TIMEOUT 240 LABELS "e2e;security")

# The bytes the launcher writes after a rank is SIGKILLed (rank 0 over the
# socket bridge, rank 1 over the tty bridge), in a pty of its own: every
# mode the explorer turns on is turned off (tmux would hide a missing one).
add_test(NAME e2e.launcher_reset
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/tui/launcher_reset_e2e.py
                 $<TARGET_FILE:launcher_driver> $<TARGET_FILE:term_echo>)
set_tests_properties(e2e.launcher_reset PROPERTIES TIMEOUT 120 LABELS "e2e;fault")

# Faults under the live explorer (real launcher, mpiexec -n 2, tmux): SIGTERM
# to rank 0, the launcher killed, the terminal closed, rank 1 killed; each
# mid-run with autosave on.
foreach(_case sigterm_rank0 launcher_killed hangup rank1_killed)
  add_test(NAME e2e.fault.${_case}
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/faults_e2e.sh $<TARGET_FILE:mpibex>
                   $<TARGET_FILE:csvcheck> ${CMAKE_CURRENT_BINARY_DIR}/e2e-faults ${_case})
  set_tests_properties(e2e.fault.${_case} PROPERTIES TIMEOUT 180 LABELS "e2e;fault")
endforeach()
# The launcher names rank 0's variables with -x for Open MPI's mpirun only
# (stand-in launchers that answer --version; no MPI runs).
add_test(NAME tui.launcher_env_names
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/launcher_env_names.sh
                 $<TARGET_FILE:launcher_driver> ${CMAKE_CURRENT_BINARY_DIR}/launcher-env-names)
set_tests_properties(tui.launcher_env_names PROPERTIES TIMEOUT 60 LABELS tui SKIP_RETURN_CODE 77)

# The default job starter: srun inside a Slurm allocation (SLURM_JOB_ID),
# the build's mpiexec outside one (stand-in srun).
add_test(NAME tui.launcher_slurm_default
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/launcher_slurm_default.sh
                 $<TARGET_FILE:launcher_driver> ${CMAKE_CURRENT_BINARY_DIR}/launcher-slurm-default)
set_tests_properties(tui.launcher_slurm_default PROPERTIES TIMEOUT 60 LABELS tui SKIP_RETURN_CODE 77)

# The b_eff / b_eff_io screen (5) on the fake back end, 4 ranks: the form,
# runs mid-way and done with their summaries, a field in error, a cancel,
# the help; at 120x40 and at 80x24.
mbx_golden(beff.xterm-256color xterm-256color beff.keys beff-xterm-256color 120x40 4)
mbx_golden(beff.80x24 xterm-256color beff_small.keys beff-80x24 80x24 4)

# The machine-state monitor (the probe strip, points measured again and
# SHIFTED), the method fields (sync, clock sync, cache) and comparisons with
# Wilcoxon significance, on the fake back end with 4 ranks: at 120x40 in
# colour and without, and at 80x24.
foreach(term xterm-256color xterm-mono)
  mbx_golden(monitor.${term} ${term} monitor.keys monitor-${term} 120x40 4)
endforeach()
mbx_golden(monitor.80x24 xterm-256color monitor_small.keys monitor-80x24 80x24 4)

# Accurate fan-out latency (Sphinx) next to the plain broadcast, on the fake
# back end with 4 ranks: the p marks of the plain medians in the plot (time
# and bandwidth), their legend line and the results' plain column; at
# 120x40 in colour and without, and the plot at 80x24.
foreach(term xterm-256color xterm-mono)
  mbx_golden(fanout.${term} ${term} fanout.keys fanout-${term} 120x40 4)
endforeach()
mbx_golden(fanout.80x24 xterm-256color fanout_small.keys fanout-80x24 80x24 4)

# The run view's point inspector and marks: each curve its
# marker (and, without colour, its line style), a point's state as an
# attribute, the inspector's panel, error bars; at 120x40 and 80x24, in
# 256 colours, 8 colours (xterm) and without.
foreach(term xterm-256color xterm xterm-mono)
  mbx_golden(insp.${term} ${term} insp.keys insp-${term} 120x40 4)
endforeach()
foreach(term xterm-256color xterm-mono)
  mbx_golden(insp.80x24.${term} ${term} insp.keys insp-80x24-${term} 80x24 4)
endforeach()
# The inspector opened by a click on a marker, a click beside every point.
mbx_golden(insp.click xterm-256color insp_click.keys insp-click 120x40 4)

# Overlap (overlap.iallreduce, OSU's method) on the fake back end: the
# picker's overlap pattern, the run, and the results' overlap% column next
# to plain (the pure communication time), without colour at 120x40.
mbx_golden(overlap.xterm-mono xterm-mono overlap.keys overlap-xterm-mono 120x40 4)

# Input: mouse events from the key script (mouse:COL,ROW,BUTTON)
# on the tabs, the footer, the picker, the form and the results; the
# results scrolled sideways to MB/s; text entry (a click in a field,
# Ctrl-U, Ctrl-W, Home/End, the export name selected); the help and the
# message overlays wrapped and scrolled; at 80x24 in colour and at 120x40
# without.
mbx_golden(input.80x24 xterm-256color input.keys input-80x24 80x24 4)
mbx_golden(input.xterm-mono xterm-mono input_wide.keys input-xterm-mono 120x40 4)

include(tui/log_autosave_dirs_tests.cmake)

# Narrow screens cut nothing without a sign (fake back end, 4 ranks): the
# 80x24 run footer keeps v, e, w and i; inspector lines cut at 80x24 end in
# an ellipsis; the help and the series chooser are framed and the help
# explains the numbers; a comparison's summary cut on its line is whole
# under m, and the ratio is B/A, as `mpibex compare` writes it.
foreach(_case footer inspector overlay compare)
  add_test(NAME tui.screens_fit.${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/screens_fit.sh $<TARGET_FILE:mpibex>
                   ${CMAKE_CURRENT_BINARY_DIR}/screens-fit-${_case} ${_case})
  set_tests_properties(tui.screens_fit.${_case} PROPERTIES TIMEOUT 60 LABELS tui)
endforeach()

# The guidelines screen on the fake back end, 4 ranks, sizes 1K:16K: two
# rules picked with / (gather.allgather, blocking.bcast), before a run,
# while passes land, after it with a planted violation (MBX_TEST_STEP
# makes coll.bcast twice as slow from 4 KiB: blocking.bcast is violated
# from 4 KiB and holds below), Enter on it (the compare view of
# coll.bcast and coll.ibcast) and Esc back; in colour and without.
foreach(term xterm-256color xterm-mono)
  mbx_golden(guidelines.${term} ${term} guidelines.keys guidelines-${term} 100x30 4 --sizes 1K:16K)
  set_tests_properties(tui.golden.guidelines.${term} PROPERTIES ENVIRONMENT
                       "MBX_TEST_STEP=4096:2:coll.bcast")
endforeach()

# The pairs screen on the fake back end of 5 hosts, one rank each, with a
# planted slow node (node 2, fake03: 2x its row and column) and slow link
# (fake01 -> fake04: 3x): the form, the heatmap live and at the end with
# the verdicts naming both, the cursor, the cell inspector, bandwidth; in
# 256 colours, 8 colours and none at 120x40 and at 80x24; the shades in
# block and ASCII glyphs; and 40 fake ranks a node each, where a cell of
# the map is a block of nodes (and z one node a cell, scrolled).
set(_mbx_pairs_env "MBX_TEST_FAKE_HOSTS=5;MBX_TEST_FAKE_SLOW_NODE=2;MBX_TEST_FAKE_SLOW_LINK=0:3")
foreach(term xterm-256color xterm xterm-mono)
  mbx_golden(pairs.${term} ${term} pairs.keys pairs-${term} 120x40 5)
  set_tests_properties(tui.golden.pairs.${term} PROPERTIES ENVIRONMENT "${_mbx_pairs_env}")
endforeach()
mbx_golden(pairs.80x24 xterm-256color pairs.keys pairs-80x24 80x24 5)
mbx_golden(pairs.glyphs xterm-mono pairs_glyphs.keys pairs-glyphs 80x24 5)
mbx_golden(pairs.blocks xterm-256color pairs_big.keys pairs-blocks 80x24 40)
set_tests_properties(tui.golden.pairs.80x24 tui.golden.pairs.glyphs PROPERTIES
                     ENVIRONMENT "${_mbx_pairs_env}")
set_tests_properties(tui.golden.pairs.blocks PROPERTIES ENVIRONMENT "MBX_TEST_FAKE_SLOW_NODE=2")
