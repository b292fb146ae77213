# The drift-aware global clock (Jones-Koenig and HCA) against clocks with a
# known offset and drift, on 2 and 4 ranks; the residual bounds are in
# tests/mpi/test_clocksync.c. One run is a few seconds (the syncs, a 1 s
# wait, the bad-option calls). Included from tests/mpi/mpi_tests.cmake.
add_executable(test_clocksync mpi/test_clocksync.c)
target_link_libraries(test_clocksync PRIVATE mbx_engine)
foreach(_method jk hca)
  foreach(_np 2 4)
    mbx_mpi_test(mpi.clocksync.${_method}.n${_np} ${_np} 120 $<TARGET_FILE:test_clocksync> ${_method})
  endforeach()
endforeach()
