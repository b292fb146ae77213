# "Two runs, one output": the claim of an output path (mbx/output.h).
mbx_unit_test(test_output)
target_compile_definitions(test_output PRIVATE MBX_TMP_DIR="${CMAKE_CURRENT_BINARY_DIR}")
