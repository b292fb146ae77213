# Experimental factors: the TSC timer, the cold-cache flusher, hwloc
# binding and host facts. The local run has no MPI and keeps the unit
# prefix so the sanitizer build checks it for leaks; the MPI runs check the
# job description on 2 ranks, unbound by default and bound with -bind-to.
# Included from tests/mpi/mpi_tests.cmake.
add_executable(test_factors mpi/test_factors.c)
target_link_libraries(test_factors PRIVATE mbx_engine)

add_test(NAME unit.factors_local COMMAND test_factors local)
set_tests_properties(unit.factors_local PROPERTIES TIMEOUT 120 LABELS unit)

mbx_mpi_test(mpi.factors.n2 2 120 $<TARGET_FILE:test_factors> mpi)
add_test(NAME mpi.factors.bound.n2
         COMMAND ${MBX_MPIEXEC} 2 -bind-to core ${MPIEXEC_PREFLAGS} $<TARGET_FILE:test_factors>
                 mpi --expect-bound)
set_tests_properties(mpi.factors.bound.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)
