# The `heavy` tier: tests whose extra ranks or hosts cost minutes on 2 cores
# (busy-polling ranks oversubscribed wait out scheduler slices) but reach no
# code of ours that a lighter test does not also reach: the 4-rank repeats of
# 2-rank tests, b_eff on 4 ranks and across two namespace hosts, and the
# 16-rank scale run. Among the 4-rank --validate tests, those where only
# ranks 0 and 1 act and the others wait at the point's barriers: the ping-pong
# variants (pingpong.send_recv.n4 stays, for the waiting ranks' path),
# passive-target one-sided (lock, lock_all; fence and pscw stay, every rank
# takes part in their epochs), uni- and bidirectional bandwidth (multi and
# exchange stay). Across two namespace hosts, ping-pong and bw.uni run the
# benchmark code of their 2-rank twins over MPICH's TCP link (the bridge
# test stays: its address and launcher code is reached nowhere else). The
# Slurm tests (a cluster of their own, about 3 minutes, most of it Slurm's
# 30 s time-limit check) run the ranks' code the MPI tests run; the
# launcher's choice of srun inside an allocation is also
# tui.launcher_slurm_default, which every stage runs. The plain build runs them (they are `full`); the sanitizer and
# Open MPI stages of .ci/run leave them out (`ctest -LE heavy`), which keeps
# .ci/run under 30 minutes. mpi.allbench.n4 and mpi.beffio.n4 stay in every
# stage: they are the sanitizers' 4-rank runs of every benchmark.
set(MBX_HEAVY_TESTS mpi.scale.n16 mpi.beff.n4 netns.beff_two_hosts mpi.quick.n4 mpi.window.hca.n4
    mpi.fanout.n4 mpi.fanout.validate.n4 mpi.cmdloop.n4 mpi.pingpong.n4
    mpi.validate.pingpong.bsend_recv.n4 mpi.validate.pingpong.ssend_recv.n4
    mpi.validate.pingpong.isend_recv.n4 mpi.validate.pingpong.sendrecv_replace.n4
    mpi.validate.pingpong.send_iprobe_recv.n4 mpi.validate.pingpong.sendrecv.n4
    mpi.validate.pingpong.send_recv_anytag.n4 mpi.validate.pingpong.send_irecv.n4
    mpi.validate.rma.lock.n4 mpi.validate.rma.lock_all.n4 mpi.validate.bw.uni.n4
    mpi.validate.bw.bi.n4 netns.pingpong_two_hosts netns.bw_two_hosts
    slurm.salloc_explore slurm.srun_pty slurm.sbatch_run slurm.sbatch_cancel slurm.sbatch_timelimit
    slurm.salloc_pairs)
get_property(_mbx_tests DIRECTORY PROPERTY TESTS)
foreach(_t IN LISTS MBX_HEAVY_TESTS)
  if(_t IN_LIST _mbx_tests)
    set_property(TEST ${_t} APPEND PROPERTY LABELS heavy)
    # Start the long ones first: on a fresh checkout ctest has no timings.
    set_property(TEST ${_t} PROPERTY COST 100)
  endif()
endforeach()
