# MPI tests: the real binary under mpiexec on 1, 2 and 4 ranks. These
# machines have 2 cores and busy-polling ranks, so 4-rank tests stay small
# and every test has a TIMEOUT.
add_executable(csvcheck mpi/csvcheck.c mpi/csvcheck_row.c)
target_link_libraries(csvcheck PRIVATE mbx_core)

add_executable(test_cmdloop mpi/test_cmdloop.c)
target_include_directories(test_cmdloop PRIVATE ${CMAKE_SOURCE_DIR}/engine/mpi)
target_link_libraries(test_cmdloop PRIVATE mbx_engine)

set(MBX_MPIEXEC ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG})
set(MBX_OUT ${CMAKE_CURRENT_BINARY_DIR}/out)
file(MAKE_DIRECTORY ${MBX_OUT})
set(MBX_SAMPLES ${CMAKE_SOURCE_DIR}/samples)
set(MBX_ALL_BENCH
    pingpong.send_recv,pingpong.ssend_recv,pingpong.isend_recv,coll.barrier,coll.bcast,coll.reduce,coll.allreduce,coll.alltoall,coll.allgather)

function(mbx_mpi_test name nprocs timeout)
  add_test(NAME ${name} COMMAND ${MBX_MPIEXEC} ${nprocs} ${MPIEXEC_PREFLAGS} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} LABELS mpi PROCESSORS ${nprocs})
endfunction()

# Run a command, then check its CSV with csvcheck (one test, so the check
# never reads a stale file).
function(mbx_run_and_check name nprocs timeout csv)
  cmake_parse_arguments(A "" "" "RUN;CHECK" ${ARGN})
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -E env bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/run_and_check.sh
                   ${csv} $<TARGET_FILE:csvcheck> "${A_CHECK}" --
                   ${MBX_MPIEXEC} ${nprocs} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> ${A_RUN})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} LABELS mpi PROCESSORS ${nprocs})
endfunction()

# The --validate twins of benchmark FAMILY.MEMBER (mbx_run_and_check, CSVs
# ${MBX_OUT}/val_FAMILY_MEMBER{2,4}.csv, csvcheck also with COLS):
# mpi.validate.FAMILY.MEMBER.n2 at 1, 1K and 64K (past the eager limit, so
# rendezvous messages too), --nmax 50, 120 s; mpi.validate.FAMILY.MEMBER.n4
# at the sizes N4_SIZES (two of them), --stop fixed:10, 180 s: kept small
# for 2 cores, where 4 busy-polling ranks wait out scheduler slices.
function(mbx_validate_twins family member n4_sizes cols)
  set(_b ${family}.${member})
  set(_csv ${MBX_OUT}/val_${family}_${member})
  mbx_run_and_check(mpi.validate.${_b}.n2 2 120 ${_csv}2.csv
    RUN run --bench ${_b} --sizes 1,1K,64K --nmax 50 --validate --span 0 -q -o ${_csv}2.csv
    CHECK "--procs 2 --rows 3 --bench ${_b} ${cols}")
  mbx_run_and_check(mpi.validate.${_b}.n4 4 180 ${_csv}4.csv
    RUN run --bench ${_b} --sizes ${n4_sizes} --stop fixed:10 --validate --span 0 -q -o ${_csv}4.csv
    CHECK "--procs 4 --rows 2 --bench ${_b} ${cols}")
endfunction()

mbx_mpi_test(mpi.cmdloop.n2 2 120 $<TARGET_FILE:test_cmdloop>)
mbx_mpi_test(mpi.cmdloop.n4 4 240 $<TARGET_FILE:test_cmdloop>)
# rma.* round trips of a point's parameters: the data check needs UCX's
# registration cache off on MPICH 4.0 (tests/mpi/validate_rma.cmake).
set_tests_properties(mpi.cmdloop.n2 mpi.cmdloop.n4 PROPERTIES ENVIRONMENT UCX_RCACHE_ENABLE=n)

# MBX_E_MPI's message: "<MPI call>: <MPI_Error_string's text>" (the engine's
# private helper, engine/mpi/mpierr.h), one rank.
add_executable(test_mpierr mpi/test_mpierr.c)
target_include_directories(test_mpierr PRIVATE ${CMAKE_SOURCE_DIR}/engine/mpi)
target_link_libraries(test_mpierr PRIVATE mbx_backend)
mbx_mpi_test(mpi.mpierr.n1 1 60 $<TARGET_FILE:test_mpierr>)

mbx_run_and_check(mpi.quick.n2 2 120 ${MBX_OUT}/quick2.csv
  RUN run ${MBX_SAMPLES}/quick.ini -o ${MBX_OUT}/quick2.csv --raw
  CHECK "--env ${MBX_OUT}/quick2.env.csv --obs ${MBX_OUT}/quick2.obs.csv --procs 2 --bench pingpong.send_recv --bench coll.allreduce --rows 31 --sorted yes")
