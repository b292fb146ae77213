# bench/honesty.sh's analysis. No MPI, no timing.
# The arithmetic on synthetic launches with known numbers (profile, ordered
# pairs, leave-one-out, split half, TOST, mpibex's pi95 columns).
add_test(NAME bench.honesty_analyze
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bench/honesty_analyze_check.sh
                 ${CMAKE_SOURCE_DIR}/bench/honesty_analyze.py
                 ${CMAKE_CURRENT_BINARY_DIR}/out/honesty_analyze)
set_tests_properties(bench.honesty_analyze PROPERTIES TIMEOUT 120 LABELS bench)
# Its statistics on seeded simulations: the old figures it replaces are
# shown flattering, the new ones recover planted values (a few CPU seconds).
add_test(NAME bench.honesty_analyze_selftest
         COMMAND python3 ${CMAKE_SOURCE_DIR}/bench/honesty_analyze.py --selftest)
set_tests_properties(bench.honesty_analyze_selftest PROPERTIES TIMEOUT 120 LABELS "bench;unit")
