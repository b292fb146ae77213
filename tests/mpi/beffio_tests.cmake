# b_eff_io (mpibex beffio): short runs on 2 and 4 ranks in the build
# directory, interruption by SIGINT and by SIGKILL of rank 0, bad input.
set(_bx ${CMAKE_CURRENT_SOURCE_DIR}/mpi/beffio_check.sh)
foreach(_n 2 4)
  add_test(NAME mpi.beffio.n${_n}
           COMMAND bash ${_bx} run ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${_n}
                   $<TARGET_FILE:mpibex> ${MBX_OUT}/beffio_n${_n})
  set_tests_properties(mpi.beffio.n${_n} PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS ${_n})
endforeach()
foreach(_mode sigint sigkill)
  add_test(NAME mpi.beffio.${_mode}
           COMMAND bash ${_bx} ${_mode} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
                   $<TARGET_FILE:mpibex> ${MBX_OUT}/beffio_${_mode})
  set_tests_properties(mpi.beffio.${_mode} PROPERTIES TIMEOUT 120 LABELS mpi PROCESSORS 2)
endforeach()

function(mbx_beffio_bad name regex)
  add_test(NAME badinput.beffio_${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh "${regex}"
                   ${MBX_OUT}/bad_beffio_${name}.csv --
                   ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpibex> beffio ${ARGN}
                   -o ${MBX_OUT}/bad_beffio_${name}.csv)
  set_tests_properties(badinput.beffio_${name} PROPERTIES TIMEOUT 60 LABELS "mpi;badinput" PROCESSORS 2)
endfunction()
mbx_beffio_bad(time "--time: '0' is not a number of seconds in 0.1..86400" --time 0)
mbx_beffio_bad(dir "--dir: '/nonexistent/x' is not a writable directory" --dir /nonexistent/x)
mbx_beffio_bad(mem "--mem-per-proc: 'lots' is not a size" --mem-per-proc lots)
mbx_beffio_bad(option "unknown option '--frob'" --frob)
# MPART = 2^50 / 128 = 8 TiB: no disk here has that, so the run must refuse
# with both figures.
mbx_beffio_bad(space "--dir: .* has [0-9.]+ MB free; the schedule needs [0-9.]+ MB" --mem-per-proc 1P --dir ${MBX_OUT})
add_test(NAME cli.beffio_help COMMAND $<TARGET_FILE:mpibex> beffio --help)
set_tests_properties(cli.beffio_help PROPERTIES TIMEOUT 30 PASS_REGULAR_EXPRESSION "--time SECONDS.*--dir DIR")
