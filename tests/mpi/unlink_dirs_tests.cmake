# Deleting through someone else's link: stale b_eff_io run
# directories that are links, not ours, or open to anybody are left alone.
foreach(_case beffio_stale)
  add_test(NAME security.unlink_${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/unlink_dirs.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> ${MBX_OUT} ${_case})
  set_tests_properties(security.unlink_${_case} PROPERTIES TIMEOUT 90 LABELS "security;mpi"
                                                           PROCESSORS 2)
endforeach()
foreach(_case report_force repeat_force)
  add_test(NAME security.unlink_${_case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/unlink_dirs.sh ${MPIEXEC_EXECUTABLE}
                   ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:mpibex> ${MBX_OUT} ${_case})
  set_tests_properties(security.unlink_${_case} PROPERTIES TIMEOUT 60 LABELS "security;report")
endforeach()
