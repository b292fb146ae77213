# --validate for the streaming-bandwidth benchmarks (bench_bw.c):
# the checked window sends every message from a slot of its own, numbered
# with its place in the window and the sender's rank, and the receiver
# checks all W of them (bw.exchange: which neighbour's block landed where).
# csvcheck holds every row's bandwidth_MBps and msg_rate_per_s to the bytes
# and messages the benchmark moves over median_us (docs/csv-format.md).
# Included from mpi_tests.cmake (mbx_validate_twins, mbx_run_and_check,
# MBX_OUT).
set(MBX_BW_BENCH uni bi multi exchange)

foreach(b IN LISTS MBX_BW_BENCH)
  mbx_validate_twins(bw ${b} 8,64K "--col validated=yes")
endforeach()
# A window other than the default reaches the benchmark (--param) and the
# row (param, param_name), and W x bytes is what the bandwidth counts.
mbx_run_and_check(mpi.validate.bw.window.n2 2 120 ${MBX_OUT}/val_bw_window2.csv
  RUN run --bench bw.uni,bw.bi --param 1,7 --sizes 8,4K --nmax 40 --validate --span 0 -q
      -o ${MBX_OUT}/val_bw_window2.csv
  CHECK "--procs 2 --rows 8 --col param_name=window --col validated=yes")
