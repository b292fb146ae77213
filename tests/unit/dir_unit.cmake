# Deleting through someone else's link: the directory helpers
# (engine/core/dir.c) and their users (b_eff_io's stale run directories, the
# launcher's log directory, the explorer's autosave, the rescue directory).
mbx_unit_test(test_dir)
target_compile_definitions(test_dir PRIVATE MBX_TMP_DIR="${CMAKE_CURRENT_BINARY_DIR}")
set_tests_properties(unit.test_dir PROPERTIES LABELS "unit;security")
