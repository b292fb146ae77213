# mpibex report: plots (gnuplot) and index pages from results files. No MPI
# (report.real.n2 is in tests/mpi/mpi_tests.cmake). Each test has its own
# directory under ${MBX_OUT};
# report_check.sh writes its fixtures there (report_fixtures.py, python3).
set(MBX_REPORT_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/cmd/report_check.sh)

function(mbx_report_test name timeout)
  add_test(NAME report.${name}
           COMMAND bash ${MBX_REPORT_CHECK} ${ARGN})
  set_tests_properties(report.${name} PROPERTIES TIMEOUT ${timeout} LABELS report)
endfunction()

mbx_report_test(synthetic 120 synthetic $<TARGET_FILE:mpibex> ${MBX_OUT}/report_synthetic)
mbx_report_test(single 60 single $<TARGET_FILE:mpibex> ${MBX_OUT}/report_single)
mbx_report_test(force 60 force $<TARGET_FILE:mpibex> ${MBX_OUT}/report_force)
mbx_report_test(sized 60 sized $<TARGET_FILE:mpibex> ${MBX_OUT}/report_sized)
mbx_report_test(overlay 60 overlay $<TARGET_FILE:mpibex> ${MBX_OUT}/report_overlay)
mbx_report_test(nognuplot 30 nognuplot $<TARGET_FILE:mpibex> ${MBX_OUT}/report_nognuplot)
foreach(_kind fail warn silent)
  mbx_report_test(gnuplot_${_kind} 30 fakegp $<TARGET_FILE:mpibex> ${MBX_OUT}/report_gp_${_kind} ${_kind})
endforeach()
# Node pairs (mpibex pairs) drawn as heatmaps, from the samples in cmd/report_pairs/.
mbx_report_test(pairs_slow_node_named 60 pairs_slow_node $<TARGET_FILE:mpibex> ${MBX_OUT}/report_pairs_slow)
mbx_report_test(pairs_heatmap_without_verdicts 60 pairs_no_verdicts $<TARGET_FILE:mpibex>
                ${MBX_OUT}/report_pairs_nov)
mbx_report_test(pairs_per_rank_labels 60 pairs_per_rank $<TARGET_FILE:mpibex> ${MBX_OUT}/report_pairs_rank)

# Bad input: report.bad.*, in process (tests/cmd/test_badinput.c).

add_test(NAME report.help COMMAND mpibex report --help)
set_tests_properties(report.help PROPERTIES TIMEOUT 30 LABELS report
  PASS_REGULAR_EXPRESSION "Usage: mpibex report FILES\\.\\.\\. -o DIR")
