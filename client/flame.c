/* flame.c: a flame graph as SVG (client/flame.h). */
#include "flame.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define PAD         10.0
#define TOP         36          /* the title and the buttons */
#define BOTTOM      26          /* the details line */
#define FONT        12
#define CHAR_WIDTH  (FONT * 0.59)

/* A frame of the graph: a prefix of folded keys. */
struct node {
    const char *name;           /* into a key; len bytes */
    size_t len;
    uint64_t start, n;
    int depth;
    size_t last_child;          /* 0: none (node 0 is the root, no one's child) */
};

struct tree {
    struct node *v;
    size_t n, cap;
    int depth;                  /* the deepest frame's */
};

/* U+FFFE and U+FFFF (EF BF BE, EF BF BF): UTF-8, but not XML 1.0 characters. */
static bool xml_noncharacter(const unsigned char *u, size_t n)
{
    return n == 3 && u[0] == 0xef && u[1] == 0xbf && (u[2] == 0xbe || u[2] == 0xbf);
}

void put_xml(FILE *out, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;

    for (size_t i = 0; i < len;) {
        size_t skip, n = utf8_sequence(u + i, len - i, &skip);
        unsigned char c = u[i];
        if (n == 0 || xml_noncharacter(u + i, n)) {
            fputs("&#xFFFD;", out);
            i += n == 0 ? skip : n;
            continue;
        }
        if (n > 1)
            fwrite(u + i, 1, n, out);
        else if (c == '&')
            fputs("&amp;", out);
        else if (c == '<')
            fputs("&lt;", out);
        else if (c == '>')
            fputs("&gt;", out);
        else if (c == '"')
            fputs("&quot;", out);
        else if (c == '\'')
            fputs("&apos;", out);
        else if (c < 0x20 || c == 0x7f)
            fputc('?', out);
        else
            fputc(c, out);
        i += n;
    }
}

/* Frame by frame: ';' sorts before any other byte, so prefixes stay together. */
static int frame_order(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned x = *a == ';' ? 1 : *a ? (unsigned char)*a + 1u : 0;
        unsigned y = *b == ';' ? 1 : *b ? (unsigned char)*b + 1u : 0;
        if (x != y || x == 0)
            return (x > y) - (x < y);
    }
}

static int by_frames(const void *a, const void *b)
{
    return frame_order((*(struct fold *const *)a)->key, (*(struct fold *const *)b)->key);
}

static int tree_push(struct tree *t, const char *name, size_t len, uint64_t start, int depth)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        struct node *v = realloc(t->v, cap * sizeof(*v));
        if (v == NULL)
            return -ENOMEM;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = (struct node){ name, len, start, 0, depth, 0 };
    if (depth > t->depth)
        t->depth = depth;
    return 0;
}

/* Add one folded stack of count n, its events starting at start. */
static int tree_add(struct tree *t, const char *key, uint64_t n, uint64_t start)
{
    size_t at = 0;
    int depth = 0;

    t->v[0].n += n;
    for (const char *p = key; ; p++) {
        size_t len = strcspn(p, ";");
        struct node *last = t->v[at].last_child ? &t->v[t->v[at].last_child] : NULL;
        depth++;
        if (last == NULL || last->len != len || memcmp(last->name, p, len) != 0) {
            if (tree_push(t, p, len, start, depth) < 0)
                return -ENOMEM;
            t->v[at].last_child = t->n - 1;
        }
        at = t->v[at].last_child;
        t->v[at].n += n;
        p += len;
        if (*p == '\0')
            return 0;
    }
}

static int tree_build(struct tree *t, const struct folds *f)
{
    int err = 0;
    struct fold **v = folds_sorted(f, &err);
    uint64_t start = 0;

    if (err == 0)
        err = tree_push(t, "all", 3, 0, 0);
    if (v != NULL)
        qsort(v, f->distinct, sizeof(*v), by_frames);
    for (size_t i = 0; err == 0 && v != NULL && i < f->distinct; i++) {
        err = tree_add(t, v[i]->key, v[i]->n, start);
        start += v[i]->n;
    }
    free(v);
    return err;
}

/* A stable warm colour from the name: red high, green anywhere, little blue. */
static void put_colour(FILE *out, const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;

    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    unsigned r = 205 + (unsigned)(h % 51), g = (unsigned)((h >> 16) % 231),
             b = (unsigned)((h >> 32) % 56);
    fprintf(out, "rgb(%u,%u,%u)", r, g, b);
}

