# CSV format 3 (no MPI): csvcheck's rules for the pass columns
# (and its acceptance of 43-column files), and `mpibex merge` / `mpibex
# report` of a 43- and a 51-column file (tests/cmd/csv_widths_check.py).
set(MBX_I16CSV_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/cmd/csv_widths_check.py)
add_test(NAME csv.check.format3
         COMMAND python3 ${MBX_I16CSV_CHECK} csvcheck $<TARGET_FILE:csvcheck> ${MBX_OUT}/i16csv_check)
add_test(NAME csv.merge.widths
         COMMAND python3 ${MBX_I16CSV_CHECK} merge $<TARGET_FILE:mpibex> ${MBX_OUT}/i16csv_merge)
add_test(NAME csv.report.widths
         COMMAND python3 ${MBX_I16CSV_CHECK} report $<TARGET_FILE:mpibex> ${MBX_OUT}/i16csv_report)
set_tests_properties(csv.check.format3 csv.merge.widths PROPERTIES TIMEOUT 30 LABELS unit)
set_tests_properties(csv.report.widths PROPERTIES TIMEOUT 60 LABELS report)
# The results columns of docs/csv-format.md are the column table's (names,
# order, units: tests/cmd/csv_columns_docs.py).
add_test(NAME docs.csv_columns
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/cmd/csv_columns_docs.py $<TARGET_FILE:csvcheck>
                 ${CMAKE_SOURCE_DIR}/docs)
set_tests_properties(docs.csv_columns PROPERTIES TIMEOUT 30 LABELS "docs;quick;full")
