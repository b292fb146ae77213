# Benchmark selection in the explorer: a plan's bench = with a
# glob, the picker's glob filter, a glob that selects nothing.
add_test(NAME tui.bench_glob
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/bench_glob.sh $<TARGET_FILE:mpibex>
                 ${CMAKE_CURRENT_BINARY_DIR}/i18-habits)
set_tests_properties(tui.bench_glob PROPERTIES TIMEOUT 60 LABELS tui)