/* The name as it fits a box w pixels wide: all of it, or its start and "..". */
static void put_label(FILE *out, const struct node *d, double w)
{
    size_t fit = w > 2 * 3 ? (size_t)((w - 6) / CHAR_WIDTH) : 0;

    if (fit < 3)
        return;
    if (d->len <= fit) {
        put_xml(out, d->name, d->len);
        return;
    }
    size_t keep = fit - 2;
    while (keep > 0 && ((unsigned char)d->name[keep] & 0xc0) == 0x80)
        keep--;                 /* never half a UTF-8 sequence */
    put_xml(out, d->name, keep);
    fputs("..", out);
}

static void put_node(FILE *out, const struct tree *t, const struct node *d, int height)
{
    double scale = (FLAME_WIDTH - 2 * PAD) / (double)(t->v[0].n ? t->v[0].n : 1);
    double x = PAD + (double)d->start * scale, w = (double)d->n * scale;
    int y = height - BOTTOM - (d->depth + 1) * FLAME_FRAME_HEIGHT;
    double pct = t->v[0].n ? 100.0 * (double)d->n / (double)t->v[0].n : 0;

    fprintf(out, "<g data-s=\"%" PRIu64 "\" data-n=\"%" PRIu64 "\" data-d=\"%d\" data-f=\"",
            d->start, d->n, d->depth);
    put_xml(out, d->name, d->len);
    fputs("\"><title>", out);
    put_xml(out, d->name, d->len);
    fprintf(out, " (%" PRIu64 " event%s, %.2f%%)</title>", d->n, d->n == 1 ? "" : "s", pct);
    fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"",
            x, y, w, FLAME_FRAME_HEIGHT - 1);
    put_colour(out, d->name, d->len);
    fprintf(out, "\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">", x + 3,
            y + FLAME_FRAME_HEIGHT - 4.5);
    put_label(out, d, w);
    fputs("</text></g>\n", out);
}

/* The script: zoom, reset, search, details; it reads only the data-* attributes. */
static const char script[] =
"var W=" "1200" ",PAD=10,CW=" "7.08" ",frames,all,details,unzoom,matched,resetsearch;\n"
"var zs=0,zn=0,zd=0;\n"
"function num(g,a){return Number(g.getAttribute('data-'+a));}\n"
"function init(){\n"
"  frames=Array.prototype.slice.call(document.querySelectorAll('#frames > g'));\n"
"  all=num(frames[0],'n');zn=all;\n"
"  details=document.getElementById('details');unzoom=document.getElementById('unzoom');\n"
"  matched=document.getElementById('matched');resetsearch=document.getElementById('resetsearch');\n"
"  document.getElementById('frames').addEventListener('click',function(e){\n"
"    var g=e.target.closest('g[data-n]');if(g)zoom(g);});\n"
"  document.getElementById('frames').addEventListener('mouseover',function(e){\n"
"    var g=e.target.closest('g[data-n]');\n"
"    if(g)details.textContent=g.querySelector('title').textContent;});\n"
"  document.getElementById('frames').addEventListener('mouseout',function(){\n"
"    details.textContent=' ';});\n"
"  unzoom.addEventListener('click',function(){zoomTo(0,all,0);});\n"
"  document.getElementById('search').addEventListener('click',askSearch);\n"
"  resetsearch.addEventListener('click',function(){search(null);});\n"
"  var m=/[?&]s=([^&]*)/.exec(window.location.search);\n"
"  if(m)search(decodeURIComponent(m[1]));\n"
"}\n"
"function label(g,w){\n"
"  var t=g.querySelector('text'),name=g.getAttribute('data-f');\n"
"  var fit=w>6?Math.floor((w-6)/CW):0;\n"
"  t.textContent=fit<3?'':name.length<=fit?name:name.substring(0,fit-2)+'..';\n"
"}\n"
"function place(g,s,n){\n"
"  var sc=(W-2*PAD)/zn,x=PAD+(s-zs)*sc,w=n*sc,r=g.querySelector('rect');\n"
"  r.setAttribute('x',x.toFixed(2));r.setAttribute('width',w.toFixed(2));\n"
"  g.querySelector('text').setAttribute('x',(x+3).toFixed(2));label(g,w);\n"
"}\n"
"function zoomTo(s,n,d){\n"
"  zs=s;zn=n;zd=d;\n"
"  frames.forEach(function(g){\n"
"    var gs=num(g,'s'),gn=num(g,'n'),gd=num(g,'d');\n"
"    g.classList.remove('hide');g.classList.remove('parent');\n"
"    if(gd<d&&gs<=s&&gs+gn>=s+n){g.classList.add('parent');place(g,s,n);}\n"
"    else if(gd>=d&&gs>=s&&gs+gn<=s+n&&gn>0)place(g,gs,gn);\n"
"    else g.classList.add('hide');\n"
"  });\n"
"  unzoom.classList.toggle('hide',n===all&&s===0);\n"
"}\n"
"function zoom(g){zoomTo(num(g,'s'),num(g,'n'),num(g,'d'));}\n"
"function askSearch(){\n"
"  var re=window.prompt('Search for frames (a regular expression)','');\n"
"  if(re!==null&&re!=='')search(re);\n"
"}\n"
"function search(re){\n"
"  var rx=null,spans=[];\n"
"  if(re!==null){try{rx=new RegExp(re);}catch(e){matched.textContent='bad expression';return;}}\n"
"  frames.forEach(function(g){\n"
"    var hit=rx!==null&&num(g,'d')>0&&rx.test(g.getAttribute('data-f'));\n"
"    g.classList.toggle('match',hit);\n"
"    if(hit)spans.push([num(g,'s'),num(g,'s')+num(g,'n')]);\n"
"  });\n"
"  spans.sort(function(a,b){return a[0]-b[0];});\n"
"  var sum=0,end=0;\n"
"  spans.forEach(function(p){if(p[1]>end){sum+=p[1]-Math.max(p[0],end);end=p[1];}});\n"
"  matched.textContent=rx===null?' ':'Matched: '+(all?100*sum/all:0).toFixed(2)+'% ('+sum+' of '+all+')';\n"
"  resetsearch.classList.toggle('hide',rx===null);\n"
"}\n";

