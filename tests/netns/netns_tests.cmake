# Multi-host tests on network namespaces of this one machine (tests/netns/
# cluster.sh): MPI traffic over a real TCP link between "hosts", and the
# explorer's socket bridge with rank 0 on another host than the terminal.
# They need root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and exit 77, counted as
# skipped, where namespaces cannot be made. They create and remove
# namespaces of fixed names (mbxh1.., mbxsw), hence one at a time: the
# CTest resource lock mbx_netns within one run (other tests go on beside
# them: a netns test's own figures are set by its shaped link or its Slurm
# clock, not by a free core), and a lock file (flock) so that two test
# runs on one machine (two build directories) wait for each other instead
# of tearing down each other's hosts.
# Included from tests/CMakeLists.txt after mpi/mpi_tests.cmake (csvcheck).
set(MBX_NETNS_LOCK /tmp/mpibex-netns.lock)
foreach(_mbx_netns_test IN ITEMS pingpong_two_hosts bridge_two_hosts)
  add_test(NAME netns.${_mbx_netns_test}
           COMMAND flock ${MBX_NETNS_LOCK} bash ${CMAKE_CURRENT_LIST_DIR}/${_mbx_netns_test}.sh
                   $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck>)
  set_tests_properties(netns.${_mbx_netns_test} PROPERTIES
                       TIMEOUT 180
                       LABELS netns
                       RESOURCE_LOCK mbx_netns
                       SKIP_RETURN_CODE 77)
endforeach()

# b_eff across two hosts, unshaped and with the link shaped to 400 Mbit/s
# (the shaped run moves 1 MiB messages at 48 MB/s).
add_test(NAME netns.beff_two_hosts
         COMMAND flock ${MBX_NETNS_LOCK} bash ${CMAKE_CURRENT_LIST_DIR}/beff_two_hosts.sh $<TARGET_FILE:mpibex>)
set_tests_properties(netns.beff_two_hosts PROPERTIES
                     TIMEOUT 600
                     LABELS "netns;beff"
                     RESOURCE_LOCK mbx_netns
                     SKIP_RETURN_CODE 77)

# bw.uni across two hosts over a link shaped to 200 Mbit/s: the streaming
# bandwidth at 1 MiB within 3 % of the link's TCP payload limit, and the
# aggregate of bw.multi's two pairs over the same link too.
add_test(NAME netns.bw_two_hosts
         COMMAND flock ${MBX_NETNS_LOCK} bash ${CMAKE_CURRENT_LIST_DIR}/bw_two_hosts.sh
                 $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck>)
set_tests_properties(netns.bw_two_hosts PROPERTIES
                     TIMEOUT 300
                     LABELS netns
                     RESOURCE_LOCK mbx_netns
                     SKIP_RETURN_CODE 77)

# mpibex pairs on five hosts: a slow host and a slow link, drawn at random
# and shaped with tc, named by the verdicts; nothing named where every link
# is alike (two runs of each here; the closing figures come from ten).
add_test(NAME netns.pairs_five_hosts
         COMMAND flock ${MBX_NETNS_LOCK} bash ${CMAKE_CURRENT_LIST_DIR}/pairs_hosts.sh
                 $<TARGET_FILE:mpibex> $<TARGET_FILE:csvcheck>)
set_tests_properties(netns.pairs_five_hosts PROPERTIES
                     TIMEOUT 600
                     LABELS netns
                     RESOURCE_LOCK mbx_netns
                     SKIP_RETURN_CODE 77)
