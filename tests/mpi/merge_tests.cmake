# mpibex merge: a plain command, no MPI. Bad input exits 2 with one line on
# stderr and writes nothing; a merge of two real runs has one row per point
# with runs = 2. Each test uses its own directory under ${MBX_OUT}.
set(MBX_MERGE_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/mpi/merge_check.sh)

function(mbx_merge_bad name regex)
  set(dir ${MBX_OUT}/merge_${name})
  list(TRANSFORM ARGN REPLACE "^@/" "${dir}/")
  add_test(NAME merge.bad.${name}
           COMMAND bash ${MBX_MERGE_CHECK} bad $<TARGET_FILE:mpibex> ${dir} "${regex}" -- ${ARGN})
  set_tests_properties(merge.bad.${name} PROPERTIES TIMEOUT 30 LABELS "merge;badinput")
endfunction()

# "@/" stands for the test's fixture directory (see merge_check.sh).
mbx_merge_bad(missing_file "^mpibex merge: cannot read '.*/nope\\.csv': No such file or directory$"
  @/good.csv @/nope.csv -o @/out.csv)
mbx_merge_bad(env_file "'.*/env\\.csv' is not an mpibex results CSV: no 'benchmark' column$"
  @/good.csv @/env.csv -o @/out.csv)
mbx_merge_bad(missing_column "'.*/nomedian\\.csv' is not an mpibex results CSV: no 'median_us' column$"
  @/nomedian.csv -o @/out.csv)
mbx_merge_bad(field_count "/short\\.csv:3: 3 fields, the header has 26$"
  @/good.csv @/short.csv -o @/out.csv)
mbx_merge_bad(no_input "^mpibex merge: no input files" -o @/out.csv)
mbx_merge_bad(no_output "^mpibex merge: -o OUT\\.csv is required" @/good.csv)
mbx_merge_bad(output_is_input "^mpibex merge: -o: the output '.*/good2\\.csv' is also an input$"
  @/good.csv @/good2.csv -o @/good2.csv)
mbx_merge_bad(output_same_file "the output '.*/\\./good\\.csv' is also an input$"
  @/good.csv -o @/./good.csv)
mbx_merge_bad(two_outputs "^mpibex merge: -o: only one output" @/good.csv -o @/out.csv -o @/out2.csv)
mbx_merge_bad(unknown_option "^mpibex merge: unknown option '--frob'" @/good.csv --frob -o @/out.csv)
mbx_merge_bad(unwritable_output "^mpibex merge: -o: cannot write '.*/nodir/out\\.csv'"
  @/good.csv -o @/nodir/out.csv)

add_test(NAME merge.stdout COMMAND bash ${MBX_MERGE_CHECK} stdout $<TARGET_FILE:mpibex> ${MBX_OUT}/merge_stdout)
set_tests_properties(merge.stdout PROPERTIES TIMEOUT 30 LABELS merge)
add_test(NAME merge.help COMMAND mpibex merge --help)
set_tests_properties(merge.help PROPERTIES TIMEOUT 30 LABELS merge
  PASS_REGULAR_EXPRESSION "Usage: mpibex merge A\\.csv B\\.csv \\.\\.\\. -o OUT\\.csv")

# Two real runs (MPI), then the merge (no MPI).
add_test(NAME merge.real.n2
         COMMAND bash ${MBX_MERGE_CHECK} real $<TARGET_FILE:mpibex> ${MBX_OUT}/merge_real --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS})
set_tests_properties(merge.real.n2 PROPERTIES TIMEOUT 120 LABELS "mpi;merge" PROCESSORS 2)