_Static_assert(FLAME_WIDTH == 1200 && FONT * 59 == 708, "the script's W and CW");

static const char style[] =
"text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}\n"
"#title{font-size:17px}\n"
"#frames g:hover rect{stroke:#000;stroke-width:0.5}\n"
"#frames g{cursor:pointer}\n"
"#unzoom,#search,#resetsearch{cursor:pointer}\n"
".hide{display:none}\n"
".parent{opacity:0.5}\n"
".match rect{fill:rgb(230,0,230)}\n";

static void put_head(FILE *out, const char *title, int height)
{
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
            "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" onload=\"init()\">\n",
            FLAME_WIDTH, height, FLAME_WIDTH, height);
    fprintf(out, "<style>\n%s</style>\n<script type=\"text/ecmascript\"><![CDATA[\n%s]]>"
            "</script>\n", style, script);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f6f3ee\"/>\n",
            FLAME_WIDTH, height);
    fprintf(out, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">",
            FLAME_WIDTH / 2);
    put_xml(out, title, strlen(title));
    fputs("</text>\n", out);
    fputs("<text id=\"unzoom\" class=\"hide\" x=\"10\" y=\"24\">Reset Zoom</text>\n", out);
    fprintf(out, "<text id=\"search\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search</text>\n",
            FLAME_WIDTH - 10);
    fprintf(out, "<text id=\"resetsearch\" class=\"hide\" x=\"%d\" y=\"24\" "
            "text-anchor=\"end\">Reset Search</text>\n", FLAME_WIDTH - 80);
    fprintf(out, "<text id=\"details\" x=\"10\" y=\"%d\"> </text>\n", height - 8);
    fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n",
            FLAME_WIDTH - 10, height - 8);
}

int flame_svg(FILE *out, const struct folds *f, const char *title)
{
    struct tree t = { NULL, 0, 0, 0 };
    int rc = tree_build(&t, f);

    if (rc == 0) {
        int height = TOP + BOTTOM + (t.depth + 1) * FLAME_FRAME_HEIGHT + 8;
        put_head(out, title, height);
        fputs("<g id=\"frames\">\n", out);
        for (size_t i = 0; i < t.n; i++)
            put_node(out, &t, &t.v[i], height);
        fputs("</g>\n</svg>\n", out);
    }
    free(t.v);
    return rc;
}