# On 2 cores, 4 busy-polling ranks make each collective wait out scheduler
# slices (about 8 ms), and points there rarely settle, so the 4-rank runs
# take two passes of 4 to 8 observations a point (as mpi.window.hca.n4): what
# they check is that every point of the plan completes on 4 ranks with
# whole rows and sidecars, not its precision (with passes up to 5 of up to
# 24 observations the quick plan was the longest run of the suite).
mbx_run_and_check(mpi.quick.n4 4 240 ${MBX_OUT}/quick4.csv
  RUN run ${MBX_SAMPLES}/quick.ini --nmin 4 --nmax 8 --passes 2 --max-passes 2 -q
      -o ${MBX_OUT}/quick4.csv
  CHECK "--procs 4 --rows 31 --env ${MBX_OUT}/quick4.env.csv")
mbx_run_and_check(mpi.pingpong.n2 2 120 ${MBX_OUT}/pingpong2.csv
  RUN run ${MBX_SAMPLES}/pingpong.ini -q -o ${MBX_OUT}/pingpong2.csv
  CHECK "--procs 2 --rows 23 --bench pingpong.send_recv")
mbx_run_and_check(mpi.pingpong.n4 4 120 ${MBX_OUT}/pingpong4.csv
  RUN run ${MBX_SAMPLES}/pingpong.ini --nmin 4 --nmax 8 --passes 2 --max-passes 2 -q
      -o ${MBX_OUT}/pingpong4.csv
  CHECK "--procs 4 --rows 23 --bench pingpong.send_recv")
mbx_run_and_check(mpi.embedded.n2 2 120 ${MBX_OUT}/embedded2.csv
  RUN run -o ${MBX_OUT}/embedded2.csv
  CHECK "--rows 31 --env ${MBX_OUT}/embedded2.env.csv")
mbx_run_and_check(mpi.allbench.n2 2 180 ${MBX_OUT}/all2.csv
  RUN run --bench ${MBX_ALL_BENCH} --sizes 1:4K:16 --stop stderr:5% --nmax 300 -o ${MBX_OUT}/all2.csv
  CHECK "--procs 2 --bench coll.barrier --bench coll.alltoall --bench coll.allgather --bench coll.reduce --bench pingpong.ssend_recv --bench coll.bcast --bench pingpong.isend_recv --rows 33")
mbx_run_and_check(mpi.allbench.n4 4 240 ${MBX_OUT}/all4.csv
  RUN run --bench ${MBX_ALL_BENCH} --sizes 8:1K:128 --stop stderr:10% --nmin 8 --nmax 64 -o ${MBX_OUT}/all4.csv
  CHECK "--procs 4 --bench coll.barrier --bench coll.alltoall --bench pingpong.send_recv --rows 17")
mbx_run_and_check(mpi.rules.n2 2 120 ${MBX_OUT}/rules.csv
  RUN run ${CMAKE_CURRENT_SOURCE_DIR}/mpi/rules.ini -o ${MBX_OUT}/rules.csv --timer wtime
  CHECK "--rows 8")

add_test(NAME mpi.interrupt.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/interrupt.sh ${MPIEXEC_EXECUTABLE}
                 ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_OUT})
set_tests_properties(mpi.interrupt.n2 PROPERTIES TIMEOUT 60 LABELS mpi PROCESSORS 2)

mbx_mpi_test(mpi.idle.n2 2 60 $<TARGET_FILE:mpibex> idle 0.5)
set_tests_properties(mpi.idle.n2 PROPERTIES PASS_REGULAR_EXPRESSION "worst waiting rank: [0-9.]+ % of a core")

# Command line without MPI.
add_test(NAME cli.version COMMAND mpibex --version)
set_tests_properties(cli.version PROPERTIES PASS_REGULAR_EXPRESSION "^mpibex [0-9]+\\.[0-9]+\\.[0-9]+")
add_test(NAME cli.help COMMAND mpibex --help)
set_tests_properties(cli.help PROPERTIES PASS_REGULAR_EXPRESSION "mpibex run")
add_test(NAME cli.list COMMAND mpibex list)
set_tests_properties(cli.list PROPERTIES PASS_REGULAR_EXPRESSION "coll\\.allgather.*")
add_test(NAME cli.no_command COMMAND mpibex)
set_tests_properties(cli.no_command PROPERTIES WILL_FAIL TRUE)

