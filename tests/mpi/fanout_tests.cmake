# Accurate fan-out latency (coll.bcast_accurate, coll.scatter_accurate;
# engine/mpi/bench/bench_fanout.c): the root times each receiver's acknowledgement
# and subtracts its latency. Included from mpi_tests.cmake (mbx_run_and_check,
# MBX_OUT, MBX_MPIEXEC). On 2 cores, 4 ranks wait out scheduler slices in
# every sweep, so the 4-rank runs stay tiny.
set(MBX_FANOUT coll.bcast_accurate,coll.scatter_accurate)
# Every accurate row carries its plain companion's median (plain_us > 0);
# every other row leaves plain_us empty.
set(MBX_PLAIN "--plain coll.bcast_accurate --plain coll.scatter_accurate")

# Next to the plain barrier-synchronized broadcast: one row per size each.
mbx_run_and_check(mpi.fanout.n2 2 120 ${MBX_OUT}/fanout2.csv
  RUN run --bench coll.bcast,${MBX_FANOUT} --sizes 1,1K,64K -q -o ${MBX_OUT}/fanout2.csv
  CHECK "--procs 2 --bench coll.bcast --bench coll.bcast_accurate --bench coll.scatter_accurate --rows 9 --col root=0 ${MBX_PLAIN}")
mbx_run_and_check(mpi.fanout.timing.n2 2 120 ${MBX_OUT}/fanout2t.csv
  RUN run --bench ${MBX_FANOUT} --sizes 1K -q -o ${MBX_OUT}/fanout2t.csv
  CHECK "--procs 2 --rows 2 --col root=0 --col timing=max_over_receivers --col op= ${MBX_PLAIN}")
# On 4 ranks one accurate observation waits out scheduler slices for every
# receiver's acknowledgement (15 to 25 ms here): one size, as the 2-rank
# runs cover the sizes (77 s with two sizes on a loaded machine).
mbx_run_and_check(mpi.fanout.n4 4 240 ${MBX_OUT}/fanout4.csv
  RUN run --bench coll.bcast,${MBX_FANOUT} --sizes 1K --nmin 8 --nmax 24 -q -o ${MBX_OUT}/fanout4.csv
  CHECK "--procs 4 --bench coll.bcast --bench coll.bcast_accurate --bench coll.scatter_accurate --rows 3 --col root=0 ${MBX_PLAIN}")
# The plain companion is taken with the point's sync method: window sync.
mbx_run_and_check(mpi.fanout.window.n2 2 120 ${MBX_OUT}/fanout_win2.csv
  RUN run --bench ${MBX_FANOUT} --sizes 1K --sync window --stop fixed:40 -q -o ${MBX_OUT}/fanout_win2.csv
  CHECK "--procs 2 --rows 2 --col sync=window ${MBX_PLAIN}")

# --validate with the root taken from the command line.
mbx_run_and_check(mpi.fanout.validate.n2 2 120 ${MBX_OUT}/fanout_val2.csv
  RUN run --bench ${MBX_FANOUT} --sizes 1,1K,64K --validate --span 0 --root 1 -q -o ${MBX_OUT}/fanout_val2.csv
  CHECK "--procs 2 --rows 6 --col root=1 --col validated=yes ${MBX_PLAIN}")
mbx_run_and_check(mpi.fanout.validate.n4 4 240 ${MBX_OUT}/fanout_val4.csv
  RUN run --bench ${MBX_FANOUT} --sizes 1K --nmin 8 --nmax 24 --validate --span 0 --root 2 -q
      -o ${MBX_OUT}/fanout_val4.csv
  CHECK "--procs 4 --rows 2 --col root=2 --col validated=yes ${MBX_PLAIN}")
add_test(NAME mpi.fanout.corrupt.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_validate_fail.sh --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run
                 --bench ${MBX_FANOUT} --sizes 64 --nmax 20 --validate --span 0 -q)
set_tests_properties(mpi.fanout.corrupt.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)

# Anomalous correction: the hook MBX_TEST_ACK_INFLATE=1 adds 1 s to every
# acknowledgement latency, so every sweep's correction exceeds what was
# measured; every point must be UNRELIABLE, while the plain companion
# (untouched by the hook) still gives its median.
add_test(NAME mpi.fanout.unreliable.n2
         COMMAND ${CMAKE_COMMAND} -E env MBX_TEST_ACK_INFLATE=1
                 bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/run_and_check.sh ${MBX_OUT}/fanout_unrel.csv
                 $<TARGET_FILE:csvcheck> "--procs 2 --rows 2 --col status=UNRELIABLE ${MBX_PLAIN}" --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run
                 --bench ${MBX_FANOUT} --sizes 1K --nmax 50 -q -o ${MBX_OUT}/fanout_unrel.csv)
set_tests_properties(mpi.fanout.unreliable.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)

# One rank has no receiver: a one-line error and exit 2
# (badinput.fanout_one_rank, tests/cmd/test_badinput.c).
