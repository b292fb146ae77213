# The explorer as a new user meets it, headless on the fake back end (one
# process each, a few seconds): form fields replaced by typing and put back
# by Esc, r on the run view and the footer's run keys, the compare
# chooser's cursor, e and w said on the results screen (a report reading
# the export), a large export asked about and written between ticks, and
# run's selection on the explorer's command line.
foreach(case form rerun chooser results export selection)
  add_test(NAME tui.explorer_frictions.${case}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/explorer_frictions.sh $<TARGET_FILE:mpibex>
                   ${CMAKE_CURRENT_BINARY_DIR}/explorer-frictions ${case})
  set_tests_properties(tui.explorer_frictions.${case} PROPERTIES TIMEOUT 120 LABELS tui)
endforeach()
