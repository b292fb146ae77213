# --validate for every master-worker variant: the master fills each piece
# with its number, workers check the pieces and answer with derived results,
# the master checks that every piece came back once and right, and the
# pieces the workers counted add up. Included from mpi_tests.cmake
# (mbx_run_and_check, MBX_OUT). The CSV must name the work-piece parameter
# (the default, 16 pieces), the master's timing and root 0.
set(MBX_MW_VARIANTS send ssend isend bsend waitany waitsome)
set(MBX_MW_COLS "--col param=16 --col param_name=pieces --col timing=master --col root=0 --col validated=yes")

foreach(v IN LISTS MBX_MW_VARIANTS)
  # One worker; 64K is past the eager limit, so rendezvous pieces too.
  mbx_run_and_check(mpi.validate.mw.${v}.n2 2 120 ${MBX_OUT}/val_mw_${v}2.csv
    RUN run --bench mw.${v} --sizes 1,1K,64K --nmax 50 --validate --span 0 -q
        -o ${MBX_OUT}/val_mw_${v}2.csv
    CHECK "--procs 2 --rows 3 --bench mw.${v} ${MBX_MW_COLS}")
  # Three workers compete for the master; kept tiny for 2 cores.
  mbx_run_and_check(mpi.validate.mw.${v}.n4 4 180 ${MBX_OUT}/val_mw_${v}4.csv
    RUN run --bench mw.${v} --sizes 1,4K --stop fixed:10 --validate --span 0 -q
        -o ${MBX_OUT}/val_mw_${v}4.csv
    CHECK "--procs 4 --rows 2 --bench mw.${v} ${MBX_MW_COLS}")
endforeach()
