/* stdin -> stdout, in chunks: the WASI formatter contract at its simplest. */
#include <stdio.h>
int main(void) {
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, stdin)) > 0) fwrite(buffer, 1, n, stdout);
  return 0;
}
