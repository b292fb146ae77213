# --validate for the one-sided benchmarks (rma.*) under every sync mode:
# put and accumulate fill the origin's buffer with a pattern (addends), the
# target checks its window memory after the epoch (the pattern, the sums
# with its own start values); get fills the target's window and the origin
# checks what it got. Included from mpi_tests.cmake (mbx_run_and_check,
# MBX_OUT, MBX_MPIEXEC). Every row must name its mode in rma_sync, the
# origin's timing and the pair; the lock_all runs leave --rma-sync out, so
# they check the default too.
#
# MPICH 4.0.x over UCX 1.13 or later (Debian 12's pair) moves no data in
# one-sided operations while its registration cache is on (it matches
# pmodels/mpich#6140, RMA failing with UCX >= 1.13): every check here
# failed until UCX_RCACHE_ENABLE=n, which these
# tests set (Open MPI ignores it).
set(MBX_RMA_ENV UCX_RCACHE_ENABLE=n)
set(MBX_RMA_BENCH rma.put,rma.get,rma.acc,rma.put_bw,rma.get_bw,rma.acc_bw)
set(MBX_RMA_SYNCS fence lock lock_all pscw)

foreach(m IN LISTS MBX_RMA_SYNCS)
  if(m STREQUAL "lock_all")
    set(opt)
  else()
    set(opt --rma-sync ${m})
  endif()
  # 64K is past the eager limit; a window of 64 x 64K is 4 MiB.
  mbx_run_and_check(mpi.validate.rma.${m}.n2 2 180 ${MBX_OUT}/val_rma_${m}2.csv
    RUN run --bench ${MBX_RMA_BENCH} --sizes 8,1K,64K --stop fixed:20 --validate --span 0 -q ${opt}
        -o ${MBX_OUT}/val_rma_${m}2.csv
    CHECK "--procs 2 --rows 18 --bench rma.put --bench rma.get --bench rma.acc --bench rma.put_bw --bench rma.get_bw --bench rma.acc_bw --col validated=yes --col rma_sync=${m} --col timing=origin --col ranks=0,1")
  set_tests_properties(mpi.validate.rma.${m}.n2 PROPERTIES ENVIRONMENT ${MBX_RMA_ENV})
  # On 4 ranks the pair is 0,3 (the other two sit the points out, but take
  # part in splitting the pair off); fence runs on 3,1: origin rank 3, the
  # target 1, rank 0 outside the pair. Kept tiny for 2 cores.
  if(m STREQUAL "fence")
    set(pair 3,1)
  else()
    set(pair 0,3)
  endif()
  mbx_run_and_check(mpi.validate.rma.${m}.n4 4 240 ${MBX_OUT}/val_rma_${m}4.csv
    RUN run --bench ${MBX_RMA_BENCH} --sizes 8,4K --stop fixed:10 --validate --span 0 -q ${opt}
        --pair ${pair} -o ${MBX_OUT}/val_rma_${m}4.csv
    CHECK "--procs 4 --rows 12 --col validated=yes --col rma_sync=${m} --col timing=origin --col ranks=${pair}")
  set_tests_properties(mpi.validate.rma.${m}.n4 PROPERTIES ENVIRONMENT ${MBX_RMA_ENV})
endforeach()

# The plan key: a plan file's rma_sync reaches every rank (pscw needs the
# target's post and wait, so a mode that did not arrive would hang or fail
# the check); the bandwidth rows name their window.
mbx_run_and_check(mpi.rma.plan.n2 2 120 ${MBX_OUT}/rma_plan2.csv
  RUN run ${CMAKE_CURRENT_SOURCE_DIR}/mpi/rma.ini --validate --span 0 -q
      -o ${MBX_OUT}/rma_plan2.csv
  CHECK "--procs 2 --rows 2 --bench rma.put_bw --col rma_sync=pscw --col validated=yes --col param=8 --col param_name=window")
set_tests_properties(mpi.rma.plan.n2 PROPERTIES ENVIRONMENT ${MBX_RMA_ENV})

# --validate must be able to fail: MBX_TEST_CORRUPT=1 makes the rma check
# flip a byte of the target's window (put) or of the origin's buffer (get)
# before verifying.
add_test(NAME mpi.validate.rma.corrupt.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_validate_fail.sh --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run
                 --bench rma.put --sizes 64 --nmax 20 --validate --span 0 -q --rma-sync fence)
set_tests_properties(mpi.validate.rma.corrupt.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2
  ENVIRONMENT ${MBX_RMA_ENV})
add_test(NAME mpi.validate.rma.corrupt_get.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_validate_fail.sh --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run
                 --bench rma.get --sizes 64 --nmax 20 --validate --span 0 -q)
set_tests_properties(mpi.validate.rma.corrupt_get.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2
  ENVIRONMENT ${MBX_RMA_ENV})

# Without --validate the rma.* points are checked all the same
# (MBX_BENCH_CHECKED): wrong data makes INVALID rows and exit 1, and a
# right one's rows say validated=yes. A library that completes the operations without moving
# the data must never leave their times in a file.
add_test(NAME mpi.rma.checked_always.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_validate_fail.sh --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run
                 --bench rma.put,rma.get_bw --sizes 64 --nmax 20 --span 0 -q --force
                 -o ${MBX_OUT}/rma_checked2.csv)
set_tests_properties(mpi.rma.checked_always.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2
  ENVIRONMENT ${MBX_RMA_ENV})

# The fake back end (no MPI): every mode gives a row naming it, and the
# modes differ in time (lock's lock and unlock cost more than lock_all's
# flush).
add_test(NAME rma.fake
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/rma_fake.sh $<TARGET_FILE:mpibex>
                 $<TARGET_FILE:csvcheck> ${MBX_OUT}/rma_fake)
set_tests_properties(rma.fake PROPERTIES TIMEOUT 60 LABELS quick)

# A failed data check is an INVALID row with its reason and the run goes
# on; the run exits 1 at the end with one line naming the benchmarks.
# corrupt: the check's test hook fails every rma.* point, on any MPI.
# cache_on: as users start it, UCX_RCACHE_ENABLE unset by the script (not
# MBX_RMA_ENV): on MPICH 4.0.x over UCX 1.13 or later, one line with the
# cause and the fix before measuring, and INVALID rma.* rows.
foreach(mode corrupt cache_on)
  add_test(NAME mpi.rma.invalid_${mode}.n2
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/rma_invalid.sh ${mode}
                   ${MBX_OUT}/rma_invalid_${mode} --
                   ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex>)
  set_tests_properties(mpi.rma.invalid_${mode}.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)
endforeach()

# The same in the explorer, headless on real ranks: the run goes on to its
# end with rma.put's points INVALID and the message line counting the
# wrong data; with the cache on, the start's message line names the fix.
if(TARGET mbx_explorer)
  add_test(NAME mpi.rma.invalid_explore.n2
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/rma_explore.sh ${MBX_OUT}/rma_explore
                   ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex>)
  set_tests_properties(mpi.rma.invalid_explore.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)
endif()
