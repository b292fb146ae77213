# mpibex repeat (K separate launches, merged) and mpibex compare (a Wilcoxon
# test per point). The real tests start mpiexec several times: a few
# seconds a launch, so generous TIMEOUTs. Each test has its own directory.
set(MBX_REPEAT_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/mpi/repeat_check.sh)
set(MBX_EXPECT_BAD ${CMAKE_CURRENT_SOURCE_DIR}/mpi/expect_bad_input.sh)

add_test(NAME repeat.real.n2
         COMMAND bash ${MBX_REPEAT_CHECK} real $<TARGET_FILE:mpibex> ${MBX_OUT}/repeat_real
                 ${MPIEXEC_EXECUTABLE})
set_tests_properties(repeat.real.n2 PROPERTIES TIMEOUT 300 LABELS "mpi;repeat;compare" PROCESSORS 2)
add_test(NAME repeat.interrupt.n2
         COMMAND bash ${MBX_REPEAT_CHECK} interrupt $<TARGET_FILE:mpibex> ${MBX_OUT}/repeat_int
                 ${MPIEXEC_EXECUTABLE})
set_tests_properties(repeat.interrupt.n2 PROPERTIES TIMEOUT 240 LABELS "mpi;repeat" PROCESSORS 2)

# Bad input: exit 2, one line on stderr, OUT (a directory for repeat, the
# -o file for compare) not created. The command line's cases, repeat.bad.*
# and compare.bad.*, run in process (tests/cmd/test_badinput.c); these two
# start processes (a launcher that does not exist, a launch of mpiexec).
function(mbx_repeat_bad name regex out)
  add_test(NAME ${name} COMMAND bash ${MBX_EXPECT_BAD} "${regex}" ${out} -- $<TARGET_FILE:mpibex> ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS "repeat;compare;badinput")
endfunction()

set(_d ${MBX_OUT}/repeat_bad)
file(MAKE_DIRECTORY ${_d})
set(_run -- --bench pingpong.send_recv --sizes 8 --nmax 20)
mbx_repeat_bad(repeat.bad.mpiexec "^mpibex repeat: --mpiexec: cannot run '/nonexistent/mpiexec': No such file or directory" ${_d}/i
  repeat -k 2 --mpiexec /nonexistent/mpiexec ${_run} -o ${_d}/i)
# Bad input only the run can see (an unknown benchmark): launch 1 exits 2,
# nothing is left behind.
mbx_repeat_bad(repeat.bad.launch_refuses "^mpibex repeat: launch 1 refused its input: mpibex: bench: unknown benchmark 'nope'" ${_d}/j
  repeat -k 2 --mpiexec ${MPIEXEC_EXECUTABLE} -- --bench nope -o ${_d}/j)
set_tests_properties(repeat.bad.launch_refuses PROPERTIES LABELS "mpi;repeat;badinput" PROCESSORS 2)
add_test(NAME repeat.help COMMAND mpibex repeat --help)
set_tests_properties(repeat.help PROPERTIES TIMEOUT 30 LABELS repeat
  PASS_REGULAR_EXPRESSION "Usage: mpibex repeat -k K")

add_test(NAME compare.help COMMAND mpibex compare --help)
set_tests_properties(compare.help PROPERTIES TIMEOUT 30 LABELS compare
  PASS_REGULAR_EXPRESSION "Usage: mpibex compare A B")
