# Issue 6's measuring side: window sync on a global clock, cold cache, the
# shuffled order and the machine-state monitor, on the real binary.

# Window sync, Jones-Koenig clock, 2 ranks: ping-pong, a collective and
# master-worker all start their observations at window starts.
mbx_run_and_check(mpi.window.jk.n2 2 120 ${MBX_OUT}/window_jk.csv
  RUN run --bench pingpong.send_recv,coll.allreduce,mw.send --sizes 1:64K:16 --sync window
      --nmax 200 -q -o ${MBX_OUT}/window_jk.csv
  CHECK "--rows 15 --col sync=window --col clock_sync=jk --col cache=warm")
# Hierarchical clock on 4 ranks (small: 4 ranks share 2 cores).
mbx_run_and_check(mpi.window.hca.n4 4 240 ${MBX_OUT}/window_hca.csv
  RUN run --bench coll.bcast,coll.barrier --sizes 1,1K --sync window --clock-sync hca
      --nmin 8 --nmax 24 -q -o ${MBX_OUT}/window_hca.csv
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
# the two levels, and its row says so.
mbx_run_and_check(mpi.monitor.shifted.n2 2 120 ${MBX_OUT}/monitor_shift.csv
  RUN run --bench pingpong.send_recv --sizes 1,1K --span 3 -q -o ${MBX_OUT}/monitor_shift.csv
  CHECK "--rows 2 --col levels=2 --col status=SHIFTED --col remeasured=0")
set_tests_properties(mpi.monitor.shifted.n2 PROPERTIES ENVIRONMENT MBX_TEST_PROBE_SHIFT=1)

# Order: one seed, one order; another seed, another; --order plan, the
# plan's; the probe sidecar and the monitor's keys in the environment.
add_test(NAME mpi.order.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/order.sh ${MPIEXEC_EXECUTABLE}
                 ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> ${MBX_OUT}/order)
set_tests_properties(mpi.order.n2 PROPERTIES TIMEOUT 180 LABELS mpi PROCESSORS 2)

mbx_bad_input(sync_word 2 "--sync: expected barrier or window \\(got 'windows'\\)" --bench coll.bcast --sync windows)
mbx_bad_input(clock_sync_word 2 "--clock-sync: expected jk or hca \\(got 'ntp'\\)" --bench coll.bcast --clock-sync ntp)
mbx_bad_input(window_range 2 "--window: expected auto or seconds in 1e-6..10 \\(got '0'\\)" --bench coll.bcast --window 0)
mbx_bad_input(window_delay_range 2 "--window-delay: expected seconds in 1e-6..10" --bench coll.bcast --window-delay -1)
mbx_bad_input(resync_range 2 "--resync: expected seconds in 0.01..3600" --bench coll.bcast --resync 0)
mbx_bad_input(cache_word 2 "--cache: expected warm, cold or cold:SIZE \\(got 'hot'\\)" --bench coll.bcast --cache hot)
mbx_bad_input(order_word 2 "--order: expected shuffle or plan \\(got 'random'\\)" --bench coll.bcast --order random)
mbx_bad_input(seed_value 2 "--seed: expected a whole number 0..18446744073709551615 \\(got '-3'\\)" --bench coll.bcast --seed -3)
mbx_bad_input(monitor_word 2 "--monitor: expected on or off \\(got 'yes'\\)" --bench coll.bcast --monitor yes)
mbx_bad_input(shift_range 2 "--shift: expected a relative change in 0.01..10 \\(got '0'\\)" --bench coll.bcast --shift 0)
mbx_bad_input(cache_size 2 "--cache: cold:SIZE needs a size in 4KiB..1TiB \\(got 'cold:12'\\)" --bench coll.bcast --cache cold:12)
# The last-level cache's size from hwloc (one small point: on a VM that
# reports the host's whole L3 a flush is slow).
mbx_run_and_check(mpi.cache.llc.n2 2 120 ${MBX_OUT}/cache_llc.csv
  RUN run --bench coll.barrier --cache cold --stop fixed:5 --settle 0 -q -o ${MBX_OUT}/cache_llc.csv
  CHECK "--rows 1 --col cache=cold")
# A timer the CPU cannot give (test hook: the TSC reported unusable) is bad
# input with the reason, not a failed run.
mbx_bad_input(timer_tsc_refused 2 "--timer: tsc cannot be used here: " --bench coll.bcast --timer tsc)
set_tests_properties(badinput.timer_tsc_refused PROPERTIES ENVIRONMENT MBX_TEST_NO_TSC=1)
