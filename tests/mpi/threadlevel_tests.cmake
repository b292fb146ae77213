# The MPI thread level (--thread-level, asked with MPI_Init_thread) and the
# thread binding of the threaded benchmarks. Included from
# threads_tests.cmake (mbx_bad_input, mbx_mpi_test, MBX_OUT). The run with
# --thread-level multiple is mpi.pingpong.mt.n2 there.

# More than one thread per rank without MPI_THREAD_MULTIPLE: refused before
# the first point, with the remedy; the default of pingpong.mt is 2 threads;
# the message names the smallest such thread count and the level granted.
mbx_bad_input(mt_needs_multiple 2
  "^mpibex: pingpong\\.mt: 2 threads per rank need MPI_THREAD_MULTIPLE; start with --thread-level multiple \\(the MPI library granted MPI_THREAD_SINGLE\\)$"
  --bench pingpong.mt --param 2 --sizes 8)
mbx_bad_input(mt_default_threads 2
  "pingpong\\.mt: 2 threads per rank need MPI_THREAD_MULTIPLE; start with --thread-level multiple"
  --bench pingpong.mt --sizes 8)
mbx_bad_input(mt_funneled 2
  "pingpong\\.mt: 4 threads per rank need MPI_THREAD_MULTIPLE; start with --thread-level multiple \\(the MPI library granted MPI_THREAD_FUNNELED\\)"
  --bench pingpong.mt --param 1,4 --sizes 8 --thread-level funneled)
foreach(_t mt_needs_multiple mt_default_threads mt_funneled)
  set_tests_properties(badinput.${_t} PROPERTIES
    ENVIRONMENT_MODIFICATION "MPIR_CVAR_DEFAULT_THREAD_LEVEL=unset:")
endforeach()

# A level that does not exist, both forms: badinput.thread_level_bogus and
# badinput.thread_level_bogus_eq (tests/cmd/test_badinput.c).

# The header line and the environment: the default (single), and
# --thread-level=serialized (one thread per rank runs under any level).
add_test(NAME mpi.threadlevel.default.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/threadlevel_check.sh ${MBX_OUT}/tl_default.csv
                 $<TARGET_FILE:csvcheck> "--procs 2 --rows 1 --bench pingpong.mt"
                 --stdout "^# MPI thread level: asked MPI_THREAD_SINGLE, granted MPI_THREAD_[A-Z]+$"
                 --env "^mpi_thread_level_asked,MPI_THREAD_SINGLE$"
                 --env "^mpi_thread_level,MPI_THREAD_[A-Z]+$"
                 -- ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run --bench pingpong.mt
                 --param 1 --sizes 8 --stop fixed:10 -q -o ${MBX_OUT}/tl_default.csv)
set_tests_properties(mpi.threadlevel.default.n2 PROPERTIES TIMEOUT 60 LABELS mpi PROCESSORS 2)
add_test(NAME mpi.threadlevel.serialized.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/threadlevel_check.sh ${MBX_OUT}/tl_ser.csv
                 $<TARGET_FILE:csvcheck> "--procs 2 --rows 1 --bench pingpong.mt"
                 --stdout "^# MPI thread level: asked MPI_THREAD_SERIALIZED, granted MPI_THREAD_(SERIALIZED|MULTIPLE)$"
                 --env "^mpi_thread_level_asked,MPI_THREAD_SERIALIZED$"
                 -- ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run --bench pingpong.mt
                 --param 1 --sizes 8 --stop fixed:10 -q --thread-level=serialized
                 -o ${MBX_OUT}/tl_ser.csv)
set_tests_properties(mpi.threadlevel.serialized.n2 PROPERTIES TIMEOUT 60 LABELS mpi PROCESSORS 2)

# A thread that cannot be bound (test hook: every worker's bind fails): one
# warning on stderr, the point still measured, the failure in the
# environment file.
add_test(NAME mpi.threadlevel.bindfail.n1
         COMMAND ${CMAKE_COMMAND} -E env MBX_TEST_BIND_FAIL=1
                 bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/threadlevel_check.sh ${MBX_OUT}/tl_bind.csv
                 $<TARGET_FILE:csvcheck> "--procs 1 --rows 1 --bench threads.mutex"
                 --stderr "^mpibex: warning: threads\\.mutex threads=2: threads could not be bound on rank 0 \\(2 threads: t0 PU[0-9]+, t1 PU[0-9]+ \\(failed\\)"
                 --env "^rank\\.0\\.threads_binding,\"2 threads: t0 PU[0-9]+, t1 PU[0-9]+ \\(failed\\)"
                 --env "^threads_bind_failed,[1-9][0-9]*$"
                 --env "^threads_bind_failed_ranks,0$"
                 --env "^rank\\.0\\.threads_bind_failure,"
                 -- ${MBX_MPIEXEC} 1 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run --bench threads.mutex
                 --param 2 --nmax 50 -q -o ${MBX_OUT}/tl_bind.csv)
set_tests_properties(mpi.threadlevel.bindfail.n1 PROPERTIES TIMEOUT 60 LABELS mpi PROCESSORS 1)

# The explorer through the launcher and tmux: the status line says to start
# with --thread-level multiple; with it, the point runs and the export
# records the levels and the binding.
add_test(NAME e2e.threadlevel
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/threadlevel_e2e.sh $<TARGET_FILE:mpibex>
                 ${CMAKE_CURRENT_BINARY_DIR}/e2e-threadlevel)
set_tests_properties(e2e.threadlevel PROPERTIES TIMEOUT 180 LABELS e2e)