# Bad input: exit 2, the message names the field, no file left behind.
function(mbx_bad_input name nprocs regex)
  add_test(NAME badinput.${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh "${regex}"
                   ${MBX_OUT}/bad_${name}.csv --
                   ${MBX_MPIEXEC} ${nprocs} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run ${ARGN}
                   -o ${MBX_OUT}/bad_${name}.csv)
  set_tests_properties(badinput.${name} PROPERTIES TIMEOUT 60 LABELS "mpi;badinput" PROCESSORS ${nprocs})
endfunction()

# Bad input of the command line is tested in process (tests/cmd/test_badinput.c);
# two cases stay under mpiexec: every rank agrees and the process exits 2.
mbx_bad_input(unknown_bench 2 "bench: unknown benchmark 'coll.nope'" --bench coll.nope)
mbx_bad_input(unknown_plan_key 2 "bad_key.ini:[0-9]+: .*unknown key" ${CMAKE_CURRENT_SOURCE_DIR}/mpi/bad_key.ini)


# Under MPI with no terminal at all, `mpibex` says why the explorer cannot
# start and measures the built-in quick plan in batch mode instead.
add_test(NAME mpi.notty.n2
         COMMAND bash -c "${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:mpibex> </dev/null 2>&1 | cat")
set_tests_properties(mpi.notty.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2
  PASS_REGULAR_EXPRESSION "rank 0 has no terminal, so the explorer cannot start.*done: 31 points")
# Every --validate run in these files also says --span 0: they check what
# arrived, not the passes' schedule, and the default 1 s a point's passes
# must span was 90 % of such a test's time (3.7 s against 0.2 s for four
# ping-pong sizes on 2 ranks).
include(mpi/validate_pp_simple.cmake)
include(mpi/validate_mw.cmake)
include(mpi/validate_bw.cmake)
include(mpi/validate_rma.cmake)
# merge and report of two real runs each (the scripts are in tests/cmd).
set(MBX_MERGE_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/cmd/merge_check.sh)
set(MBX_REPORT_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/cmd/report_check.sh)
# Two real runs (MPI), then the merge (no MPI).
add_test(NAME merge.real.n2
         COMMAND bash ${MBX_MERGE_CHECK} real $<TARGET_FILE:mpibex> ${MBX_OUT}/merge_real --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS})
set_tests_properties(merge.real.n2 PROPERTIES TIMEOUT 120 LABELS "mpi;merge" PROCESSORS 2)
# Two real runs with raw observations, then the report (no MPI).
add_test(NAME report.real.n2
         COMMAND bash ${MBX_REPORT_CHECK} real $<TARGET_FILE:mpibex> ${MBX_OUT}/report_real --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS})
set_tests_properties(report.real.n2 PROPERTIES TIMEOUT 180 LABELS "mpi;report" PROCESSORS 2)
include(mpi/repeat_tests.cmake)
include(mpi/validate_coll.cmake)
include(mpi/validate_pcoll.cmake)
include(mpi/validate_neigh.cmake)
include(mpi/validate_part.cmake)
include(mpi/validate_mock.cmake)
include(mpi/pairs_tests.cmake)
include(mpi/fanout_tests.cmake)
include(mpi/overlap_tests.cmake)
include(mpi/beffio_tests.cmake)
include(mpi/beff_tests.cmake)
include(mpi/factors_tests.cmake)
include(mpi/clocksync_tests.cmake)
include(mpi/repro_tests.cmake)
include(mpi/omp_tests.cmake)

# Crash resume: SIGKILL of rank 0 mid-point, then --resume (grid, with
# refinement, and of a file with the 40 columns of an earlier version).
foreach(_mode grid refine old)
  add_test(NAME mpi.resume.${_mode}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/resume.sh ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG}
                   $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_OUT} ${_mode})
  set_tests_properties(mpi.resume.${_mode} PROPERTIES TIMEOUT 180 LABELS mpi PROCESSORS 2)
endforeach()

# Process-count sweeps, refinement over P, the pair scan (4 ranks, tiny).
add_test(NAME mpi.sweep.n4
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/sweep.sh ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG}
                 $<TARGET_FILE:mpibex> ${MBX_OUT})
set_tests_properties(mpi.sweep.n4 PROPERTIES TIMEOUT 240 LABELS mpi PROCESSORS 4)
# The benchmark parameter as an axis: ranges, curves over threads (2 ranks).
add_test(NAME mpi.param_axis.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/param_axis.sh ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG}
                 $<TARGET_FILE:mpibex> ${MBX_OUT})
set_tests_properties(mpi.param_axis.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)
include(mpi/threads_tests.cmake)
include(mpi/fault_tests.cmake)
include(mpi/scale_tests.cmake)
include(mpi/unlink_dirs_tests.cmake)
include(mpi/output_claim_tests.cmake)
include(mpi/numbers_tests.cmake)
include(mpi/output_paths_tests.cmake)
include(mpi/window_sync_tests.cmake)
include(mpi/warmbuf_tests.cmake)
