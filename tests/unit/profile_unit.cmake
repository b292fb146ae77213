# The machine profile (engine/core/profile*.c): its file's round trip, a
# bad, foreign or stale profile refused in one line, the random-effects
# estimate's coverage on seeded launches, the widening of a row.
mbx_unit_test(test_profile)
target_compile_definitions(test_profile PRIVATE MBX_TMP_DIR="${CMAKE_CURRENT_BINARY_DIR}")
set_tests_properties(unit.test_profile PROPERTIES LABELS "unit;badinput")
# A merged row's launches:K and the prediction interval over launches
# (engine/core/merge.c), by hand and its coverage on seeded launches.
mbx_unit_test(test_merge_pi)
