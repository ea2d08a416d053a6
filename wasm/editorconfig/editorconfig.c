/*
 * formatbox-editorconfig: applies EditorConfig properties to a text file, stdin to stdout.
 * The host resolves .editorconfig for the file and passes the properties as arguments:
 *
 *   --trim-trailing-whitespace   remove spaces and tabs at the end of every line
 *   --insert-final-newline=true  end a non-empty file with one line break (added when missing)
 *   --insert-final-newline=false end it without a line break (trailing breaks removed)
 *   --end-of-line=lf|crlf|cr     every line break becomes this one
 *   --indent-style=space|tab     leading whitespace re-written in spaces, or in tabs (and spaces
 *                                for a remainder), keeping its width
 *   --tab-width=N                columns of a tab (default 8); also the unit of tab indentation
 *   --keep-leading-tabs          never turn leading tabs into spaces (Makefile recipes need them)
 *   --charset=utf-8|utf-8-bom    drop or add the UTF-8 byte order mark
 *   --version                    print the name and version
 *
 * Exit 0 on success; 2 on a bad argument (message on stderr); 1 when out of memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VERSION "1.0.0"

typedef struct {
  int trim;
  int final_newline; /* -1 unset, 0 false, 1 true */
  const char *eol;   /* NULL: keep each line's own */
  int indent;        /* 0 unset, 's' space, 't' tab */
  int tab_width;
  int keep_leading_tabs;
  int bom; /* -1 keep, 0 remove, 1 add */
} options;

typedef struct {
  unsigned char *data;
  size_t length, capacity;
} buffer;

static void out_of_memory(void) {
  fputs("formatbox-editorconfig: out of memory\n", stderr);
  exit(1);
}

static void reserve(buffer *b, size_t extra) {
  if (b->length + extra <= b->capacity) return;
  size_t capacity = b->capacity ? b->capacity : 4096;
  while (capacity < b->length + extra) capacity *= 2;
  unsigned char *grown = realloc(b->data, capacity);
  if (!grown) out_of_memory();
  b->data = grown;
  b->capacity = capacity;
}

static void append(buffer *b, const void *bytes, size_t n) {
  reserve(b, n);
  memcpy(b->data + b->length, bytes, n);
  b->length += n;
}

static void append_repeated(buffer *b, unsigned char c, size_t n) {
  reserve(b, n);
  memset(b->data + b->length, c, n);
  b->length += n;
}

static int parse_args(int argc, char **argv, options *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--version") == 0) {
      printf("formatbox-editorconfig %s\n", VERSION);
      exit(0);
    } else if (strcmp(a, "--trim-trailing-whitespace") == 0) o->trim = 1;
    else if (strcmp(a, "--insert-final-newline=true") == 0) o->final_newline = 1;
    else if (strcmp(a, "--insert-final-newline=false") == 0) o->final_newline = 0;
    else if (strcmp(a, "--end-of-line=lf") == 0) o->eol = "\n";
    else if (strcmp(a, "--end-of-line=crlf") == 0) o->eol = "\r\n";
    else if (strcmp(a, "--end-of-line=cr") == 0) o->eol = "\r";
    else if (strcmp(a, "--indent-style=space") == 0) o->indent = 's';
    else if (strcmp(a, "--indent-style=tab") == 0) o->indent = 't';
    else if (strncmp(a, "--tab-width=", 12) == 0) {
      char *end;
      long width = strtol(a + 12, &end, 10);
      if (*end || width < 1 || width > 64) {
        fprintf(stderr, "formatbox-editorconfig: bad tab width: %s\n", a + 12);
        return 2;
      }
      o->tab_width = (int)width;
    } else if (strcmp(a, "--keep-leading-tabs") == 0) o->keep_leading_tabs = 1;
    else if (strcmp(a, "--charset=utf-8") == 0) o->bom = 0;
    else if (strcmp(a, "--charset=utf-8-bom") == 0) o->bom = 1;
    else {
      fprintf(stderr, "formatbox-editorconfig: unknown argument: %s\n", a);
      return 2;
    }
  }
  return 0;
}

/* Re-writes the leading whitespace [start, end) of a line, keeping its width in columns. */
static void indent(buffer *out, const unsigned char *start, const unsigned char *end, const options *o) {
  if (!o->indent || (o->indent == 's' && o->keep_leading_tabs && memchr(start, '\t', (size_t)(end - start)))) {
    append(out, start, (size_t)(end - start));
    return;
  }
  size_t column = 0;
  for (const unsigned char *p = start; p < end; p++) column = *p == '\t' ? (column / o->tab_width + 1) * o->tab_width : column + 1;
  if (o->indent == 's') {
    append_repeated(out, ' ', column);
  } else {
    append_repeated(out, '\t', column / o->tab_width);
    append_repeated(out, ' ', column % o->tab_width);
  }
}

int main(int argc, char **argv) {
  options o = {0, -1, NULL, 0, 8, 0, -1};
  int status = parse_args(argc, argv, &o);
  if (status) return status;

  buffer in = {0};
  for (;;) {
    reserve(&in, 65536);
    size_t n = fread(in.data + in.length, 1, in.capacity - in.length, stdin);
    if (n == 0) break;
    in.length += n;
  }

  const unsigned char *p = in.data, *end = in.data + in.length;
  int had_bom = in.length >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF;
  if (had_bom) p += 3;

  buffer out = {0};
  if (o.bom == 1 || (o.bom == -1 && had_bom)) append(&out, "\xEF\xBB\xBF", 3);
  size_t body_start = out.length;

  while (p < end) {
    const unsigned char *line = p;
    while (p < end && *p != '\n' && *p != '\r') p++;
    const unsigned char *content_end = p;
    const unsigned char *eol = p;
    size_t eol_length = 0;
    if (p < end) {
      eol_length = (*p == '\r' && p + 1 < end && p[1] == '\n') ? 2 : 1;
      p += eol_length;
    }
    const unsigned char *lead = line;
    while (lead < content_end && (*lead == ' ' || *lead == '\t')) lead++;
    const unsigned char *text_end = content_end;
    if (o.trim)
      while (text_end > lead && (text_end[-1] == ' ' || text_end[-1] == '\t')) text_end--;
    if (lead == content_end && o.trim) {
      /* A whitespace-only line becomes empty. */
    } else {
      indent(&out, line, lead, &o);
      append(&out, lead, (size_t)(text_end - lead));
    }
    if (eol_length) {
      if (o.eol) append(&out, o.eol, strlen(o.eol));
      else append(&out, eol, eol_length);
    }
  }

  if (o.final_newline == 1 && out.length > body_start) {
    unsigned char last = out.data[out.length - 1];
    if (last != '\n' && last != '\r') {
      const char *eol = o.eol ? o.eol : "\n";
      /* Without end_of_line, a file keeps the line break it uses most... its first one stands in. */
      if (!o.eol) {
        for (size_t i = body_start; i < out.length; i++) {
          if (out.data[i] == '\n') { eol = "\n"; break; }
          if (out.data[i] == '\r') { eol = (i + 1 < out.length && out.data[i + 1] == '\n') ? "\r\n" : "\r"; break; }
        }
      }
      append(&out, eol, strlen(eol));
    }
  } else if (o.final_newline == 0) {
    while (out.length > body_start && (out.data[out.length - 1] == '\n' || out.data[out.length - 1] == '\r')) out.length--;
  }

  fwrite(out.data ? out.data : (unsigned char *)"", 1, out.length, stdout);
  return 0;
}
