# --validate for the mock-ups of the guidelines (mock.*): each rank's result
# must be the mocked collective's. 4 and 12 bytes split unevenly over 2 and
# 4 ranks (the _v forms), 1K and 64K evenly; the 4-rank run roots at 2.
# Included from mpi_tests.cmake (mbx_run_and_check, MBX_OUT, MBX_MPIEXEC).
mbx_run_and_check(mpi.validate.mock.n2 2 120 ${MBX_OUT}/val_mock2.csv
  RUN run --bench mock.* --sizes 4,12,1K,64K --nmax 50 --validate --span 0 -q
      -o ${MBX_OUT}/val_mock2.csv
  CHECK "--procs 2 --rows 24 --col validated=yes")
mbx_run_and_check(mpi.validate.mock.n4 4 180 ${MBX_OUT}/val_mock4.csv
  RUN run --bench mock.* --sizes 12,4K --stop fixed:5 --validate --span 0 -q --root 2
      -o ${MBX_OUT}/val_mock4.csv
  CHECK "--procs 4 --rows 12 --col validated=yes")
add_test(NAME mpi.validate.mock.corrupt.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_validate_fail.sh --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run
                 --bench mock.rsb_allgather --sizes 12 --nmax 20 --validate --span 0 -q)
set_tests_properties(mpi.validate.mock.corrupt.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)
