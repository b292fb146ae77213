# --validate for the neighbourhood collectives (neigh.*) on each topology
# (param 1 ring, 2 and 3 periodic grids): every receive slot must hold a
# block its source addressed to this rank. 2 ranks make every neighbour
# list hold one rank twice (either block will do, each once); 4 ranks
# make a 2x2 grid and a ring of 4 (ring: the exact block). The rows name
# their topology and carry its creation time (setup_us). Included from
# mpi_tests.cmake (mbx_run_and_check, MBX_OUT, MBX_MPIEXEC).
mbx_run_and_check(mpi.validate.neigh.n2 2 180 ${MBX_OUT}/val_neigh2.csv
  RUN run --bench neigh.* --param 1,2,3 --sizes 4,1K,64K --nmax 50 --validate --span 0 -q
      -o ${MBX_OUT}/val_neigh2.csv
  CHECK "--procs 2 --rows 90 --col validated=yes --col param_name=topology --setup ALL")
# On 2 cores each 4-rank collective waits out scheduler slices (~8 ms).
mbx_run_and_check(mpi.validate.neigh.n4 4 240 ${MBX_OUT}/val_neigh4.csv
  RUN run --bench neigh.* --param 1,2,3 --sizes 4K --stop fixed:5 --validate --span 0 -q
      -o ${MBX_OUT}/val_neigh4.csv
  CHECK "--procs 4 --rows 30 --col validated=yes --col param_name=topology --setup ALL")
# The topology column names what each param made on 4 ranks.
add_test(NAME mpi.neigh.topology.n4
         COMMAND bash -c "grep -c 'cart 2x2 periodic' ${MBX_OUT}/val_neigh4.csv | grep -qx 10 && grep -c 'cart 2x2x1 periodic' ${MBX_OUT}/val_neigh4.csv | grep -qx 10 && grep -c 'ring 4' ${MBX_OUT}/val_neigh4.csv | grep -qx 10")
set_tests_properties(mpi.neigh.topology.n4 PROPERTIES TIMEOUT 30 LABELS mpi
                     DEPENDS mpi.validate.neigh.n4)
# The check can fail: MBX_TEST_CORRUPT=1 flips one received byte.
add_test(NAME mpi.validate.neigh.corrupt.n2
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_validate_fail.sh --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> run
                 --bench neigh.alltoall --sizes 64 --nmax 20 --validate --span 0 -q)
set_tests_properties(mpi.validate.neigh.corrupt.n2 PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)
