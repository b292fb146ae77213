# Refinement: points with standard errors, no split inside the
# noise, steps located by bisection, min_ratio everywhere, points measured
# again (engine/core/refine.c) on seeded noisy synthetic curves.
mbx_unit_test(test_refine_noise)

# Refinement: the explorer's refinement honours min_ratio as batch
# does (no split of a size segment narrower than 5 %), on the fake back end.
add_test(NAME tui.refine_min_ratio
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/refine_ratio.sh $<TARGET_FILE:mpibex>
                 ${CMAKE_CURRENT_SOURCE_DIR}/tui/keys/refine_ratio.keys
                 ${CMAKE_CURRENT_BINARY_DIR}/refine-ratio)
set_tests_properties(tui.refine_min_ratio PROPERTIES TIMEOUT 60 LABELS tui)

# Refinement through the real scheduler on noisy straight and kneed
# log-log curves: false splits and power, seeded.
mbx_cmocka_test(unit test_refine_sched mbx_sched unit/sched_sim.c)
# About 30 s of CPU plain (860 seeded runs of the scheduler), 60-90 s
# under AddressSanitizer.
set_tests_properties(unit.test_refine_sched PROPERTIES TIMEOUT 300)
if(MBX_VALGRIND) # memcheck at ~50x: a few trials check memory, the plain runs the figures
  set_tests_properties(valgrind.test_refine_sched valgrind.test_refine_noise
                       PROPERTIES ENVIRONMENT MBX_REFINE_TRIALS=8)
endif()

# The benchmarks' interpolation errors come from refinement's criterion
# (bench/interp_errors.c): known values, and bad input refused.
add_test(NAME bench.interp_errors
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bench/interp_errors_check.sh
                 $<TARGET_FILE:mbx_interp_errors> ${CMAKE_CURRENT_BINARY_DIR}/out/interp_errors)
set_tests_properties(bench.interp_errors PROPERTIES TIMEOUT 30 LABELS "bench;quick")
