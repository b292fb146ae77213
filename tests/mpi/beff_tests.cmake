# b_eff (`mpibex beff`) on 2 and 4 ranks with small settings: memory per
# process 2 MiB (L_max = 16 KiB), so a run is at most about a thousand short
# measurements; loop lengths (300 at 1 B, 2.5-5 ms) and every pattern and
# method follow the rules. beff_check.sh checks the files against the rules.
# 2 ranks: 3 random patterns and the paper's 3 repetitions (the maximum
# over repetitions, the random patterns' average). 4 ranks: what 2 ranks
# cannot reach, the patterns of 4 (rings, a random permutation, the 2-D and
# 3-D Cartesian y patterns, bi-sections), with 1 random pattern and 1
# repetition: on 2 cores 4 busy-polling ranks wait out scheduler slices,
# and with 3 and 2 this was the suite's longest test (80 to 156 s).
# Included from tests/mpi/mpi_tests.cmake.
set(_mbx_beff_small --mem-per-proc 2MiB --seed 11 --rmax 20)
foreach(_np 2 4)
  if(_np EQUAL 2)
    set(_detail worst_cycle,bisect_best,bisect_worst,cart2d_x,cart2d_all,cart3d_x,cart3d_all,pingpong)
  else()
    set(_detail worst_cycle,bisect_best,bisect_worst,cart2d_x,cart2d_y,cart2d_all,cart3d_x,cart3d_y,cart3d_all,pingpong)
  endif()
  if(_np EQUAL 4)
    set(_reps --random 1 --reps 1)
  else()
    set(_reps --random 3)
  endif()
  add_test(NAME mpi.beff.n${_np}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/beff_check.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} ${_np} $<TARGET_FILE:mpibex> ${MBX_OUT} ${_detail}
                   ${_mbx_beff_small} ${_reps})
  set_tests_properties(mpi.beff.n${_np} PROPERTIES TIMEOUT 900 LABELS "mpi;beff" PROCESSORS ${_np})
endforeach()

add_test(NAME mpi.beff.interrupt
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/beff_interrupt.sh ${MPIEXEC_EXECUTABLE}
                 ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> ${MBX_OUT})
set_tests_properties(mpi.beff.interrupt PROPERTIES TIMEOUT 120 LABELS "mpi;beff" PROCESSORS 2)

add_test(NAME mpi.beff.help
         COMMAND ${MBX_MPIEXEC} 1 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> beff --help)
set_tests_properties(mpi.beff.help PROPERTIES TIMEOUT 60 LABELS "mpi;beff"
  PASS_REGULAR_EXPRESSION "Usage: mpiexec -n N mpibex beff.*--mem-per-proc SIZE.*--cap128.*--quick")

# Bad input: exit 2, one stderr line naming the field and the range.
function(mbx_beff_bad name nprocs regex)
  add_test(NAME badinput.beff_${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh "${regex}"
                   ${MBX_OUT}/bad_beff_${name}.csv --
                   ${MBX_MPIEXEC} ${nprocs} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> beff ${ARGN}
                   -o ${MBX_OUT}/bad_beff_${name}.csv)
  set_tests_properties(badinput.beff_${name} PROPERTIES TIMEOUT 60 LABELS "mpi;badinput;beff"
                       PROCESSORS ${nprocs})
endfunction()
mbx_beff_bad(one_rank 1 "beff: needs at least 2 ranks, the job has 1")
mbx_beff_bad(mem_small 2 "--mem-per-proc: expected a size from 512KiB to 1TiB, got '1K'" --mem-per-proc 1K)
mbx_beff_bad(quick_small 2 "--quick: expected a size of at least 4KiB, got '1K'" --quick=1K)
mbx_beff_bad(reps 2 "--reps: expected an integer in 1..100, got '0'" --reps 0)
mbx_beff_bad(random 2 "--random: expected an integer in 1..1000, got '1001'" --random 1001)
mbx_beff_bad(rmax 2 "--rmax: expected GFlop/s > 0, got '-5'" --rmax -5)
mbx_beff_bad(seed 2 "--seed: expected an integer in 0..4294967295, got 'x'" --seed x)
mbx_beff_bad(unknown 2 "unknown option '--frob'" --frob)
mbx_beff_bad(lmax_int 2 "L_max: .* too large for MPI int counts.*--cap128" --mem-per-proc 64G)
