# Streaming bandwidth (bw.*) on the fake back end, no MPI:
# bandwidth_MBps and msg_rate_per_s follow the bytes and messages each
# benchmark moves per observation, with the default window, --param and a
# plan file's param key. The MPI runs with --validate are
# tests/mpi/validate_bw.cmake; the shaped two-host link tests/netns.
add_test(NAME tui.bw_fake
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cmd/bw_fake_check.sh $<TARGET_FILE:mpibex>
                 $<TARGET_FILE:csvcheck> ${CMAKE_CURRENT_BINARY_DIR}/bw-fake)
set_tests_properties(tui.bw_fake PROPERTIES TIMEOUT 60 LABELS tui)
