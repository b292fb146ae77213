# mpibex pairs on one host, ranks as nodes (--per rank): the matrix, its
# CSV (a row per directed cell, the host columns filled) and the verdicts
# file. Two ranks: both metrics in shift mode (1 step). Four ranks: latency
# one pair at a time, few rounds (four busy-polling ranks on two cores wait
# out scheduler slices), and the verdicts printed. The figures are not
# asserted; the rows, their columns and the files are. Included from
# mpi_tests.cmake. The multi-host cases, with a slow host and link planted,
# are tests/netns/pairs_hosts.sh.
mbx_run_and_check(mpi.pairs.shift.n2 2 120 ${MBX_OUT}/pairs2.csv
  RUN pairs --per rank --max-rounds 30 -q -o ${MBX_OUT}/pairs2.csv --force
  CHECK "--procs 2 --rows 4")
mbx_run_and_check(mpi.pairs.one.n4 4 180 ${MBX_OUT}/pairs4.csv
  RUN pairs --per rank --mode one --metric lat --max-rounds 4 --span 0 -q -o ${MBX_OUT}/pairs4.csv --force
  CHECK "--procs 4 --rows 12 --bench pairs.lat --col label=pairs")

# Bad input: one line naming the field and its range, exit 2, no file.
function(mbx_pairs_bad_input name nprocs regex)
  add_test(NAME badinput.pairs_${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh "${regex}"
                   ${MBX_OUT}/bad_pairs_${name}.csv --
                   ${MBX_MPIEXEC} ${nprocs} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> pairs ${ARGN}
                   -o ${MBX_OUT}/bad_pairs_${name}.csv)
  set_tests_properties(badinput.pairs_${name} PROPERTIES TIMEOUT 60 LABELS "mpi;badinput"
                       PROCESSORS ${nprocs})
endfunction()
mbx_pairs_bad_input(one_node 2 "pairs: the job's 2 ranks run on 1 host .*: the matrix needs 2 nodes or more")
mbx_pairs_bad_input(more_steps 2 "--steps: 2 asked; 2 nodes have 1 shift steps \\(1\\.\\.1\\)"
  --per rank --steps 2)
mbx_pairs_bad_input(mode 2 "--mode: expected shift or one, got 'ring'" --mode ring)
mbx_pairs_bad_input(one_socket 2
  "pairs: the job's 2 ranks run on 1 socket of 1 host .*: the matrix needs 2 nodes or more" --per socket)

# The explorer's pairs screen headless on 2 real ranks, a node per rank:
# the run to its time limit, both cells shaded, the cursor's value, the
# inspector, no verdicts on two nodes and why; a node per host refused on
# one host.
if(TARGET mbx_explorer)
  add_test(NAME mpi.explore_pairs.n2
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/explore_pairs.sh ${MBX_OUT}/explore_pairs
                   ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex>)
  set_tests_properties(mpi.explore_pairs.n2 PROPERTIES TIMEOUT 180 LABELS mpi PROCESSORS 2)
endif()
