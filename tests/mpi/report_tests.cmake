# mpibex report: plots (gnuplot) and index pages from results files. No MPI
# except report.real.n2. Each test has its own directory under ${MBX_OUT};
# report_check.sh writes its fixtures there (report_fixtures.py, python3).
set(MBX_REPORT_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/mpi/report_check.sh)

function(mbx_report_test name timeout)
  add_test(NAME report.${name}
           COMMAND bash ${MBX_REPORT_CHECK} ${ARGN})
  set_tests_properties(report.${name} PROPERTIES TIMEOUT ${timeout} LABELS report)
endfunction()

mbx_report_test(synthetic 120 synthetic $<TARGET_FILE:mpibex> ${MBX_OUT}/report_synthetic)
mbx_report_test(single 60 single $<TARGET_FILE:mpibex> ${MBX_OUT}/report_single)
mbx_report_test(force 60 force $<TARGET_FILE:mpibex> ${MBX_OUT}/report_force)
mbx_report_test(nognuplot 30 nognuplot $<TARGET_FILE:mpibex> ${MBX_OUT}/report_nognuplot)
foreach(_kind fail warn silent)
  mbx_report_test(gnuplot_${_kind} 30 fakegp $<TARGET_FILE:mpibex> ${MBX_OUT}/report_gp_${_kind} ${_kind})
endforeach()

# Bad input: exit 2, one line; "@/" is the test's fixture directory.
function(mbx_report_bad name regex)
  set(dir ${MBX_OUT}/report_bad_${name})
  add_test(NAME report.bad.${name}
           COMMAND bash ${MBX_REPORT_CHECK} bad $<TARGET_FILE:mpibex> ${dir} "${regex}" -- ${ARGN})
  set_tests_properties(report.bad.${name} PROPERTIES TIMEOUT 30 LABELS "report;badinput")
endfunction()

mbx_report_bad(missing_file "^mpibex report: cannot read '.*/nope\\.csv': No such file or directory$"
  @/a.csv @/nope.csv -o @/out)
mbx_report_bad(env_file "'.*/a\\.env\\.csv' is not an mpibex results or merged CSV: no 'benchmark' column$"
  @/a.env.csv -o @/out)
mbx_report_bad(obs_file "'.*/a\\.obs\\.csv' is not an mpibex results or merged CSV: no 'median_us' column$"
  @/a.csv @/a.obs.csv -o @/out)
mbx_report_bad(bad_number "/badnum\\.csv:2: bytes: expected a whole number >= 0 \\(got 'abc'\\)$"
  @/badnum.csv -o @/out)
mbx_report_bad(field_count "/short\\.csv:2: 3 fields, the header has 5$" @/short.csv -o @/out)
mbx_report_bad(quote "'.*/quote\\.csv' is not valid CSV" @/quote.csv -o @/out)
mbx_report_bad(no_launches "'.*/nolaunch' is a directory without launch-\\*\\.csv files" @/nolaunch -o @/out)
mbx_report_bad(no_input "^mpibex report: no input files" -o @/out)
mbx_report_bad(no_output "^mpibex report: -o DIR is required" @/a.csv)
mbx_report_bad(not_empty "^mpibex report: -o: '.*/full' already holds results \\('.*'\\); --force replaces them"
  @/a.csv -o @/full)
mbx_report_bad(output_is_file "^mpibex report: -o: '.*/b\\.csv' exists and is not a directory"
  @/a.csv -o @/b.csv)
mbx_report_bad(output_is_input "^mpibex report: -o: the output '.*/rep1' is also an input$"
  @/rep1 -o @/rep1 --force)
mbx_report_bad(no_parent "^mpibex report: -o: cannot create directory '.*/nodir/out'" @/a.csv -o @/nodir/out)
mbx_report_bad(alpha "^mpibex report: --alpha: expected a number between 0 and 1" @/a.csv -o @/out --alpha 1)
mbx_report_bad(unknown_option "^mpibex report: unknown option '--frob'" @/a.csv --frob -o @/out)
mbx_report_bad(two_outputs "^mpibex report: -o: only one report directory" @/a.csv -o @/out -o @/out2)

add_test(NAME report.help COMMAND mpibex report --help)
set_tests_properties(report.help PROPERTIES TIMEOUT 30 LABELS report
  PASS_REGULAR_EXPRESSION "Usage: mpibex report FILES\\.\\.\\. -o DIR")

# Two real runs with raw observations, then the report (no MPI).
add_test(NAME report.real.n2
         COMMAND bash ${MBX_REPORT_CHECK} real $<TARGET_FILE:mpibex> ${MBX_OUT}/report_real --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS})
set_tests_properties(report.real.n2 PROPERTIES TIMEOUT 180 LABELS "mpi;report" PROCESSORS 2)
