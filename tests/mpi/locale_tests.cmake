# Locale independence: files, plans and command lines mean the
# same under de_DE.UTF-8 (decimal comma) and tr_TR.UTF-8 (dotless i) as
# under C. Both tests exit 77 / skip when the locales are not installed
# (CI installs locales-all, scripts/deps.sh).

# The ASCII helpers, sizes, stop rules, plans, result rows and sidecar
# values with setlocale(LC_ALL, ...) of each locale.
mbx_unit_test(test_locale)
set_property(TEST unit.test_locale APPEND PROPERTY LABELS badinput)

# The explorer (fake back end, headless: autosave and export byte for byte
# those under C), `mpibex run` on 2 ranks from a plan and a command line with
# 64KIB and stderr:0.03, and `mpibex merge` reading them all back.
add_test(NAME badinput.locale_files
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/locale.sh $<TARGET_FILE:mpibex>
                 $<TARGET_FILE:csvcheck> ${MBX_OUT}/locale --
                 ${MBX_MPIEXEC} 2 ${MPIEXEC_PREFLAGS})
set_tests_properties(badinput.locale_files PROPERTIES TIMEOUT 120 LABELS "mpi;badinput"
                     PROCESSORS 2 SKIP_RETURN_CODE 77)

# The class stays fixed: no direct strcasecmp, tolower, isspace, strtod,
# sscanf("%lf") or setlocale other than LC_CTYPE in engine/, tui/, include/.
add_test(NAME badinput.locale_lint COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/locale_lint.sh
                                           ${CMAKE_SOURCE_DIR})
set_tests_properties(badinput.locale_lint PROPERTIES TIMEOUT 30 LABELS badinput)
