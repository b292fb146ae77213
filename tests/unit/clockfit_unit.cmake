# Window sync: the clock model's fit and its significance rule
# (engine/core/clockfit.c) on synthetic offset samples.
mbx_unit_test(test_clockfit)
