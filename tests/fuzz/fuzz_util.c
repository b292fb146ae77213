#include "fuzz_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[4096];

char *mbx_fuzz_cstr(const uint8_t *data, size_t len)
{
    char *s = malloc(len + 1);
    if (s == NULL)
        abort();
    if (len > 0)
        memcpy(s, data, len);
    s[len] = '\0';
    return s;
}

size_t mbx_fuzz_split(const uint8_t *data, size_t len, const uint8_t **part, size_t *plen,
                      size_t max)
{
    const size_t seplen = sizeof MBX_FUZZ_SEP - 1;
    size_t n = 0;
    while (n + 1 < max) {
        const uint8_t *sep = NULL;
        for (size_t i = 0; i + seplen <= len && sep == NULL; i++)
            if (memcmp(data + i, MBX_FUZZ_SEP, seplen) == 0)
                sep = data + i;
        if (sep == NULL)
            break;
        part[n] = data;
        plen[n++] = (size_t)(sep - data);
        len -= (size_t)(sep - data) + seplen;
        data = sep + seplen;
    }
    part[n] = data;
    plen[n++] = len;
    return n;
}

/* Remove everything under path (one file or a tree); errors are ignored. */
static void remove_tree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return;
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(path);
        for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char sub[sizeof dir + 512];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        if (d != NULL)
            closedir(d);
        (void)rmdir(path);
    } else {
        (void)unlink(path);
    }
}

static void remove_dir(void)
{
    if (dir[0] != '\0')
        remove_tree(dir);
}

const char *mbx_fuzz_dir(void)
{
    if (dir[0] == '\0') {
        /* tmpfs first: on ext4 a file truncated and written again is flushed
         * to disk at close (auto_da_alloc), which made the file-reading
         * targets seven times slower in /tmp. */
        const char *tmp = getenv("TMPDIR");
        if (tmp == NULL || *tmp == '\0')
            tmp = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir, sizeof dir, "%s/mbx-fuzz-XXXXXX", tmp);
        if (mkdtemp(dir) == NULL) {
            perror("mbx_fuzz_dir: mkdtemp");
            abort();
        }
        atexit(remove_dir);
    }
    return dir;
}

void mbx_fuzz_write(const char *name, const void *data, size_t len, char *path, size_t pathlen)
{
    const char *base = mbx_fuzz_dir();
    const char *slash = strchr(name, '/');
    if (slash != NULL) {
        char sub[sizeof dir + 512];
        snprintf(sub, sizeof sub, "%s/%.*s", base, (int)(slash - name), name);
        if (mkdir(sub, 0700) != 0 && errno != EEXIST) {
            perror("mbx_fuzz_write: mkdir");
            abort();
        }
    }
    snprintf(path, pathlen, "%s/%s", base, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const char *p = data;
    while (fd >= 0 && len > 0) {
        ssize_t w = write(fd, p, len);
        if (w <= 0)
            break;
        p += w;
        len -= (size_t)w;
    }
    if (fd < 0 || len > 0 || close(fd) != 0) {
        perror("mbx_fuzz_write");
        abort();
    }
}
