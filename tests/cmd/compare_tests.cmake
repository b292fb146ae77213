# mpibex compare on hand-written directories of launches, and --resume and
# merge keeping rma_sync modes apart on the fake back end: no MPI. Its bad input: compare.bad.*, in process (tests/cmd/test_badinput.c);
# two real launches compared: tests/mpi/repeat_check.sh.
set(MBX_COMPARE_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/cmd/compare_check.sh)
add_test(NAME compare.rma_sync
         COMMAND bash ${MBX_COMPARE_CHECK} rma_sync $<TARGET_FILE:mpibex> ${MBX_OUT}/compare_rma_sync)
set_tests_properties(compare.rma_sync PROPERTIES TIMEOUT 30 LABELS "cmd;compare")
add_test(NAME compare.rma_sync_resume_merge
         COMMAND bash ${MBX_COMPARE_CHECK} resume_merge $<TARGET_FILE:mpibex> ${MBX_OUT}/compare_rma_resume)
set_tests_properties(compare.rma_sync_resume_merge PROPERTIES TIMEOUT 60 LABELS "cmd;compare;merge")
add_test(NAME compare.launches
         COMMAND bash ${MBX_COMPARE_CHECK} launches $<TARGET_FILE:mpibex> ${MBX_OUT}/compare_launches)
set_tests_properties(compare.launches PROPERTIES TIMEOUT 60 LABELS "cmd;compare")
