/*
 * Unit tests for client/flame.c: XML escaping (markup characters, control
 * characters, bytes that are not UTF-8), and the frames of the SVG: one
 * per prefix of the folded keys, equal prefixes merged, each as wide as its
 * count, children inside their parent, widths that add up.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"

static char *buf;
static size_t buflen;

static const char *xml(const char *s, size_t len)
{
    free(buf);                  /* the previous call's */
    FILE *f = open_memstream(&buf, &buflen);
    assert_non_null(f);
    put_xml(f, s, len);
    fclose(f);
    return buf;
}

#define XML(lit) xml(lit, sizeof(lit) - 1)

static void test_escape(void **state)
{
    (void)state;
    assert_string_equal(XML("plain_name [ext4]"), "plain_name [ext4]");
    assert_string_equal(XML("<a & \"b\" 'c'>"), "&lt;a &amp; &quot;b&quot; &apos;c&apos;&gt;");
    assert_string_equal(XML("a\x01\tb\x7f"), "a??b?");
    assert_string_equal(XML("caf\xc3\xa9"), "caf\xc3\xa9");      /* UTF-8 stays */
    assert_string_equal(XML("x\xff\xc3y"), "x&#xFFFD;&#xFFFD;y");
    /* U+FFFE and U+FFFF are well-formed UTF-8 but not XML 1.0 characters */
    assert_string_equal(XML("a\xef\xbf\xbe" "b\xef\xbf\xbf" "c"), "a&#xFFFD;b&#xFFFD;c");
    assert_string_equal(XML("\xef\xbf\xbd\xef\xbf\xbc"), "\xef\xbf\xbd\xef\xbf\xbc");
    free(buf);
    buf = NULL;
}

/* A frame's g element, from its data-f, as the SVG has it. */
struct frame { unsigned long s, n; int d; char f[64]; double x, w; };

static size_t frames(const char *svg, struct frame *v, size_t max)
{
    size_t n = 0;
    for (const char *p = svg; n < max && (p = strstr(p, "<g data-s=")) != NULL; p++) {
        struct frame *fr = &v[n];
        assert_int_equal(sscanf(p, "<g data-s=\"%lu\" data-n=\"%lu\" data-d=\"%d\" "
                                "data-f=\"%63[^\"]\"", &fr->s, &fr->n, &fr->d, fr->f), 4);
        const char *r = strstr(p, "<rect x=\"");
        assert_non_null(r);
        assert_int_equal(sscanf(r, "<rect x=\"%lf\" y=\"%*d\" width=\"%lf\"", &fr->x, &fr->w), 2);
        n++;
    }
    return n;
}

static char *render(struct folds *f, const char *title)
{
    free(buf);                  /* the previous call's */
    FILE *fp = open_memstream(&buf, &buflen);
    assert_non_null(fp);
    assert_int_equal(flame_svg(fp, f, title), 0);
    fclose(fp);
    return buf;
}

static void test_frames(void **state)
{
    struct folds *f = calloc(1, sizeof(*f));
    struct frame v[32];
    (void)state;
    assert_non_null(f);
    /* "a;b c" sorts between "a;b" and "a;b;d" in byte order: still one "b" */
    assert_int_equal(folds_parse_line(f, "a;b 1"), 0);
    assert_int_equal(folds_parse_line(f, "a;b c 2"), 0);
    assert_int_equal(folds_parse_line(f, "a;b;d 3"), 0);
    assert_int_equal(folds_parse_line(f, "z;<&> 4"), 0);
    const char *svg = render(f, "t<&>");
    assert_non_null(strstr(svg, "<?xml version=\"1.0\""));
    assert_non_null(strstr(svg, ">t&lt;&amp;&gt;</text>"));
    assert_null(strstr(svg, "<&>"));
    assert_non_null(strstr(svg, "<title>z (4 events, 40.00%)</title>"));
    size_t n = frames(svg, v, 32);
    assert_int_equal(n, 7);         /* all, a, b, b c, d, z, <&> */
    assert_string_equal(v[0].f, "all");
    assert_int_equal(v[0].n, 10);
    assert_int_equal(v[0].d, 0);
    double width = v[0].w, depth1 = 0;
    unsigned long sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].d == 1) {
            sum += v[i].n;
            depth1 += v[i].w;
        }
        assert_true(v[i].w <= width + 0.01);
        assert_true(v[i].x >= v[0].x - 0.01 && v[i].x + v[i].w <= v[0].x + width + 0.02);
    }
    assert_int_equal(sum, 10);
    assert_true(depth1 > width - 0.02 && depth1 < width + 0.02);
    int b = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].f, "b") == 0) {
            b++;
            assert_int_equal(v[i].n, 4);            /* "a;b" and "a;b;d" */
            assert_int_equal(v[i].d, 2);
        }
    assert_int_equal(b, 1);
    assert_string_equal(v[6].f, "&lt;&amp;&gt;");
    assert_int_equal(v[6].s, 6);
    folds_free(f);
    free(f);
    free(buf);
    buf = NULL;
}

static void test_empty(void **state)
{
    struct folds f;
    struct frame v[2];
    (void)state;
    memset(&f, 0, sizeof(f));
    const char *svg = render(&f, "");
    assert_int_equal(frames(svg, v, 2), 1);
    assert_int_equal(v[0].n, 0);
    assert_non_null(strstr(svg, "</svg>\n"));
    free(buf);
    buf = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
