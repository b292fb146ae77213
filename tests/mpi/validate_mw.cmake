# --validate for every master-worker variant: the master fills each piece
# with its number, workers check the pieces and answer with derived results,
# the master checks that every piece came back once and right, and the
# pieces the workers counted add up. Included from mpi_tests.cmake
# (mbx_validate_twins). The CSV must name the work-piece parameter
# (the default, 16 pieces), the master's timing and root 0.
set(MBX_MW_VARIANTS send ssend isend bsend waitany waitsome)
set(MBX_MW_COLS "--col param=16 --col param_name=pieces --col timing=master --col root=0 --col validated=yes")

# n2: one worker; n4: three workers compete for the master.
foreach(v IN LISTS MBX_MW_VARIANTS)
  mbx_validate_twins(mw ${v} 1,4K "${MBX_MW_COLS}")
endforeach()
