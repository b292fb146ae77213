# Commands without MPI: the subcommands' bad input in process, and the
# checks of files that start no MPI job.

# test_badinput.c: one table of bad-input cases (run, repeat, merge,
# compare, report). Each case is a test of its name, `test_badinput NAME`;
# the names are read from the table's lines ({"name", KIND, ...).
mbx_cmocka_program(cmd test_badinput mbx_cmd)
target_compile_definitions(test_badinput PRIVATE MBX_TMP_DIR="${CMAKE_CURRENT_BINARY_DIR}"
  MBX_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
  MBX_REPORT_FIXTURES="${CMAKE_CURRENT_SOURCE_DIR}/cmd/report_fixtures.py")
# badinput_habits.h and badinput_cmds.h hold more of the table's lines (included in it).
set(_bad_lines)
foreach(_f test_badinput.c badinput_habits.h badinput_cmds.h)
  file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/cmd/${_f} _lines
       REGEX "^ *\\{\"[a-z_.]+\", (RUN_PARSE|RUN|REPEAT|MERGE|COMPARE|REPORT|LIST),")
  list(APPEND _bad_lines ${_lines})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cmd/${_f})
endforeach()
foreach(_line IN LISTS _bad_lines)
  string(REGEX REPLACE "^ *\\{\"([a-z_.]+)\".*" "\\1" _name "${_line}")
  # merge.bad.x, report.bad.x, ...: also the command's label, as before
  string(REGEX MATCH "^(merge|report|repeat|compare|list)\\." _cmd "${_name}")
  string(REPLACE "." "" _cmd "${_cmd}")
  add_test(NAME ${_name} COMMAND test_badinput ${_name})
  set_tests_properties(${_name} PROPERTIES TIMEOUT 30 LABELS "cmd;badinput;${_cmd}")
endforeach()

