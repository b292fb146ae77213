# OpenMP constructs (omp.*), only when the build has OpenMP (the registry
# has no omp table otherwise). Each benchmark at 2 and 4 threads (--param
# 2,4: one row per thread count), with --validate: every construct is
# checked after its timed loop (each thread ran the region, each loop
# iteration ran once, no thread passed a barrier early, the reduction summed
# the team, critical/lock/atomic lost no update). One rank, and two ranks
# where rank 1 sits the point out (procs 1). Kept small: 4 threads on 2
# cores wait out scheduler slices. Included from mpi_tests.cmake.
if(OpenMP_C_FOUND)
  set(MBX_OMP_BENCH parallel for_static for_dynamic barrier critical atomic reduction lock)
  set(MBX_OMP_COLS "--col param_name=threads --col timing=per_call --col validated=yes")
  foreach(b IN LISTS MBX_OMP_BENCH)
    foreach(n 1 2)
      mbx_run_and_check(mpi.omp.${b}.n${n} ${n} 120 ${MBX_OUT}/omp_${b}${n}.csv
        RUN run --bench omp.${b} --param 2,4 --nmax 30 --validate --span 0 -q -o ${MBX_OUT}/omp_${b}${n}.csv
        CHECK "--procs 1 --rows 2 --bench omp.${b} ${MBX_OMP_COLS}")
    endforeach()
  endforeach()
  # An observation planned far longer than it runs (the test hook plans
  # 100000 times the sizing, as when other processes fill the cores after
  # set-up: 100 s an observation) ends early, and the run goes on with
  # every construct checked; without the early end the watchdog calls the
  # first point HUNG (exit 3).
  mbx_run_and_check(mpi.omp.late_observation.n1 1 120 ${MBX_OUT}/omp_late.csv
    RUN run --bench omp.* --param 2 --stop fixed:10 --validate --span 0 -q -o ${MBX_OUT}/omp_late.csv
    CHECK "--procs 1 --rows 8 ${MBX_OMP_COLS}")
  set_tests_properties(mpi.omp.late_observation.n1 PROPERTIES ENVIRONMENT MBX_TEST_OMP_SLOWDOWN=100000)
  # The OpenMP settings and OMP_* variables are in the environment capture.
  add_test(NAME mpi.omp.envcap.n1
           COMMAND ${CMAKE_COMMAND} -E env OMP_PROC_BIND=close OMP_WAIT_POLICY=active
                   bash -c "$0 \"$@\" && grep -q '^env.OMP_PROC_BIND,close$' ${MBX_OUT}/omp_env.env.csv && grep -q '^env.OMP_WAIT_POLICY,active$' ${MBX_OUT}/omp_env.env.csv && grep -q '^omp_proc_bind,close$' ${MBX_OUT}/omp_env.env.csv && grep -q '^omp_max_threads,[0-9]' ${MBX_OUT}/omp_env.env.csv"
                   ${MBX_MPIEXEC} 1 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run --bench omp.parallel
                   --param 1 --nmax 20 -q -o ${MBX_OUT}/omp_env.csv --force)
  set_tests_properties(mpi.omp.envcap.n1 PROPERTIES TIMEOUT 60 LABELS mpi PROCESSORS 1)
  # More threads than the benchmark allows: a one-line error, exit 2.
  mbx_bad_input(omp_threads 1 "param: omp.lock takes threads in 1\\.\\.256 \\(got 300\\)"
    --bench omp.lock --param 2,300)
endif()
