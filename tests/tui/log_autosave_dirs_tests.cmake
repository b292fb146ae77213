# The explorer's log and autosave directories. With HOME unset the
# launcher's log never goes to /tmp/.local/state; the autosave directory is
# made with every parent, and a failed autosave is in the closing line.
add_test(NAME security.unlink_home_unset
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/log_dir_home.sh
                 $<TARGET_FILE:launcher_driver> ${CMAKE_CURRENT_BINARY_DIR}/log-dir-home)
set_tests_properties(security.unlink_home_unset PROPERTIES TIMEOUT 60 LABELS "tui;security"
                                                           SKIP_RETURN_CODE 77)
add_test(NAME fault.autosave_dir
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tui/autosave_dir.sh $<TARGET_FILE:mpibex>
                 ${CMAKE_CURRENT_BINARY_DIR}/autosave-dir)
set_tests_properties(fault.autosave_dir PROPERTIES TIMEOUT 60 LABELS "tui;fault")
