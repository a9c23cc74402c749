/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Run fuzz inputs (files, or every file in a directory) through a target
 * without libFuzzer: the corpora and the regression inputs run this way
 * in the unit tests, under ASan/UBSan, with any compiler.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;

    if (!f) {
        perror(path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "%s: read failed\n", path);
        fclose(f);
        free(buf);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int runs = 0, bad = 0;

    for (int i = 1; i < argc; i++) {
        struct stat st;

        if (stat(argv[i], &st)) {
            perror(argv[i]);
            return 1;
        }
        if (S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;

            while (d && (e = readdir(d))) {
                char p[4096];

                if (e->d_name[0] == '.') {
                    continue;
                }
                snprintf(p, sizeof(p), "%s/%s", argv[i], e->d_name);
                bad += run_file(p);
                runs++;
            }
            if (d) {
                closedir(d);
            }
        } else {
            bad += run_file(argv[i]);
            runs++;
        }
    }
    printf("ok 1 - %d inputs replayed\n1..1\n", runs);
    return bad || !runs;
}
