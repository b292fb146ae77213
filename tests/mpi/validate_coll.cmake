# --validate for every collective (coll.*), blocking and non-blocking: each
# check fills the inputs with a pattern of rank and position, runs the
# operation once and compares what every rank must receive. Included from
# mpi_tests.cmake (mbx_run_and_check, MBX_OUT, MBX_MPIEXEC).
#
# The benchmarks are grouped so that each group's CSV rows share their root
# and op columns: rooted ones name the root, reductions MPI_SUM/MPI_FLOAT,
# the others leave both empty.
set(MBX_COLL_ROOTED
    coll.bcast,coll.gather,coll.gatherv,coll.scatter,coll.scatterv,coll.ibcast,coll.igather,coll.igatherv,coll.iscatter,coll.iscatterv)
set(MBX_COLL_ROOTED_SUM coll.reduce,coll.ireduce)
set(MBX_COLL_SUM
    coll.allreduce,coll.reduce_scatter,coll.reduce_scatter_block,coll.scan,coll.exscan,coll.iallreduce,coll.ireduce_scatter,coll.ireduce_scatter_block,coll.iscan,coll.iexscan)
set(MBX_COLL_OTHER
    coll.barrier,coll.allgather,coll.allgatherv,coll.alltoall,coll.alltoallv,coll.comm_split,coll.comm_dup,coll.ibarrier,coll.iallgather,coll.iallgatherv,coll.ialltoall,coll.ialltoallv)
set(MBX_SUM_OP "MPI_SUM/MPI_FLOAT")

# name; benchmarks; rows on 2 ranks (3 sizes; unsized ones give one row);
# rows on 4 ranks (2 sizes); the CSV columns every row must have on 4 ranks
# (the 4-rank runs of rooted groups use root 2, so the root is really
# taken from the command line).
set(MBX_COLL_GROUPS rooted rooted_sum sum other)
set(MBX_COLL_rooted_BENCH ${MBX_COLL_ROOTED})
set(MBX_COLL_rooted_ROWS 30 20)
set(MBX_COLL_rooted_COLS2 "--col root=0 --col op=")
set(MBX_COLL_rooted_COLS4 "--col root=2 --col op=")
set(MBX_COLL_rooted_ARGS4 --root 2)
set(MBX_COLL_rooted_sum_BENCH ${MBX_COLL_ROOTED_SUM})
set(MBX_COLL_rooted_sum_ROWS 6 4)
set(MBX_COLL_rooted_sum_COLS2 "--col root=0 --col op=${MBX_SUM_OP}")
set(MBX_COLL_rooted_sum_COLS4 "--col root=2 --col op=${MBX_SUM_OP}")
set(MBX_COLL_rooted_sum_ARGS4 --root 2)
set(MBX_COLL_sum_BENCH ${MBX_COLL_SUM})
set(MBX_COLL_sum_ROWS 30 20)
set(MBX_COLL_sum_COLS2 "--col root= --col op=${MBX_SUM_OP}")
set(MBX_COLL_sum_COLS4 "--col root= --col op=${MBX_SUM_OP}")
set(MBX_COLL_sum_ARGS4)
set(MBX_COLL_other_BENCH ${MBX_COLL_OTHER})
set(MBX_COLL_other_ROWS 28 20)
set(MBX_COLL_other_COLS2 "--col root= --col op=")
set(MBX_COLL_other_COLS4 "--col root= --col op=")
set(MBX_COLL_other_ARGS4)

foreach(g IN LISTS MBX_COLL_GROUPS)
  list(GET MBX_COLL_${g}_ROWS 0 rows2)
  list(GET MBX_COLL_${g}_ROWS 1 rows4)
  # 64K is past the eager limit, so rendezvous transfers are checked too.
  mbx_run_and_check(mpi.validate.coll.${g}.n2 2 180 ${MBX_OUT}/val_coll_${g}2.csv
    RUN run --bench ${MBX_COLL_${g}_BENCH} --sizes 4,1K,64K --nmax 50 --validate --span 0 -q
        -o ${MBX_OUT}/val_coll_${g}2.csv
    CHECK "--procs 2 --rows ${rows2} --col validated=yes ${MBX_COLL_${g}_COLS2}")
  # On 2 cores each 4-rank collective waits out scheduler slices (~8 ms):
  # ten observations per point and two sizes keep this under a minute.
  mbx_run_and_check(mpi.validate.coll.${g}.n4 4 240 ${MBX_OUT}/val_coll_${g}4.csv
    RUN run --bench ${MBX_COLL_${g}_BENCH} --sizes 4,4K --stop fixed:10 --validate --span 0 -q
        ${MBX_COLL_${g}_ARGS4} -o ${MBX_OUT}/val_coll_${g}4.csv
    CHECK "--procs 4 --rows ${rows4} --col validated=yes ${MBX_COLL_${g}_COLS4}")
endforeach()

# --validate must be able to fail: the hidden hook MBX_TEST_CORRUPT=1 makes
# every collective check flip one received byte. The script runs the same
# command without the hook (must pass) and with it (exit 1, "validation
# failed" on stderr).
add_test(NAME mpi.validate.coll.corrupt.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_validate_fail.sh --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run
                 --bench coll.allreduce --sizes 64 --nmax 20 --validate --span 0 -q)
set_tests_properties(mpi.validate.coll.corrupt.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)
