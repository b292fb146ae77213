# Untrusted text: the escaping of each sink (mbx/esc.h).
mbx_unit_test(test_esc)
set_tests_properties(unit.test_esc PROPERTIES LABELS "unit;security")