# The launcher's own bad input (no MPI; stdin is /dev/null, so it can never
# start an explorer on the terminal ctest runs in).
function(mbx_launcher_bad name regex)
  add_test(NAME badinput.launcher_${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh "${regex}"
                   ${MBX_OUT}/bad_launcher_${name}.csv -- bash -c "exec \"$@\" </dev/null" launcher
                   $<TARGET_FILE:mpibex> ${ARGN})
  set_tests_properties(badinput.launcher_${name} PROPERTIES TIMEOUT 30 LABELS "badinput;launcher")
endfunction()
mbx_launcher_bad(n_range "^mpibex: -n: 0 is out of range; allowed 1\\.\\.4096$" -n 0)
# An OSU flag: mpibex's equivalent before any job starts.
mbx_launcher_bad(osu_m "^mpibex: -m: OSU's message-size range. mpibex takes --sizes MIN:MAX" -m 1:4096)
# The line quotes the user's value, not the table's example (1:4096); the
# explorer's own parser (`mpibex explore`) does the same.
mbx_launcher_bad(osu_m_value "^mpibex: -m: OSU's message-size range. .*\\(OSU's -m 8:65536 is --sizes 8:64KiB\\)$"
  -n 2 -m 8:65536)
mbx_launcher_bad(imb_npmax_value "^mpibex: -npmax: .*\\(-npmax 6 is --procs 2:6\\)$" -n 2 -npmax 6)
add_test(NAME badinput.explore_osu_m_value
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh
                 "^mpibex: -m: OSU's message-size range. .*\\(OSU's -m 8:65536 is --sizes 8:64KiB\\)$"
                 ${MBX_OUT}/bad_explore_osu_m.csv -- $<TARGET_FILE:mpibex> explore --fake 2 -m 8:65536)
set_tests_properties(badinput.explore_osu_m_value PROPERTIES TIMEOUT 30 LABELS "tui;badinput")
mbx_launcher_bad(n_word "^mpibex: -n: 'x' is not a whole number; allowed 1\\.\\.4096$" -n x)
mbx_launcher_bad(bridge_mode "^mpibex: --bridge: unknown mode 'pigeon'; allowed auto, tty, socket$"
  --bridge pigeon)
mbx_launcher_bad(bridge_addr_missing "^mpibex: --bridge-addr: missing value" --bridge-addr)
mbx_launcher_bad(log_missing "^mpibex: --log: missing value; allowed a file path$" --log)
mbx_launcher_bad(no_terminal "^mpibex: the explorer needs a terminal; for batch runs use: mpiexec -n 2 mpibex run PLAN\\.ini$"
  -n 2)

include(cmd/merge_tests.cmake)
include(cmd/compare_tests.cmake)
include(cmd/check_tests.cmake)
include(cmd/report_tests.cmake)
include(cmd/csv_widths_tests.cmake)

# A plan's keys of the whole run through run's front end (each
# key, its bad value's line, the command line winning, thread_level
# before MPI).
mbx_cmocka_test(cmd test_run_keys mbx_cmd)
target_compile_definitions(test_run_keys PRIVATE MBX_TMP_DIR="${CMAKE_CURRENT_BINARY_DIR}")
# The machine profile end to end on the fake back end (calibrate, auto
# and named --profile, refusals, merge's launches:K; tests/cmd/profile_check.sh).
add_test(NAME badinput.profile
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cmd/profile_check.sh $<TARGET_FILE:mpibex>
                 ${MBX_OUT}/profile)
set_tests_properties(badinput.profile PROPERTIES TIMEOUT 60 LABELS "badinput;merge")
# The host's history end to end on the fake back end (written, read, an
# unusual state flagged, --history none, refusals; tests/cmd/history_check.sh).
add_test(NAME badinput.history
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cmd/history_check.sh $<TARGET_FILE:mpibex>
                 ${MBX_OUT}/history)
set_tests_properties(badinput.history PROPERTIES TIMEOUT 60 LABELS "badinput;quick")

# mpibex guidelines: bad input (before any job: exit 2, one line naming
# the field), then the verdicts on the fake back end and in a 2-rank job
# (tests/cmd/guidelines_check.sh).
function(mbx_guidelines_bad name regex)
  add_test(NAME badinput.guidelines_${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh "${regex}"
                   ${MBX_OUT}/bad_guidelines_${name}.csv -- $<TARGET_FILE:mpibex> guidelines
                   ${ARGN} -o ${MBX_OUT}/bad_guidelines_${name}.csv --fake 2)
  set_tests_properties(badinput.guidelines_${name} PROPERTIES TIMEOUT 30 LABELS "badinput;cmd")
endfunction()
mbx_guidelines_bad(unknown_bench
  "^mpibex guidelines: .*bad_rule\\.ini:1: \\[x\\] holds: unknown benchmark 'coll\\.nope' \\(see 'mpibex list'\\)$"
  ${CMAKE_CURRENT_SOURCE_DIR}/cmd/bad_rule.ini)
mbx_guidelines_bad(reduction_size
  "^mpibex guidelines: --sizes: \\[allreduce\\.reduce_bcast\\] compares coll\\.allreduce, which measures whole multiples of 4 bytes from 4 .*; 6 B is not one"
  --rules allreduce.reduce_bcast --sizes 4,6)
mbx_guidelines_bad(reduction_range
  "^mpibex guidelines: --sizes: \\[allreduce\\.reduce_bcast\\] compares coll\\.allreduce, .*; the range 1:3 holds none$"
  --rules allreduce.reduce_bcast --sizes 1:3)
# A given range, like the default, lets each rule take the sizes it can:
# the reductions from 4 B, the rest from 1 B.
add_test(NAME guidelines.sizes_range
         COMMAND bash -c "set -o pipefail; \"$0\" guidelines --print-plan --sizes 1:64 | tr -d '\\n' | grep -Eq '\\[gl-1\\]bench = coll\\.allreduce.*sizes = 4,8,.*bench = coll\\.bcast.*sizes = 1,2,4'"
                 $<TARGET_FILE:mpibex>)
set_tests_properties(guidelines.sizes_range PROPERTIES TIMEOUT 30 LABELS "cmd;quick")
mbx_guidelines_bad(tolerance
  "^mpibex guidelines: --tolerance: expected a percentage in 0\\.\\.50 \\(got '80'\\)$"
  --tolerance 80)
mbx_guidelines_bad(rules
  "^mpibex guidelines: --rules: 'nope\\*' selects no rule of guidelines\\.ini \\(built in\\)$"
  --rules nope*)
foreach(_case planted null20 judge)
  add_test(NAME guidelines.fake_${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cmd/guidelines_check.sh $<TARGET_FILE:mpibex>
                   ${MBX_OUT} ${_case})
  set_tests_properties(guidelines.fake_${_case} PROPERTIES TIMEOUT 120 LABELS "cmd;guidelines")
endforeach()
add_test(NAME mpi.guidelines.planted.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cmd/guidelines_check.sh $<TARGET_FILE:mpibex>
                 ${MBX_OUT} planted_real -- ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
                 ${MPIEXEC_PREFLAGS})
set_tests_properties(mpi.guidelines.planted.n2 PROPERTIES TIMEOUT 180 LABELS "mpi;guidelines"
                     PROCESSORS 2)

# The whole registry through --bench '*' (tests/cmd/whole_registry.sh).
add_test(NAME cmd.whole_registry_fake
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cmd/whole_registry.sh $<TARGET_FILE:mpibex> ${MBX_OUT})
set_tests_properties(cmd.whole_registry_fake PROPERTIES TIMEOUT 60 LABELS "cmd")
