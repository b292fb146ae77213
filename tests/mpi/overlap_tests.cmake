# Overlap of the non-blocking collectives with computation (overlap.*, OSU's
# method; docs/algorithms.md, "Overlap"). Included from mpi_tests.cmake
# (mbx_run_and_check, MBX_OUT, MBX_MPIEXEC).
#
# Every overlap benchmark with --validate: its check is the collective's
# with the calibrated computation between the start and the wait, so the
# data must still arrive right; csvcheck --overlap holds every row to the
# overlap columns (pure_comm_us and compute_us positive, overall_us the
# median, overlap_pct within 0..100 and following from the three). 15
# sized benchmarks at 2 sizes and overlap.ibarrier: 31 rows.
set(MBX_OVERLAP_ALL
    overlap.ibarrier overlap.ibcast overlap.ireduce overlap.iallreduce overlap.ireduce_scatter
    overlap.ireduce_scatter_block overlap.iscan overlap.iexscan overlap.igather overlap.igatherv
    overlap.iscatter overlap.iscatterv overlap.iallgather overlap.iallgatherv overlap.ialltoall
    overlap.ialltoallv)
list(JOIN MBX_OVERLAP_ALL "," MBX_OVERLAP_BENCH)
set(MBX_OVERLAP_CHECK "")
foreach(b ${MBX_OVERLAP_ALL})
  string(APPEND MBX_OVERLAP_CHECK " --overlap ${b} --bench ${b}")
endforeach()
mbx_run_and_check(mpi.overlap.validate.n2 2 180 ${MBX_OUT}/overlap_val2.csv
  RUN run --bench ${MBX_OVERLAP_BENCH} --sizes 8,4K --stop fixed:20 --validate --span 0 -q
      -o ${MBX_OUT}/overlap_val2.csv
  CHECK "--procs 2 --rows 31 --col validated=yes --col timing=max_over_ranks ${MBX_OVERLAP_CHECK}")
# 4 ranks on 2 cores: each collective waits out scheduler slices, so one
# benchmark of each kind (unsized, rooted, rooted reduction, reduction,
# rooted and unrooted v-variant; 11 rows), 2 passes, root 3 from the command
# line (all 16 with 5 passes took 170 s here).
set(MBX_OVERLAP_FEW overlap.ibarrier overlap.ibcast overlap.ireduce overlap.iallreduce
    overlap.igatherv overlap.ialltoallv)
list(JOIN MBX_OVERLAP_FEW "," MBX_OVERLAP_FEW_BENCH)
set(MBX_OVERLAP_FEW_CHECK "")
foreach(b ${MBX_OVERLAP_FEW})
  string(APPEND MBX_OVERLAP_FEW_CHECK " --overlap ${b} --bench ${b}")
endforeach()
mbx_run_and_check(mpi.overlap.validate.n4 4 240 ${MBX_OUT}/overlap_val4.csv
  RUN run --bench ${MBX_OVERLAP_FEW_BENCH} --sizes 8,4K --stop fixed:10 --passes 2 --validate
      --span 0 --root 3 -q -o ${MBX_OUT}/overlap_val4.csv
  CHECK "--procs 4 --rows 11 --col validated=yes ${MBX_OVERLAP_FEW_CHECK}")

# The fake back end (no MPI): every overlap benchmark gets the four figures,
# other benchmarks' rows leave them empty.
add_test(NAME tui.overlap_fake
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/run_and_check.sh ${MBX_OUT}/overlap_fake.csv
                 $<TARGET_FILE:csvcheck>
                 "--rows 10 --overlap overlap.iallreduce --overlap overlap.ibcast --overlap overlap.ibarrier --bench coll.iallreduce"
                 -- $<TARGET_FILE:mpibex> run --fake 4
                 --bench overlap.iallreduce,overlap.ibcast,overlap.ibarrier,coll.iallreduce
                 --sizes 8,1K,64K --span 0 -q -o ${MBX_OUT}/overlap_fake.csv)
set_tests_properties(tui.overlap_fake PROPERTIES TIMEOUT 60 LABELS tui)
