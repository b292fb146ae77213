# bench/honesty.sh: the analyser's arithmetic (calibration, levels,
# launch spread; the CI over launches through mpibex merge) on synthetic
# launches with known numbers. No MPI, no timing.
add_test(NAME bench.honesty_analyze
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bench/honesty_analyze_check.sh
                 ${CMAKE_SOURCE_DIR}/bench/honesty_analyze.py
                 ${CMAKE_CURRENT_BINARY_DIR}/out/honesty_analyze $<TARGET_FILE:mpibex>)
set_tests_properties(bench.honesty_analyze PROPERTIES TIMEOUT 120 LABELS bench)
