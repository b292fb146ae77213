# --validate for every ping-pong variant, every simple benchmark and self: each
# point checks the bytes that arrived (ping-pong, both directions) or the
# call's result (simple) after its timed loop, and the run fails if any
# check does. Included from mpi_tests.cmake (mbx_run_and_check, MBX_OUT).
set(MBX_PP_VARIANTS
    send_recv ssend_recv isend_recv bsend_recv send_irecv send_iprobe_recv
    send_recv_anytag sendrecv sendrecv_replace)
set(MBX_SIMPLE_BENCH wtime comm_rank comm_size iprobe buffer_attach)

foreach(v IN LISTS MBX_PP_VARIANTS)
  # 256K is past the eager limit: the rendezvous path is checked too.
  mbx_run_and_check(mpi.validate.pingpong.${v}.n2 2 120 ${MBX_OUT}/val_pp_${v}2.csv
    RUN run --bench pingpong.${v} --sizes 1,1K,64K,256K --nmax 100 --validate --span 0 -q
        -o ${MBX_OUT}/val_pp_${v}2.csv
    CHECK "--procs 2 --rows 4 --bench pingpong.${v}")
  # Two ranks of the four sit the point out; pair 0,3 by default.
  mbx_run_and_check(mpi.validate.pingpong.${v}.n4 4 180 ${MBX_OUT}/val_pp_${v}4.csv
    RUN run --bench pingpong.${v} --sizes 1,64K --stop fixed:20 --nmax 20 --validate --span 0 -q
        -o ${MBX_OUT}/val_pp_${v}4.csv
    CHECK "--procs 4 --rows 2 --bench pingpong.${v}")
endforeach()

foreach(s IN LISTS MBX_SIMPLE_BENCH)
  mbx_run_and_check(mpi.validate.simple.${s}.n1 1 60 ${MBX_OUT}/val_simple_${s}1.csv
    RUN run --bench simple.${s} --nmax 200 --validate --span 0 -q -o ${MBX_OUT}/val_simple_${s}1.csv
    CHECK "--procs 1 --rows 1 --bench simple.${s}")
  # In a 2-rank job the front end still measures on rank 0 alone (procs 1);
  # rank 1 stays outside the point.
  mbx_run_and_check(mpi.validate.simple.${s}.n2 2 60 ${MBX_OUT}/val_simple_${s}2.csv
    RUN run --bench simple.${s} --nmax 200 --validate --span 0 -q -o ${MBX_OUT}/val_simple_${s}2.csv
    CHECK "--procs 1 --rows 1 --bench simple.${s}")
endforeach()

# MPI_Buffer_attach is process-wide: a buffer left attached by one point
# would make the next attach fail. Two Bsend ping-pong points in a row, then
# the attach benchmark on the same rank (points run in --bench order).
mbx_run_and_check(mpi.validate.bsend_then_attach.n2 2 120 ${MBX_OUT}/val_bsend_attach.csv
  RUN run --bench pingpong.bsend_recv,simple.buffer_attach --sizes 1,256K --nmax 50 --validate --span 0 --order plan
      -q -o ${MBX_OUT}/val_bsend_attach.csv
  CHECK "--rows 3 --bench pingpong.bsend_recv --bench simple.buffer_attach")

# self.sendrecv (the pattern added as two files, docs/architecture.md):
# every size arrives whole, eager and past the eager limit; in a 2-rank
# job it runs on rank 0 alone (procs 1).
mbx_run_and_check(mpi.validate.self.sendrecv.n2 2 120 ${MBX_OUT}/val_self2.csv
  RUN run --bench self.sendrecv --sizes 1,1K,64K,256K --nmax 200 --validate --span 0 -q
      -o ${MBX_OUT}/val_self2.csv
  CHECK "--procs 1 --rows 4 --bench self.sendrecv")

# persist.send_recv (the persistent ping-pong, a pattern added as one file
# and its docs row, docs/contributing.md): every size arrives whole through
# the persistent requests, 0 B, eager and past the eager limit.
mbx_run_and_check(mpi.validate.persist.send_recv.n2 2 120 ${MBX_OUT}/val_persist2.csv
  RUN run --bench persist.send_recv --sizes 0,1,1K,64K,256K --nmax 50 --validate --span 0 -q
      -o ${MBX_OUT}/val_persist2.csv
  CHECK "--procs 2 --rows 5 --bench persist.send_recv")
