/* Directories mpibex creates and cleans (engine/core/dir.c): a planted
 * symbolic link, a directory of another user and one anybody may write in
 * are refused before anything is removed; only picked names go; a link
 * inside goes as a link and its target's files survive; mkdir -p makes
 * every missing part 0700; the state directory is never a shared place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mbx/dir.h"

#ifndef MBX_TMP_DIR
#error "compile with -DMBX_TMP_DIR=\"<a writable directory>\""
#endif

static char root[512];

static void path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", root, name);
}

static void touch(const char *name)
{
    char p[600];
    path(p, sizeof p, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("keep me\n", f);
    fclose(f);
}

static int exists(const char *name)
{
    char p[600];
    struct stat st;
    path(p, sizeof p, name);
    return lstat(p, &st) == 0;
}

static void mkd(const char *name, mode_t mode)
{
    char p[600];
    path(p, sizeof p, name);
    assert_int_equal(mkdir(p, 0700), 0);
    assert_int_equal(chmod(p, mode), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "%s/test_dir_%ld", MBX_TMP_DIR, (long)getpid());
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0 || mkdir(root, 0700) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* A victim directory with two files, and a planted link to it. */
static void plant_victim(const char *link)
{
    char target[600], l[600];
    mkd("victim", 0755);
    touch("victim/t0");
    touch("victim/precious");
    path(target, sizeof target, "victim");
    path(l, sizeof l, link);
    assert_int_equal(symlink(target, l), 0);
}

static void victim_intact(void)
{
    assert_true(exists("victim/t0"));
    assert_true(exists("victim/precious"));
}

static int pick_t(const char *name, void *ud)
{
    (void)ud;
    return name[0] == 't';
}

static void test_planted_link_is_refused(void **state)
{
    (void)state;
    plant_victim("mpibex-beffio-h-1");
    char p[600];
    const char *why = NULL;
    path(p, sizeof p, "mpibex-beffio-h-1");
    assert_int_equal(mbx_dir_remove(AT_FDCWD, p, MBX_DIR_PRIVATE, NULL, NULL, &why), MBX_E_IO);
    assert_int_equal(errno, ELOOP);
    assert_string_equal(why, "it is a symbolic link");
    victim_intact();
    assert_true(exists("mpibex-beffio-h-1"));
    int fd = -1;
    assert_int_equal(mbx_dir_open_own(AT_FDCWD, p, 0, &fd, &why), MBX_E_IO);
    assert_int_equal(fd, -1);
}

static void test_link_inside_goes_as_a_link(void **state)
{
    (void)state;
    mkd("run", 0700);
    touch("run/t1");
    touch("run/t2.0");
    plant_victim("run/t3");
    char p[600];
    const char *why = NULL;
    path(p, sizeof p, "run");
    assert_int_equal(mbx_dir_remove(AT_FDCWD, p, MBX_DIR_PRIVATE, pick_t, NULL, &why), MBX_OK);
    assert_false(exists("run"));
    victim_intact();
}

static void test_only_picked_names_go(void **state)
{
    (void)state;
    mkd("run", 0700);
    touch("run/t0");
    touch("run/other");
    mkd("run/tsub", 0700);
    touch("run/tsub/t9");
    char p[600];
    const char *why = NULL;
    path(p, sizeof p, "run");
    assert_int_equal(mbx_dir_remove(AT_FDCWD, p, 0, pick_t, NULL, &why), MBX_E_IO);
    assert_int_equal(errno, ENOTEMPTY);
    assert_string_equal(why, "it holds files mpibex did not create");
    assert_false(exists("run/t0"));
    assert_true(exists("run/other"));
    assert_true(exists("run/tsub/t9")); /* never descended into */
    int fd;
    size_t gone = 9, left = 9;
    assert_int_equal(mbx_dir_open_own(AT_FDCWD, p, 0, &fd, &why), MBX_OK);
    assert_int_equal(mbx_dir_clean(fd, NULL, NULL, &gone, &left), MBX_OK);
    close(fd);
    assert_int_equal(gone, 1);
    assert_int_equal(left, 1);
    assert_false(exists("run/other"));
}

static void test_writable_by_others_is_refused(void **state)
{
    (void)state;
    mkd("open", 0777);
    touch("open/t0");
    char p[600];
    const char *why = NULL;
    path(p, sizeof p, "open");
    assert_int_equal(mbx_dir_remove(AT_FDCWD, p, MBX_DIR_PRIVATE, NULL, NULL, &why), MBX_E_IO);
    assert_int_equal(errno, EACCES);
    assert_string_equal(why, "other users can write in it");
    assert_true(exists("open/t0"));
    assert_int_equal(mbx_dir_make(p, MBX_DIR_PRIVATE, NULL, &why), MBX_E_IO);
    assert_int_equal(mbx_dir_make(p, 0, NULL, &why), MBX_OK);
}

