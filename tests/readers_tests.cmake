# Readers: the strict number fields, the row-at-a-time CSV reader
# and the byte-order mark (unit), and the CLI refusals and the big-file
# memory bound (below; the scripts are in tests/cmd).
mbx_unit_test(test_fields)
target_compile_definitions(test_fields PRIVATE MBX_TMP_DIR="${CMAKE_CURRENT_BINARY_DIR}")
set_tests_properties(unit.test_fields PROPERTIES LABELS "unit;badinput")

# Values that cannot be times (or counts) in a results or observation file:
# merge, compare and report refuse them with the file, line 3 and the
# column, and write nothing. No MPI.
set(MBX_I15R_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/cmd/readers_check.py)
function(mbx_i15r_bad name tool file column value)
  add_test(NAME badinput.fields.${name}
           COMMAND python3 ${MBX_I15R_CHECK} bad $<TARGET_FILE:mpibex> ${MBX_OUT}/fields_${name}
                   ${tool} ${file} ${column} "${value}")
  set_tests_properties(badinput.fields.${name} PROPERTIES TIMEOUT 60 LABELS "badinput;merge")
endfunction()
mbx_i15r_bad(merge_negative merge results median_us -0.01)
mbx_i15r_bad(merge_hex merge results tmean_us 0x10)
mbx_i15r_bad(merge_huge merge results median_us 1e308)
mbx_i15r_bad(merge_inf merge results median_us inf)
mbx_i15r_bad(merge_nan merge results tmean_us nan)
mbx_i15r_bad(merge_count_sign merge results n -1)
mbx_i15r_bad(merge_count_empty merge results n "")
mbx_i15r_bad(merge_procs_hex merge results procs 0x10)
mbx_i15r_bad(merge_bytes_exp merge results bytes 1e3)
mbx_i15r_bad(compare_huge compare results median_us 1e308)
mbx_i15r_bad(compare_obs_negative compare obs time_us -0.5)
mbx_i15r_bad(compare_obs_empty compare obs time_us "")
mbx_i15r_bad(compare_obs_nan compare obs time_us nan)
mbx_i15r_bad(compare_bytes_hex compare results bytes 0x10)
mbx_i15r_bad(report_negative report results median_us -1)
mbx_i15r_bad(report_bandwidth_huge report results bandwidth_MBps 1e308)
mbx_i15r_bad(report_ci_inf report results ci95_lo_us inf)

# Files that start with a UTF-8 byte-order mark (as spreadsheets write
# them) are read as without it: CSVs by merge, compare and report, a plan
# by run (MPI, two ranks).
add_test(NAME badinput.bom.csv
         COMMAND python3 ${MBX_I15R_CHECK} bom $<TARGET_FILE:mpibex> ${MBX_OUT}/bom_csv)
set_tests_properties(badinput.bom.csv PROPERTIES TIMEOUT 60 LABELS "badinput;merge")
add_test(NAME badinput.bom.plan
         COMMAND python3 ${MBX_I15R_CHECK} plan $<TARGET_FILE:mpibex> ${MBX_OUT}/bom_plan
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS})
set_tests_properties(badinput.bom.plan PROPERTIES TIMEOUT 120 LABELS "badinput;mpi" PROCESSORS 2)

# A 200 MB results file through merge: peak memory bounded by the points
# (2000), not the file. Smaller under the sanitizers, whose shadow memory
# and slowness are not what is measured here.
if(MBX_SANITIZE)
  set(_i15r_mb 40)
  set(_i15r_rss 400)
else()
  set(_i15r_mb 200)
  set(_i15r_rss 100)
endif()
add_test(NAME fault.merge_big_file
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/cmd/readers_big.py $<TARGET_FILE:mpibex>
                 ${MBX_OUT}/merge_big ${_i15r_mb} ${_i15r_rss})
set_tests_properties(fault.merge_big_file PROPERTIES TIMEOUT 180 LABELS "fault;merge")
