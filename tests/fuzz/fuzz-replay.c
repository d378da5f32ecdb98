/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The main of a fuzz target built without libFuzzer: it replays every file
 * it is given, and every file of every directory it is given (in name
 * order), through the target's LLVMFuzzerTestOneInput, so that a plain
 * build runs each seed and each reproducer as a regression test. A crash,
 * a sanitizer report or a GLib critical ends it, as it does the fuzzer. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz-common.h"

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const gchar * const *) a, *(const gchar * const *) b);
}

static gboolean
replay_file (const gchar * path)
{
  gchar *contents = NULL;
  gsize length = 0;
  GError *error = NULL;

  if (!g_file_get_contents (path, &contents, &length, &error)) {
    g_printerr ("%s\n", error->message);
    g_error_free (error);
    return FALSE;
  }
  g_print ("replaying %s (%" G_GSIZE_FORMAT " bytes)\n", path, length);
  LLVMFuzzerTestOneInput ((const uint8_t *) contents, length);
  g_free (contents);
  return TRUE;
}

/* Replays @path, a file or a directory of files; adds the files replayed
 * to @n_files */
static gboolean
replay_path (const gchar * path, guint * n_files)
{
  GPtrArray *names;
  GDir *dir;
  const gchar *name;
  GError *error = NULL;
  gboolean ok = TRUE;
  guint i;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR)) {
    (*n_files)++;
    return replay_file (path);
  }

  dir = g_dir_open (path, 0, &error);
  if (dir == NULL) {
    g_printerr ("%s\n", error->message);
    g_error_free (error);
    return FALSE;
  }
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_build_filename (path, name, NULL));
  g_dir_close (dir);
  g_ptr_array_sort (names, compare_names);

  for (i = 0; i < names->len && ok; i++) {
    const gchar *file = g_ptr_array_index (names, i);

    if (g_file_test (file, G_FILE_TEST_IS_REGULAR)) {
      (*n_files)++;
      ok = replay_file (file);
    }
  }
  g_ptr_array_unref (names);
  return ok;
}

int
main (int argc, char **argv)
{
  guint n_files = 0;
  gint i;

  if (argc < 2) {
    g_printerr ("usage: %s FILE-OR-DIRECTORY...\n", argv[0]);
    return 2;
  }
  for (i = 1; i < argc; i++) {
    if (!replay_path (argv[i], &n_files))
      return 1;
  }
  if (n_files == 0) {
    g_printerr ("no input to replay\n");
    return 1;
  }
  g_print ("%u inputs replayed\n", n_files);
  return 0;
}
