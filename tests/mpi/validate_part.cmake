# Partitioned point-to-point (part.send_recv, part.mt), where the MPI has it
# (MBX_HAVE_MPI_PART): --validate with 1 and 8 partitions on 2 ranks
# (every row with setup_us and the set-up figures, csvcheck's part rule),
# on 4 ranks with a pair that leaves rank 0 out (the figures reach rank 0
# by a reduction), and a check that can fail. The watchdog's case is
# fault.hung_part (fault_tests.cmake). Included from mpi_tests.cmake.
if(MBX_HAVE_MPI_PART)
  mbx_run_and_check(mpi.validate.part.n2 2 120 ${MBX_OUT}/val_part2.csv
    RUN run --bench part.send_recv --param 1,8 --sizes 1,1K,64K --nmax 50 --validate --span 0 -q
        -o ${MBX_OUT}/val_part2.csv
    CHECK "--procs 2 --rows 6 --col validated=yes --col param_name=partitions --setup ALL")
  mbx_run_and_check(mpi.validate.part.n4 4 180 ${MBX_OUT}/val_part4.csv
    RUN run --bench part.send_recv --param 1,8 --pair 1,3 --sizes 4K --stop fixed:10 --validate
        --span 0 -q -o ${MBX_OUT}/val_part4.csv
    CHECK "--procs 4 --rows 2 --col validated=yes --col ranks=1,3 --setup ALL")
  # part.mt: 1 thread under the default level, 2 under MPI_THREAD_MULTIPLE
  # (the threads write and ready their partitions at once), on 2 ranks and
  # on 4 with a pair that leaves rank 0 out; no set-up figures (csvcheck's
  # part rule wants them empty).
  mbx_run_and_check(mpi.validate.partmt.n2 2 120 ${MBX_OUT}/val_partmt2.csv
    RUN run --bench part.mt --param 1,2 --sizes 1,1K,64K --nmax 50 --validate --span 0 -q
        --thread-level multiple -o ${MBX_OUT}/val_partmt2.csv
    CHECK "--procs 2 --rows 6 --col validated=yes --col param_name=threads --setup ALL")
  mbx_run_and_check(mpi.validate.partmt.n4 4 180 ${MBX_OUT}/val_partmt4.csv
    RUN run --bench part.mt --param 2 --pair 1,3 --sizes 4K --stop fixed:10 --validate
        --span 0 -q --thread-level multiple -o ${MBX_OUT}/val_partmt4.csv
    CHECK "--procs 4 --rows 1 --col validated=yes --col ranks=1,3 --setup ALL")
  mbx_bad_input(partmt_needs_multiple 2
    "^mpibex: part\\.mt: 2 threads per rank need MPI_THREAD_MULTIPLE; start with --thread-level multiple \\(the MPI library granted MPI_THREAD_SINGLE\\)$"
    --bench part.mt --sizes 8)
  set_tests_properties(badinput.partmt_needs_multiple PROPERTIES
    ENVIRONMENT_MODIFICATION "MPIR_CVAR_DEFAULT_THREAD_LEVEL=unset:")
  add_test(NAME mpi.validate.partmt.corrupt.n2
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_validate_fail.sh --
                   ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run
                   --bench part.mt --param 2 --thread-level multiple --sizes 64 --nmax 20
                   --validate --span 0 -q)
  set_tests_properties(mpi.validate.partmt.corrupt.n2 PROPERTIES TIMEOUT 120 LABELS mpi
                       PROCESSORS 2)
  add_test(NAME mpi.validate.part.corrupt.n2
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_validate_fail.sh --
                   ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run
                   --bench part.send_recv --sizes 64 --nmax 20 --validate --span 0 -q)
  set_tests_properties(mpi.validate.part.corrupt.n2 PROPERTIES TIMEOUT 120 LABELS mpi
                       PROCESSORS 2)
endif()
