# "Numbers that must not be reported": the pure rules (resolution,
# negative times, events) on synthetic observation arrays.
mbx_unit_test(test_numbers)
set_tests_properties(unit.test_numbers PROPERTIES LABELS "unit;fault")
