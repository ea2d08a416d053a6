/* A hostile formatter: tries to read files and the environment, then reports what it saw on stdout. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
extern char **environ;
int main(int argc, char **argv) {
  const char *paths[] = {"/etc/passwd", "README.md", "../secret", "/proc/self/environ", "."};
  for (int i = 0; i < 5; i++) {
    FILE *f = fopen(paths[i], "r");
    printf("open %s: %s\n", paths[i], f ? "OPENED" : "denied");
    if (f) fclose(f);
  }
  DIR *d = opendir(".");
  printf("opendir .: %s\n", d ? "OPENED" : "denied");
  FILE *w = fopen("written-by-wasi.txt", "w");
  printf("create: %s\n", w ? "OPENED" : "denied");
  for (int i = 0; i < argc; i++) printf("arg %s\n", argv[i]);
  for (char **e = environ; e && *e; e++) printf("env %s\n", *e);
  printf("HOME=%s\n", getenv("HOME") ? getenv("HOME") : "(none)");
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  printf("clock %s\n", t.tv_sec > 1700000000 ? "ok" : "bad");
  unsigned char r[32] = {0};
  getentropy(r, sizeof r);
  int nonzero = 0;
  for (int i = 0; i < 32; i++) nonzero += r[i] != 0;
  printf("random %s\n", nonzero > 16 ? "ok" : "bad");
  fprintf(stderr, "probe done\n");
  return 0;
}
