# Cases found after the first fixes (tests/mpi/output_paths.sh).
# Each runs the real binary on 1 or 2 ranks (export_input: no launcher)
# for a few seconds.
function(mbx_output_paths name labels case np)
  add_test(NAME ${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/output_paths.sh ${case}
                   ${MBX_OUT}/output_paths $<TARGET_FILE:mpibex> -- ${MBX_MPIEXEC} ${np}
                   ${MPIEXEC_PREFLAGS})
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS "mpi;${labels}" PROCESSORS ${np})
endfunction()

mbx_output_paths(security.output.sidecar_name security sidecar_name 1)
mbx_output_paths(security.unlink_base_dir security base_dir 2)
mbx_output_paths(security.output.report_dir security report_dir 1)
mbx_output_paths(badinput.output.dev_stdout badinput dev_stdout 1)
mbx_output_paths(security.output.foreign_file security foreign_file 1)
set_tests_properties(security.output.foreign_file PROPERTIES SKIP_RETURN_CODE 77)

# The explorer with its fake back end needs no launcher.
add_test(NAME badinput.output.export_input
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/output_paths.sh export_input
                 ${MBX_OUT}/output_paths $<TARGET_FILE:mpibex> --)
set_tests_properties(badinput.output.export_input PROPERTIES TIMEOUT 60 LABELS "tui;badinput")

# How output and temporary files are created (tests/mpi/output_files.sh):
# another user's file, FIFO or directories made beforehand in a shared
# directory, a careless -o name, running out of descriptors.
function(mbx_output_files name case np)
  add_test(NAME ${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/output_files.sh ${case}
                   ${MBX_OUT}/output_files $<TARGET_FILE:mpibex>
                   $<TARGET_FILE:launcher_driver> -- ${MBX_MPIEXEC} ${np} ${MPIEXEC_PREFLAGS})
  set_tests_properties(${name} PROPERTIES TIMEOUT 120 LABELS "mpi;security" PROCESSORS ${np}
                                          SKIP_RETURN_CODE 77)
endfunction()

mbx_output_files(security.output.sorting_name sorting_name 1)
mbx_output_files(security.output.planted_temp planted_sorting 1)
mbx_output_files(security.output.probe_fifo probe_fifo 2)
mbx_output_files(security.output.log_planted log_planted 1)
mbx_output_files(security.beffio_premade_dirs beffio_premade 2)
mbx_output_files(security.output.header_only header_only 1)
