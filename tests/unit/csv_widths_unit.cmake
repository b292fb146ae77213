# CSV format 3: results files of every width (40 to 43 columns,
# and 51 with the pass columns) read by merge, compare and the --resume
# reader, alone and mixed, through libcsv (tests/unit/test_csv_widths.c).
mbx_unit_test(test_csv_widths)
target_compile_definitions(test_csv_widths PRIVATE MBX_TMP_DIR="${CMAKE_CURRENT_BINARY_DIR}")
