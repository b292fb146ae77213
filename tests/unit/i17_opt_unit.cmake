# Issue 17, one argument-parser style: the options parser of every front
# end (tui/core/opt.c, in mbx_tuicore).
mbx_cmocka_test(unit test_opt mbx_tuicore)
