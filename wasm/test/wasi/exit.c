/* Exits with the code given as its first argument, after a line on stderr. */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  fprintf(stderr, "exiting with %s\n", argc > 1 ? argv[1] : "0");
  fputs("partial output", stdout);
  return argc > 1 ? atoi(argv[1]) : 0;
}
