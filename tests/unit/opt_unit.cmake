# One argument-parser style: the options parser of every front
# end (tui/core/opt.c, in mbx_tuicore).
mbx_cmocka_test(unit test_opt mbx_tuicore)

# The PMI "finalize" a job that leaves without MPI_Finalize sends
# (tui/cmd/pmi.c, in mbx_cmd), against a fake process manager.
mbx_cmocka_test(unit test_pmi mbx_cmd)

# The guidelines' plan that `mpibex guidelines` and the explorer's
# guidelines screen share (tui/cmd/glplan.c, in mbx_cmd): the sizes each
# rule takes, twin sections, the summary of a rule's verdicts.
mbx_cmocka_test(unit test_glplan mbx_cmd)
