# Engine features for passes: the light warm-up of a point's later
# passes and fresh buffers at a page offset per measurement
# (mbx_point_spec.warm_light, .buf_offset); tests/mpi/test_warmbuf.c.
# Properties only; each run is about a second on 2 ranks. Included from
# tests/mpi/mpi_tests.cmake.
add_executable(test_warmbuf mpi/test_warmbuf.c)
target_link_libraries(test_warmbuf PRIVATE mbx_engine)
target_compile_definitions(test_warmbuf PRIVATE MBX_TMP_DIR="${CMAKE_CURRENT_BINARY_DIR}")
mbx_mpi_test(mpi.warmbuf.n2 2 60 $<TARGET_FILE:test_warmbuf> measure)
# What a measurement re-draws: buffer addresses, pool sets, receive
# offsets apart from send offsets, a duplicated communicator.
mbx_mpi_test(mpi.warmbuf.redraw.n2 2 60 $<TARGET_FILE:test_warmbuf> redraw)
# Memory made short (a made-up /proc, MBX_TEST_MEMROOT): fewer sets, said.
mbx_mpi_test(mpi.warmbuf.short.n2 2 60 $<TARGET_FILE:test_warmbuf> short)
mbx_mpi_test(badinput.buf_offset 2 60 $<TARGET_FILE:test_warmbuf> bad)
set_tests_properties(badinput.buf_offset PROPERTIES LABELS "mpi;badinput")
# Every benchmark of the registry at 4032 B past a page boundary, validated
# where it has a check (about 15 s on a loaded 2-core machine). MPICH
# 4.0.2's MPI_Gather_init, MPI_Scatter_init and MPI_Allgather_init move
# wrong data at any offset: theirs may fail the check (mpi.pcoll.oracle.n2
# holds them to a plain MPI program).
mbx_mpi_test(mpi.warmbuf.all.n2 2 180 $<TARGET_FILE:test_warmbuf> all
             coll.gather_init,coll.scatter_init,coll.allgather_init)
# The fake back end refuses the same specs (no MPI calls; linked with the
# fake's sources).
add_executable(test_fakespec mpi/test_fakespec.c)
target_compile_definitions(test_fakespec PRIVATE _XOPEN_SOURCE=700)
target_link_libraries(test_fakespec PRIVATE mbx_backend)
add_test(NAME badinput.buf_offset_fake COMMAND test_fakespec)
set_tests_properties(badinput.buf_offset_fake PROPERTIES TIMEOUT 30 LABELS "unit;badinput")
