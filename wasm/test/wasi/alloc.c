/* Allocates 1 MiB blocks until malloc fails, touching each; reports how far it got. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
char *volatile keep;
int main(void) {
  size_t total = 0;
  for (;;) {
    char *block = malloc(1 << 20);
    if (!block) break;
    memset(block, 1, 1 << 20);
    keep = block;
    total += 1;
  }
  printf("allocated %zu MiB\n", total);
  return 3;
}
