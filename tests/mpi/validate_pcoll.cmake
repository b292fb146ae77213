# The MPI-4.0 persistent collectives (coll.*_init), where the MPI has them
# (MBX_HAVE_MPI_PCOLL, engine/mpi/CMakeLists.txt); and, where it has not,
# that the build names them as missing. Included from mpi_tests.cmake
# (mbx_run_and_check, MBX_OUT, MBX_MPIEXEC).
#
# MPICH 4.0.2 moves wrong data with three of them (gather, scatter,
# allgather; on 4 ranks its scatter even hangs or fails), so those three
# are held to an oracle (pcoll_oracle.c, plain MPI) on 2 ranks, and the
# --validate runs take the other thirteen.
if(MBX_HAVE_MPI_PCOLL)
  set(MBX_PCOLL_RIGHT
      coll.barrier_init,coll.bcast_init,coll.reduce_init,coll.allreduce_init,coll.reduce_scatter_init,coll.reduce_scatter_block_init,coll.scan_init,coll.exscan_init,coll.gatherv_init,coll.scatterv_init,coll.allgatherv_init,coll.alltoall_init,coll.alltoallv_init)
  # 13 benchmarks at 3 sizes, barrier unsized: 37 rows; each with its
  # init's time (setup_us) and its data checked.
  mbx_run_and_check(mpi.validate.pcoll.n2 2 180 ${MBX_OUT}/val_pcoll2.csv
    RUN run --bench ${MBX_PCOLL_RIGHT} --sizes 4,1K,64K --nmax 50 --validate --span 0 -q
        -o ${MBX_OUT}/val_pcoll2.csv
    CHECK "--procs 2 --rows 37 --col validated=yes --setup ALL")
  # On 2 cores each 4-rank collective waits out scheduler slices (~8 ms):
  # one size, ten observations, root 2 (taken from the command line).
  mbx_run_and_check(mpi.validate.pcoll.n4 4 240 ${MBX_OUT}/val_pcoll4.csv
    RUN run --bench ${MBX_PCOLL_RIGHT} --sizes 4K --stop fixed:10 --validate --span 0 -q
        --root 2 -o ${MBX_OUT}/val_pcoll4.csv
    CHECK "--procs 4 --rows 13 --col validated=yes --setup ALL")
  add_executable(pcoll_oracle mpi/pcoll_oracle.c)
  target_link_libraries(pcoll_oracle PRIVATE MPI::MPI_C)
  add_test(NAME mpi.pcoll.oracle.n2
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/pcoll_oracle.sh $<TARGET_FILE:pcoll_oracle>
                   $<TARGET_FILE:mpibex> ${MBX_OUT} -- ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS})
  set_tests_properties(mpi.pcoll.oracle.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)
endif()

# `mpibex list` names what the build lacks, and a run that asks for it is
# refused with the reason (exit 2), on every MPI: with MPICH the list has
# no such section and the names are benchmarks like any other.
add_test(NAME mpi.list.absent
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/list_absent.sh $<TARGET_FILE:mpibex>
                 "${MBX_HAVE_MPI_PCOLL}" ${MBX_OUT}/list_absent.csv -- ${MBX_MPIEXEC} 1
                 ${MPIEXEC_PREFLAGS})
set_tests_properties(mpi.list.absent PROPERTIES TIMEOUT 60 LABELS mpi PROCESSORS 1)