static void test_other_owner_is_refused(void **state)
{
    (void)state;
    if (geteuid() != 0) {
        skip(); /* only root can give a directory away */
        return;
    }
    mkd("theirs", 0700);
    touch("theirs/t0");
    char p[600];
    const char *why = NULL;
    path(p, sizeof p, "theirs");
    const struct passwd *pw = getpwnam("nobody");
    uid_t uid = pw ? pw->pw_uid : 65534;
    assert_int_equal(chown(p, uid, (gid_t)-1), 0);
    assert_int_equal(mbx_dir_remove(AT_FDCWD, p, 0, NULL, NULL, &why), MBX_E_IO);
    assert_int_equal(errno, EPERM);
    assert_string_equal(why, "it belongs to another user");
    assert_true(exists("theirs/t0"));
    assert_int_equal(mbx_dir_make(p, 0, NULL, &why), MBX_E_IO);
}

static void test_missing(void **state)
{
    (void)state;
    char p[600];
    const char *why = NULL;
    path(p, sizeof p, "nothing");
    assert_int_equal(mbx_dir_remove(AT_FDCWD, p, MBX_DIR_MISSING_OK, NULL, NULL, &why), MBX_OK);
    assert_int_equal(mbx_dir_remove(AT_FDCWD, p, 0, NULL, NULL, &why), MBX_E_IO);
    assert_int_equal(errno, ENOENT);
    touch("plain");
    path(p, sizeof p, "plain");
    assert_int_equal(mbx_dir_remove(AT_FDCWD, p, 0, NULL, NULL, &why), MBX_E_IO);
    assert_string_equal(why, "it is not a directory");
    assert_true(exists("plain"));
}

static void test_make_parents(void **state)
{
    (void)state;
    char p[600];
    const char *why = NULL;
    int fd = -1;
    path(p, sizeof p, "a/b/c");
    assert_int_equal(mbx_dir_make(p, MBX_DIR_PRIVATE, &fd, &why), MBX_OK);
    assert_true(fd >= 0);
    close(fd);
    const char *parts[] = {"a", "a/b", "a/b/c"};
    for (int i = 0; i < 3; i++) {
        struct stat st;
        char q[600];
        path(q, sizeof q, parts[i]);
        assert_int_equal(lstat(q, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(st.st_mode & 077, 0);
    }
    /* again: all there */
    assert_int_equal(mbx_dir_make(p, MBX_DIR_PRIVATE, NULL, &why), MBX_OK);
    /* a file in the way */
    touch("f");
    path(p, sizeof p, "f/x");
    assert_int_equal(mbx_dir_make(p, 0, NULL, &why), MBX_E_IO);
    assert_int_equal(errno, ENOTDIR);
    assert_false(exists("f/x"));
    /* relative paths work from the current directory */
    char cwd[600];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(root), 0);
    assert_int_equal(mbx_dir_make("r/s", 0, NULL, &why), MBX_OK);
    assert_int_equal(chdir(cwd), 0);
    assert_true(exists("r/s"));
}

static void test_temp(void **state)
{
    (void)state;
    char p[600];
    const char *why = NULL;
    int fd = -1;
    assert_int_equal(mbx_dir_temp(root, "mpibex-rescue-", p, sizeof p, &fd, &why), MBX_OK);
    assert_true(fd >= 0);
    close(fd);
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(strncmp(p, root, strlen(root)), 0);
    assert_non_null(strstr(p, "/mpibex-rescue-"));
    char tiny[8];
    assert_int_equal(mbx_dir_temp(root, "x-", tiny, sizeof tiny, NULL, &why), MBX_E_RANGE);
}

static void test_state_path(void **state)
{
    (void)state;
    char p[600];
    assert_int_equal(mbx_dir_state_path("/x/state", "/home/u", p, sizeof p), MBX_OK);
    assert_string_equal(p, "/x/state/mpibex");
    assert_int_equal(mbx_dir_state_path("rel", "/home/u", p, sizeof p), MBX_OK);
    assert_string_equal(p, "/home/u/.local/state/mpibex");
    /* HOME unset or relative: the account's home, never /tmp */
    const struct passwd *pw = getpwuid(geteuid());
    for (int i = 0; i < 3; i++) {
        const char *home = i == 0 ? NULL : i == 1 ? "" : "relative";
        int rc = mbx_dir_state_path(NULL, home, p, sizeof p);
        if (pw && pw->pw_dir && pw->pw_dir[0] == '/') {
            char want[600];
            snprintf(want, sizeof want, "%s/.local/state/mpibex", pw->pw_dir);
            assert_int_equal(rc, MBX_OK);
            assert_string_equal(p, want);
        } else {
            assert_int_equal(rc, MBX_E_UNKNOWN);
        }
        assert_null(strstr(p, "/tmp/.local"));
    }
    char tiny[8];
    assert_int_equal(mbx_dir_state_path("/x", NULL, tiny, sizeof tiny), MBX_E_RANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_planted_link_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_link_inside_goes_as_a_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_only_picked_names_go, setup, teardown),
        cmocka_unit_test_setup_teardown(test_writable_by_others_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_owner_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_make_parents, setup, teardown),
        cmocka_unit_test_setup_teardown(test_temp, setup, teardown),
        cmocka_unit_test_setup_teardown(test_state_path, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
