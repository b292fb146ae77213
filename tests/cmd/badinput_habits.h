/* Cases of test_badinput.c's table (included inside it; cmd_tests.cmake
 * reads the names here too): what OSU and IMB users type, typos of options
 * and benchmark names ("did you mean"), globs that select nothing, and
 * `mpibex list`'s own bad input. A case's first line holds no ';' (the
 * list separator of CMake, which reads it): the expression starts on the
 * next line. */
/* clang-format off */
    {"badinput.osu_m", RUN_PARSE, 0, NULL, 2,
     "^mpibex: -m: OSU's message-size range; mpibex takes --sizes MIN:MAX\\[:FACTOR\\] \\(OSU's "
     "-m 1:4096 is --sizes 1:4KiB\\)$", {"-m", "1:4096"}},
    {"badinput.osu_m_value", RUN_PARSE, 0, NULL, 2,
     "^mpibex: -m: OSU's message-size range; mpibex takes --sizes MIN:MAX\\[:FACTOR\\] \\(OSU's "
     "-m 8:65536 is --sizes 8:64KiB\\)$", {"--bench", "coll.bcast", "-m", "8:65536"}},
    {"badinput.osu_m_glued", RUN_PARSE, 0, NULL, 2,
     "^mpibex: -m: .*\\(OSU's -m 4096 is --sizes 0:4KiB\\)$", {"-m4096"}},
    {"badinput.osu_m_long", RUN_PARSE, 0, NULL, 2,
     "^mpibex: -m: .*\\(OSU's -m 1:1048576 is --sizes 1:1MiB\\)$", {"--message-size=1:1048576"}},
    {"badinput.osu_m_not_value", RUN_PARSE, 0, NULL, 2,
     "^mpibex: -m: .*\\(OSU's -m 1:4096 is --sizes 1:4KiB\\)$", {"-m", "lots"}},
    {"badinput.osu_i_value", RUN_PARSE, 0, NULL, 2,
     "^mpibex: -i: OSU's timed iterations; .*\\(OSU's -i 500 is --stop fixed:500\\)$",
     {"-i", "500"}},
    {"badinput.imb_msglog_value", RUN_PARSE, 0, NULL, 2,
     "^mpibex: -msglog: .*\\(IMB's -msglog 2:20 is --sizes 4:1MiB\\)$", {"-msglog", "2:20"}},
    {"badinput.imb_npmax", RUN_PARSE, 0, NULL, 2,
     "^mpibex: -npmax: a largest process count; mpibex takes --procs A:B\\[:F\\], a range that "
     "ends at the job's ranks \\(-npmax 4 is --procs 2:4\\)$", {"-npmax", "4"}},
    {"badinput.sizes_decimal_unit", RUN, 2, NULL, 2,
     "^mpibex: --sizes: MAX: \"4MB\": unknown suffix \"MB\" \\(did you mean 4MiB\\?\\); expected ",
     {"--bench", "coll.bcast", "--sizes", "1:4MB"}},
    {"badinput.osu_name", RUN, 2, NULL, 2,
     "^mpibex: bench: unknown benchmark 'allreduce' in \\[cli\\]; did you mean coll\\.allreduce\\? "
     "\\(see 'mpibex list'", {"--bench", "pingpong.send_recv,allreduce"}},
    {"badinput.imb_name", RUN, 2, NULL, 2,
     "^mpibex: bench: unknown benchmark 'Bcast' in \\[cli\\]; did you mean coll\\.bcast\\? ",
     {"--bench", "Bcast"}},
    {"badinput.osu_x", RUN_PARSE, 0, NULL, 2,
     "^mpibex: -x: OSU's warm-up iterations; mpibex takes --warmup N ",
     {"--bench", "coll.bcast", "-x", "100"}},
    {"badinput.imb_iter", RUN_PARSE, 0, NULL, 2,
     "^mpibex: -iter: IMB's repetitions; .*--stop fixed:N .*--nmax N", {"-iter", "100"}},
    {"badinput.imb_time", RUN_PARSE, 0, NULL, 2,
     "^mpibex: -time: IMB's time cap per message size; mpibex takes --point-time SEC per point "
     "\\(--time-limit SEC caps the whole run\\)$", {"-time", "1"}},
    {"badinput.imb_msglog", RUN_PARSE, 0, NULL, 2,
     "^mpibex: -msglog: .*--sizes MIN:MAX",
     {"--bench", "coll.bcast", "-msglog", "3:10"}},
    {"badinput.option_typo", RUN_PARSE, 0, NULL, 2,
     "^mpibex: unknown option '--bnech' \\(see 'mpibex run --help'\\); did you mean --bench\\?$",
     {"--bnech", "coll.bcast"}},
    {"badinput.bench_typo", RUN, 2, NULL, 2,
     "^mpibex: bench: unknown benchmark 'coll\\.alreduce' in \\[cli\\]; did you mean "
     "coll\\.allreduce\\? \\(see 'mpibex list' for the [0-9]+ available\\)$",
     {"--bench", "coll.alreduce"}},
    {"badinput.bench_glob_none", RUN, 2, NULL, 2,
     "^mpibex: bench: 'nope\\.\\*' matches no benchmark in \\[cli\\] \\(see 'mpibex list'",
     {"--bench", "coll.bcast,nope.*"}},
    {"badinput.bench_group_typo", RUN, 2, NULL, 2,
     "^mpibex: bench: 'colll\\.i\\*' matches no benchmark in \\[cli\\]; did you mean coll\\.i\\*\\?",
     {"--bench", "colll.i*"}},
    {"list.bad.unknown_option", LIST, 0, NULL, 2,
     "^mpibex list: unknown option '--frob' \\(see 'mpibex list --help'\\)$", {"--frob"}},
    {"list.bad.unknown_name", LIST, 0, NULL, 2,
     "^mpibex list: unknown benchmark 'coll\\.alreduce'; did you mean coll\\.allreduce\\?$",
     {"coll.*", "coll.alreduce"}},
    {"list.bad.osu_name", LIST, 0, NULL, 2,
     "^mpibex list: unknown benchmark 'osu_bw'; did you mean bw\\.uni\\?$", {"osu_bw"}},
    {"list.bad.imb_name", LIST, 0, NULL, 2,
     "^mpibex list: unknown benchmark 'PingPong'; did you mean pingpong\\.send_recv\\?$",
     {"PingPong"}},
    {"list.bad.glob_none", LIST, 0, NULL, 2,
     "^mpibex list: 'nope\\.\\*' matches no benchmark \\(see 'mpibex list'\\)$", {"nope.*"}},
    /* clang-format on */
