# Issue 8, faults and security of batch runs: signals, a killed or hung
# rank, a full disk, a vanished output directory; planted symbolic links,
# the umask, secrets in the environment. Each case is its own test with a
# timeout; the tables in docs/hardening.md name them.
foreach(_case sigint_rank0 sigterm_rank0 sigterm_mpiexec sigterm_hung sigkill_rank1 enospc_obs
              enospc_csv dir_gone enospc_start)
  add_test(NAME fault.${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/faults.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_OUT}
                   ${_case})
  # 77: no tmpfs could be mounted (not root); said with a SKIP line.
  set_tests_properties(fault.${_case} PROPERTIES TIMEOUT 240 LABELS "fault;mpi" PROCESSORS 2
                                                 SKIP_RETURN_CODE 77)
endforeach()

foreach(_case symlink umask secrets)
  add_test(NAME security.${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/security.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck> ${MBX_OUT}
                   ${_case})
  set_tests_properties(security.${_case} PROPERTIES TIMEOUT 120 LABELS "security;mpi" PROCESSORS 2)
endforeach()

# The launcher's own bad input (no MPI; stdin is /dev/null, so it can never
# start an explorer on the terminal ctest runs in).
function(mbx_launcher_bad name regex)
  add_test(NAME badinput.launcher_${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh "${regex}"
                   ${MBX_OUT}/bad_launcher_${name}.csv -- bash -c "exec \"$@\" </dev/null" launcher
                   $<TARGET_FILE:mpibex> ${ARGN})
  set_tests_properties(badinput.launcher_${name} PROPERTIES TIMEOUT 30 LABELS "badinput;launcher")
endfunction()
mbx_launcher_bad(n_range "^mpibex: -n: 0 is out of range; allowed 1\\.\\.4096$" -n 0)
mbx_launcher_bad(n_word "^mpibex: -n: 'x' is not a whole number; allowed 1\\.\\.4096$" -n x)
mbx_launcher_bad(bridge_mode "^mpibex: --bridge: unknown mode 'pigeon'; allowed auto, tty, socket$"
  --bridge pigeon)
mbx_launcher_bad(bridge_addr_missing "^mpibex: --bridge-addr: missing value" --bridge-addr)
mbx_launcher_bad(log_missing "^mpibex: --log: missing value; allowed a file path$" --log)
mbx_launcher_bad(no_terminal "^mpibex: the explorer needs a terminal; for batch runs use: mpiexec -n 2 mpibex run PLAN\\.ini$"
  -n 2)
