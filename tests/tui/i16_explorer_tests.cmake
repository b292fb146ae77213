# The explorer on the scheduler (issue 16), headless on the fake back end:
# every curve's grid on screen after the first round, several passes a
# point in the autosave (and a stopped run saving each point once, as it
# stands), Send vs Send not distinguishable on pass medians and said to be
# interleaved.
add_test(NAME tui.i16_explorer
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/i16_explorer.sh $<TARGET_FILE:mpibex>
                 ${CMAKE_CURRENT_BINARY_DIR}/i16-explorer)
set_tests_properties(tui.i16_explorer PROPERTIES TIMEOUT 60 LABELS tui)
