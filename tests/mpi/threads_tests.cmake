# Pthreads benchmarks (threads.*) and the threaded ping-pong (pingpong.mt).
# Included from mpi_tests.cmake (mbx_run_and_check, mbx_mpi_test, MBX_OUT).
# The machines have 2 cores: at most 4 threads, few observations, and
# --validate checks what the threads did (counters, ring passes, barrier
# arrivals, created threads, per-thread messages), never times.
set(MBX_THR_ALL
    threads.create_join,threads.mutex,threads.mutex_contended,threads.cond,threads.barrier)
set(MBX_THR_COLS "--col param_name=threads --col timing=max_over_threads --col validated=yes")

# One rank: every threads.* benchmark at 1, 2 and 4 threads.
mbx_run_and_check(mpi.threads.all.n1 1 120 ${MBX_OUT}/threads1.csv
  RUN run --bench ${MBX_THR_ALL} --param 1,2,4 --nmax 200 --validate --span 0 -q
      -o ${MBX_OUT}/threads1.csv
  CHECK "--procs 1 --rows 15 ${MBX_THR_COLS} --env ${MBX_OUT}/threads1.env.csv")

# Two ranks: the threads run on rank 0, rank 1 sits the points out.
mbx_run_and_check(mpi.threads.mutex_barrier.n2 2 120 ${MBX_OUT}/threads2.csv
  RUN run --bench threads.mutex,threads.barrier --param 2,4 --nmax 200 --validate --span 0 -q
      -o ${MBX_OUT}/threads2.csv
  CHECK "--rows 4 --bench threads.mutex --bench threads.barrier ${MBX_THR_COLS}")

# pingpong.mt with 1 and 2 threads per rank, MPI_THREAD_MULTIPLE asked with
# --thread-level (no MPICH variable: MPIR_CVAR_DEFAULT_THREAD_LEVEL is
# unset). With 2 threads per rank on 2 cores the threads wait out scheduler
# slices (about 5 ms a round trip), hence fixed:10. The header line and the
# environment file name the levels and each rank's thread binding. Without
# the option: tests/mpi/threadlevel_tests.cmake.
add_test(NAME mpi.pingpong.mt.n2
         COMMAND ${CMAKE_COMMAND} -E env --unset=MPIR_CVAR_DEFAULT_THREAD_LEVEL
                 bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/threadlevel_check.sh ${MBX_OUT}/pp_mt2.csv
                 $<TARGET_FILE:csvcheck>
                 "--procs 2 --rows 4 --bench pingpong.mt --col param_name=threads --col timing=half_round_trip --col validated=yes --env ${MBX_OUT}/pp_mt2.env.csv"
                 --stdout "^# MPI thread level: asked MPI_THREAD_MULTIPLE, granted MPI_THREAD_MULTIPLE$"
                 --env "^mpi_thread_level_asked,MPI_THREAD_MULTIPLE$"
                 --env "^mpi_thread_level,MPI_THREAD_MULTIPLE$"
                 --env "^threads_binding,"
                 --env "^rank\\.0\\.threads_binding,\"?[12] threads?: t0 PU[0-9]"
                 --env "^rank\\.1\\.threads_binding,\"?[12] threads?: t0 PU[0-9]"
                 --env "^threads_bind_failed,[0-9]+$"
                 -- ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run --bench pingpong.mt
                 --param 1,2 --sizes 8,4K --stop fixed:10 --validate --span 0 -q --thread-level multiple
                 -o ${MBX_OUT}/pp_mt2.csv)
set_tests_properties(mpi.pingpong.mt.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)

# Four ranks: threads on rank 0 with three bystanders, and pingpong.mt
# between rank 0 and the scanned far rank at 1 and 2 threads per rank
# (tiny: 8 spinning threads on 2 cores wait out scheduler slices).
mbx_run_and_check(mpi.threads.n4 4 240 ${MBX_OUT}/threads4.csv
  RUN run --bench threads.barrier,pingpong.mt --param 1,2 --sizes 8 --stop fixed:5 --validate --span 0
      -q --thread-level multiple -o ${MBX_OUT}/threads4.csv
  CHECK "--rows 4 --bench threads.barrier --bench pingpong.mt --col param_name=threads --col validated=yes")

include(mpi/threadlevel_tests.cmake)
