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
# -o file for compare) not created.
function(mbx_repeat_bad name regex out)
  add_test(NAME ${name} COMMAND bash ${MBX_EXPECT_BAD} "${regex}" ${out} -- $<TARGET_FILE:mpibex> ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS "repeat;compare;badinput")
endfunction()

set(_d ${MBX_OUT}/repeat_bad)
file(MAKE_DIRECTORY ${_d})
set(_run -- --bench pingpong.send_recv --sizes 8 --nmax 20)
mbx_repeat_bad(repeat.bad.no_k "^mpibex repeat: -k: missing; allowed 1\\.\\.999 launches$" ${_d}/a
  repeat ${_run} -o ${_d}/a)
mbx_repeat_bad(repeat.bad.k_range "^mpibex repeat: -k: expected launches 1\\.\\.999, got 0$" ${_d}/b
  repeat -k 0 ${_run} -o ${_d}/b)
mbx_repeat_bad(repeat.bad.n_range "^mpibex repeat: -n: expected ranks 1\\.\\.4096, got x$" ${_d}/c
  repeat -k 2 -n x ${_run} -o ${_d}/c)
mbx_repeat_bad(repeat.bad.no_dir "^mpibex repeat: -o DIR is required" ${_d}/d repeat -k 2 ${_run})
mbx_repeat_bad(repeat.bad.run_option "^mpibex repeat: --settle: expected seconds in 0\\.\\.60 \\(got '99'\\)$" ${_d}/e
  repeat -k 2 ${_run} --settle 99 -o ${_d}/e)
mbx_repeat_bad(repeat.bad.resume "^mpibex repeat: --resume: not with repeat" ${_d}/f
  repeat -k 2 ${_run} --resume -o ${_d}/f)
mbx_repeat_bad(repeat.bad.fake "^mpibex repeat: --fake: not with repeat, its launches are MPI jobs" ${_d}/i
  repeat -k 2 ${_run} --fake 2 -o ${_d}/i)
mbx_repeat_bad(repeat.bad.option_before "^mpibex repeat: unknown option '--bench'; run options go after '--'" ${_d}/g
  repeat -k 2 --bench pingpong.send_recv -o ${_d}/g)
mbx_repeat_bad(repeat.bad.not_a_dir "^mpibex repeat: -o: '.*/repeat_tests\\.cmake' exists and is not a directory" ${_d}/h
  repeat -k 2 ${_run} -o ${CMAKE_CURRENT_SOURCE_DIR}/mpi/repeat_tests.cmake)
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

# compare: fixtures written at configure time (a results CSV without
# observations, a file that is no results table).
set(_c ${MBX_OUT}/compare_bad)
file(MAKE_DIRECTORY ${_c})
file(WRITE ${_c}/noobs.csv "benchmark,procs,bytes,median_us,status,label\npingpong.send_recv,2,8,1.0,SETTLED,cli\n")
file(WRITE ${_c}/env.csv "key,value\nformat_version,1\n")
mbx_repeat_bad(compare.bad.alpha "^mpibex compare: --alpha: expected 0 < ALPHA < 1, got 2$" ${_c}/out.csv
  compare ${_c}/noobs.csv ${_c}/noobs.csv --alpha 2 -o ${_c}/out.csv)
mbx_repeat_bad(compare.bad.missing "^mpibex compare: cannot read '.*/nope\\.csv': No such file or directory$" ${_c}/out.csv
  compare ${_c}/nope.csv ${_c}/noobs.csv -o ${_c}/out.csv)
mbx_repeat_bad(compare.bad.no_obs "^mpibex compare: .*/noobs\\.csv: no observations beside it \\(.*/noobs\\.obs\\.csv\\); run with --raw, or compare directories of launches from mpibex repeat$" ${_c}/out.csv
  compare ${_c}/noobs.csv ${_c}/noobs.csv -o ${_c}/out.csv)
mbx_repeat_bad(compare.bad.not_a_table "^mpibex compare: '.*/env\\.csv' is not an mpibex results CSV: no 'benchmark' column$" ${_c}/out.csv
  compare ${_c}/env.csv ${_c}/noobs.csv -o ${_c}/out.csv)
mbx_repeat_bad(compare.bad.one_input "^mpibex compare: expected two inputs A and B" ${_c}/out.csv
  compare ${_c}/noobs.csv -o ${_c}/out.csv)
mbx_repeat_bad(compare.bad.one_launch "^mpibex compare: .*/compare_bad: 0 launches \\(.*\\); a directory side needs at least 2" ${_c}/out.csv
  compare ${_c} ${_c} -o ${_c}/out.csv)
mbx_repeat_bad(compare.bad.ignore "^mpibex compare: --ignore: unknown key part 'size'; allowed benchmark, label" ${_c}/out.csv
  compare ${_c}/noobs.csv ${_c}/noobs.csv --ignore size -o ${_c}/out.csv)
add_test(NAME compare.help COMMAND mpibex compare --help)
set_tests_properties(compare.help PROPERTIES TIMEOUT 30 LABELS compare
  PASS_REGULAR_EXPRESSION "Usage: mpibex compare A B")
# -o must not overwrite an input: a launch file of an input directory.
mbx_repeat_bad(compare.bad.output_in_input "^mpibex compare: -o: the output '.*/launch-01\\.csv' is part of the input" ${_c}/launch-01.csv
  compare ${_c} ${_c} -o ${_c}/launch-01.csv)
