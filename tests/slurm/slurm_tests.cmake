# mpibex inside a real Slurm allocation: a Slurm cluster made by
# each test on the namespace hosts of tests/netns/cluster.sh (one slurmd on
# each compute node, mbxh1 and mbxh2 unless the test asks for more,
# slurmctld and the login shell on the next host, mbxh3 with two compute
# nodes, a private munged; tests/slurm/lib_slurm.sh). Root, namespaces and Debian's
# slurm-wlm and munge are needed; without them a test exits 77 (skipped)
# with the reason, as it does under another MPI than MPICH (the tests start
# MPICH ranks with srun --mpi=pmi2). The namespace names are fixed: the
# netns lock (flock) and the CTest resource lock mbx_netns, as for the netns
# tests.
set(_mbx_slurm_dir ${CMAKE_CURRENT_LIST_DIR})
# mbx_slurm_test(NAME SCRIPT TIMEOUT ARGS...): test slurm.NAME runs
# tests/slurm/SCRIPT.sh ARGS under the netns lock.
function(mbx_slurm_test name script timeout)
  add_test(NAME slurm.${name}
           COMMAND flock ${MBX_NETNS_LOCK} bash ${_mbx_slurm_dir}/${script}.sh ${ARGN})
  set_tests_properties(slurm.${name} PROPERTIES
                       TIMEOUT ${timeout}
                       LABELS "netns;slurm"
                       RESOURCE_LOCK mbx_netns
                       SKIP_RETURN_CODE 77)
endfunction()

# salloc -N 2 -n 2, then mpibex -n 2 on the login shell: srun, the socket
# bridge, a plan run, an export, quit; squeue empty and nothing left after.
mbx_slurm_test(salloc_explore salloc_explore 180 $<TARGET_FILE:mpibex>)

# srun -N 1 -n 2 --pty mpibex explore: the tty path through srun's pty.
mbx_slurm_test(srun_pty srun_pty 120 $<TARGET_FILE:mpibex>)

# sbatch of srun mpibex run samples/quick.ini: the CSV parses, the env file
# records the job (id, node list, step, Slurm's binding) and nothing else
# of the environment but tuning variables.
mbx_slurm_test(sbatch_run sbatch_run 240 $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_SAMPLES})

# A batch run ended by scancel, and one ended by its time limit (--time=1:
# Slurm checks limits every 30 s, so this one takes about 90 s before its
# resume): complete rows, mpibex's note naming the job, --resume in a new
# job finishes the run.
mbx_slurm_test(sbatch_cancel sbatch_stop 180 cancel $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck>)
mbx_slurm_test(sbatch_timelimit sbatch_stop 240 timelimit $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck>)

# salloc -N 5 -n 5 on a cluster of five compute nodes (mbxh1..mbxh5, the
# login node mbxh6), then srun mpibex pairs --metric bw as a step: one node
# drawn at random slowed both ways and one pair of nodes a slow link, with
# tc as in netns.pairs_five_hosts (tests/netns/lib_pairs.sh); the printed
# verdicts and OUT.verdicts.csv name that node by its Slurm node name, and
# the link, and nothing else but links of the slow node; the CSV's
# src_host/dst_host are the node names; squeue empty after. One planted
# run here (MBX_TEST_PAIRS_PLANTED=K and MBX_TEST_PAIRS_CLEAN=K by hand
# run K, each a step of the one allocation; by hand, 10 of 10 planted and
# 3 of 3 clean runs passed, about 35 s a test of one run). The timeout has
# room for the netns lock (120 s), one run (at most 30 s of rounds) and
# the cluster.
mbx_slurm_test(salloc_pairs salloc_pairs 300 $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck>)
