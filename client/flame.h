/*
 * flame: a flame graph of folded counts as one self-contained SVG file --
 * a rectangle per frame, as wide as its count, callers below callees,
 * coloured by a stable hash of the frame's name (a warm palette); a
 * tooltip with the count and the share of the total; click to zoom into a
 * frame, "Reset Zoom"; "Search" takes a regular expression, highlights
 * the frames it matches and shows the share of events under them
 * ("?s=REGEX" in the file's URL searches at load).
 *
 * Each frame is a <g> with data-s (its first event, counted from 0),
 * data-n (its events), data-d (its depth; 0 is "all") and data-f (its
 * name): the embedded script lays out zoom and search from those alone.
 * Names are XML-escaped; bytes that are not valid UTF-8 or control
 * characters become U+FFFD and '?', so the file is always well formed.
 *
 * Pure: folded counts in, SVG text out; no PCP, no threads, no globals.
 * Called by main at the end of a run (--flamegraph FILE.svg) and by the
 * unit tests (test/test_client_flame.c).
 */
#ifndef CLIENT_FLAME_H
#define CLIENT_FLAME_H

#include <stddef.h>
#include <stdio.h>

#include "fold.h"

#define FLAME_WIDTH         1200    /* pixels */
#define FLAME_FRAME_HEIGHT  16

/*
 * The len bytes at s as XML character data (also fit for attributes): bytes
 * that are not UTF-8, and U+FFFE and U+FFFF (not XML 1.0 characters), as
 * &#xFFFD;; control characters as ?.
 */
void put_xml(FILE *out, const char *s, size_t len);

/*
 * The flame graph of f, titled title, on out.  0, or -ENOMEM.  No counts
 * gives a graph of "all" alone, 0 events.
 */
int flame_svg(FILE *out, const struct folds *f, const char *title);

#endif
