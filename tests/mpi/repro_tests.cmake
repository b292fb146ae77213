# Reproducibility, the measuring side: window sync on a global clock, cold cache, the
# shuffled order and the machine-state monitor, on the real binary.

# Window sync, Jones-Koenig clock, 2 ranks: ping-pong, a collective and
# master-worker all start their observations at window starts.
mbx_run_and_check(mpi.window.jk.n2 2 120 ${MBX_OUT}/window_jk.csv
  RUN run --bench pingpong.send_recv,coll.allreduce,mw.send --sizes 1:64K:16 --sync window
      --nmax 200 -q -o ${MBX_OUT}/window_jk.csv
  CHECK "--rows 15 --col sync=window --col clock_sync=jk --col cache=warm")
# Hierarchical clock on 4 ranks (small: 4 ranks share 2 cores). Two passes of 4-8:
# windows on 4 oversubscribed ranks never settle (about 7 ms a 1-byte
# bcast), and the default rule then ran 15 passes, 30 to 90 s (now about 8 s).
mbx_run_and_check(mpi.window.hca.n4 4 240 ${MBX_OUT}/window_hca.csv
  RUN run --bench coll.bcast,coll.barrier --sizes 1,1K --sync window --clock-sync hca
      --nmin 4 --nmax 8 --passes 2 --max-passes 2 -q -o ${MBX_OUT}/window_hca.csv
  CHECK "--procs 4 --rows 3 --col sync=window --col clock_sync=hca")
# Windows of 1 us cannot hold a 64 KiB allreduce: every observation
# overruns, none is used, and the point says INVALID with no numbers.
mbx_run_and_check(mpi.window.invalid.n2 2 120 ${MBX_OUT}/window_invalid.csv
  RUN run --bench coll.allreduce --sizes 64K --sync window --window 1e-6 --nmax 20 -q
      -o ${MBX_OUT}/window_invalid.csv
  CHECK "--rows 1 --col status=INVALID --col n=0")
# Cold cache: the mode is in every row.
mbx_run_and_check(mpi.cache.cold.n2 2 120 ${MBX_OUT}/cache_cold.csv
  RUN run --bench pingpong.send_recv,coll.bcast --sizes 1K,64K --cache cold:8MiB --stop fixed:30 -q
      -o ${MBX_OUT}/cache_cold.csv
  CHECK "--rows 4 --col cache=cold --col sync=barrier")
# The monitor on one rank: nothing to ping, so no probe values.
mbx_run_and_check(mpi.monitor.n1 1 60 ${MBX_OUT}/monitor1.csv
  RUN run --bench simple.wtime -q -o ${MBX_OUT}/monitor1.csv
  CHECK "--rows 1 --col probe_us= --col probe_after_us=")
# The probe reads 1 us, then 3 us from half a second after its first reading
# (test hook, fixed values):
# every point's passes (over 3 s: enough probes to tell a level) straddle
# the probe's two levels, but the points' own times do not follow them, so
# no row reports a level split (a shift nobody can see in the point is
# not its shift: docs/algorithms.md, "Between-pass error").
mbx_run_and_check(mpi.monitor.shifted.n2 2 120 ${MBX_OUT}/monitor_shift.csv
  RUN run --bench pingpong.send_recv --sizes 1,1K --span 3 -q -o ${MBX_OUT}/monitor_shift.csv
  CHECK "--rows 2 --col levels=1 --col remeasured=0")
set_tests_properties(mpi.monitor.shifted.n2 PROPERTIES ENVIRONMENT MBX_TEST_PROBE_SHIFT=1)

# Order: one seed, one order; another seed, another; --order plan, the
# plan's; the probe sidecar and the monitor's keys in the environment.
add_test(NAME mpi.order.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/order.sh ${MPIEXEC_EXECUTABLE}
                 ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> ${MBX_OUT}/order)
set_tests_properties(mpi.order.n2 PROPERTIES TIMEOUT 180 LABELS mpi PROCESSORS 2)

# The last-level cache's size from hwloc (one small point: on a VM that
# reports the host's whole L3 a flush is slow).
mbx_run_and_check(mpi.cache.llc.n2 2 120 ${MBX_OUT}/cache_llc.csv
  RUN run --bench coll.barrier --cache cold --stop fixed:5 --settle 0 -q -o ${MBX_OUT}/cache_llc.csv
  CHECK "--rows 1 --col cache=cold")
# A timer the CPU cannot give (test hook: the TSC reported unusable) is bad
# input with the reason, not a failed run: badinput.timer_tsc_refused, in
# process with the options' other bad values (tests/cmd/test_badinput.c).
