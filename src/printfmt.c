/*
 * Print formats as programs.  See tp_printfmt.h.  Each rule below is the
 * one libtraceevent's print engine (event-parse.c: parse_args, eval_num_arg,
 * eval_type_str, print_str_arg, eval_flag) follows, so that the text is the
 * same byte for byte; test_printfmt holds every format of the machine to it.
 */
#include "tp_printfmt.h"
#include "tp_ksyms.h"
#include "tp_netaddr.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

enum kind {
    N_CONST, N_FIELD, N_MASK, N_OP, N_COND,                 /* numbers */
    S_TEXT, S_CHARS, S_DATALOC, S_COND, S_FLAGS, S_SYMBOLS, S_HEX, S_NONE  /* strings */
};

struct flagval {
    long long value;
    const char *str;
};

struct node {
    enum kind kind;
    int op;                         /* N_OP: op[0] | op[1] << 8 */
    uint32_t offset, size;          /* N_FIELD; S_CHARS (size 0: the rest); S_DATALOC */
    bool relative;                  /* S_DATALOC: __rel_loc, the offset from after it */
    bool spaced;                    /* S_HEX: __print_hex (a space between bytes), not
                                       __print_hex_str */
    uint64_t value;                 /* N_CONST; N_MASK's mask */
    const char *text;               /* S_TEXT; S_FLAGS' delimiter, or NULL */
    struct node *a, *b, *c;         /* N_MASK a; N_OP a b; *_COND c ? a : b; S_FLAGS/S_SYMBOLS a */
    struct flagval *flags;
    size_t nflags;
};

enum piece_kind { P_TEXT, P_NUM, P_STR, P_PTR };

struct piece {
    enum piece_kind kind;
    int ls;                         /* P_NUM: hh -2, h -1, none 0, l 1, ll 2 */
    char plain;                     /* P_NUM: 'd', 'u' or 'x' with no flag or precision and
                                       no width but a zero-padded one (digits made here),
                                       else 0 (snprintf) */
    unsigned char zero_pad;         /* plain: the width of "%08lx", or 0 */
    char ptr;                       /* P_PTR: 'p' (a pointer, "%p"), 'S' 'F' (a symbol and
                                       its offset), 's' 'f' (a symbol), 'I' (an address) */
    enum ip_kind { IP4, IP6, IP_SOCKADDR } ip;  /* 'I': of arg, an N_FIELD of its bytes */
    bool ip_lower, ip_compressed, ip_port;      /* 'I': %pi4 %pi6, %pI6c %pISc, %pISp */
    bool uuid_upper, uuid_guid;     /* 'U' (a UUID, of arg's 16 bytes): %pUB %pUL, %pUl %pUL */
    char spec[32];                  /* P_NUM, P_STR: "%...d", "%s" */
    const char *text;               /* P_TEXT */
    size_t text_len;
    struct node *arg;
    struct node *star;              /* P_NUM, P_STR: the '*' width or precision's argument */
};

struct block {
    struct block *next;
    max_align_t data[];
};

struct tp_printfmt {
    struct piece *pieces;
    size_t npieces, cap;
    struct block *blocks;           /* everything else the program holds */
};

#define OP(a, b) ((int)(unsigned char)(a) | (int)(unsigned char)(b) << 8)

/* ---- compiling ------------------------------------------------------------ */

static void *hold(struct tp_printfmt *p, size_t n)
{
    struct block *b = calloc(1, sizeof(*b) + n);
    if (!b)
        return NULL;
    b->next = p->blocks;
    p->blocks = b;
    return b->data;
}

static struct node *node(struct tp_printfmt *p, enum kind k)
{
    struct node *n = hold(p, sizeof(*n));
    if (n)
        n->kind = k;
    return n;
}

/* NULL on failure; *why says which (-EOPNOTSUPP or -ENOMEM). */
struct ctx {
    struct tp_printfmt *p;
    const struct tep_event *ev;
    int why;
};

static struct node *decline(struct ctx *x)
{
    if (x->why == 0)
        x->why = -EOPNOTSUPP;
    return NULL;
}

static struct node *made(struct ctx *x, struct node *n)
{
    if (!n && x->why == 0)
        x->why = -ENOMEM;
    return n;
}

static struct tep_format_field *field_named(struct ctx *x, const char *name)
{
    return name ? tep_find_any_field((struct tep_event *)x->ev, name) : NULL;
}

/* A cast: what eval_type_str does to a value (not a pointer's). */
static uint64_t cast_mask(const char *type)
{
    size_t len = strlen(type);
    if (len < 2 || type[len - 1] == '*' || strncmp(type, "struct", 6) == 0)
        return UINT64_MAX;
    static const struct { const char *type; uint64_t mask; } masks[] = {
        { "u8", 0xff }, { "u16", 0xffff }, { "u32", 0xffffffff }, { "s8", 0xff },
        { "s16", 0xffff }, { "s32", 0xffffffff },
    };
    for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++)
        if (strcmp(type, masks[i].type) == 0)
            return masks[i].mask;
    if (strncmp(type, "unsigned ", 9) == 0)
        type += 9;
    if (strcmp(type, "char") == 0)
        return 0xff;
    if (strcmp(type, "short") == 0)
        return 0xffff;
    if (strcmp(type, "int") == 0)
        return 0xffffffff;
    return UINT64_MAX;
}

static bool known_op(const char *op)
{
    static const char *const ops[] = { "!", "!=", "~", "|", "||", "&", "&&", "<", "<<", "<=",
                                       ">", ">>", ">=", "==", "-", "+", "/", "%", "*" };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(op, ops[i]) == 0)
            return true;
    return false;
}

static struct node *number(struct ctx *x, const struct tep_print_arg *arg);

/* c ? a : b, in libtraceevent's shape: op "?" whose right is op ":". */
static bool ternary(const struct tep_print_arg *arg)
{
    const struct tep_print_arg *r = arg->op.right;
    return arg->op.left && r && r->type == TEP_PRINT_OP && strcmp(r->op.op, ":") == 0 &&
           r->op.left && r->op.right;
}

typedef struct node *branch_fn(struct ctx *x, const struct tep_print_arg *arg);

/* c ? a : b as a node of kind k, a and b compiled by branch (number or string). */
static struct node *conditional(struct ctx *x, const struct tep_print_arg *arg, enum kind k,
                                branch_fn *branch)
{
    struct node *n;
    if (!ternary(arg) || !(n = made(x, node(x->p, k))))
        return decline(x);
    n->c = number(x, arg->op.left);
    n->a = branch(x, arg->op.right->op.left);
    n->b = branch(x, arg->op.right->op.right);
    return n->a && n->b && n->c ? n : NULL;
}

/* item cast by mask (UINT64_MAX: left be); NULL if item is. */
static struct node *masked(struct ctx *x, struct node *item, uint64_t mask)
{
    struct node *n;
    if (!item || mask == UINT64_MAX)
        return item;
    if (!(n = made(x, node(x->p, N_MASK))))
        return NULL;
    n->value = mask;
    n->a = item;
    return n;
}

/*
 * field[i], i a number, as eval_num_arg reads it: the element's bytes at
 * the field's offset plus i elements, read as an unsigned number of the
 * element's size; a cast on the field is read as a pointer's (eval_type
 * with pointer 1): "(T *)" casts the element to T, any other leaves it
 * be.  An element past the record is a short record, as for a field.
 * Dynamic arrays and computed indexes are declined (no format has them).
 */
static struct node *element(struct ctx *x, const struct tep_print_arg *arg)
{
    const struct tep_print_arg *left = arg->op.left, *cast = NULL, *i = arg->op.right;
    while (left && left->type == TEP_PRINT_TYPE) {
        cast = cast ? cast : left;
        left = left->typecast.item;
    }
    const struct tep_format_field *f =
        left && left->type == TEP_PRINT_FIELD ? field_named(x, left->field.name) : NULL;
    if (!f || f->offset < 0 || !i || i->type != TEP_PRINT_ATOM ||
        !isdigit((unsigned char)i->atom.atom[0]))
        return decline(x);
    unsigned long long at = strtoull(i->atom.atom, NULL, 0);
    unsigned size = f->elementsize;
    if ((size != 1 && size != 2 && size != 4 && size != 8) || at > UINT32_MAX / 8 ||
        (uint64_t)f->offset + at * size > UINT32_MAX)
        return decline(x);
    struct node *n = made(x, node(x->p, N_FIELD));
    if (!n)
        return NULL;
    n->offset = (uint32_t)(f->offset + at * size);
    n->size = size;
    uint64_t mask = UINT64_MAX;
    size_t len = cast ? strlen(cast->typecast.type) : 0;
    if (len >= 2 && cast->typecast.type[len - 1] == '*') {
        char to[64];
        if (len - 2 >= sizeof(to))
            return decline(x);
        memcpy(to, cast->typecast.type, len - 2);
        to[len - 2] = '\0';
        mask = cast_mask(to);
    }
    return masked(x, n, mask);
}

static struct node *number_op(struct ctx *x, const struct tep_print_arg *arg)
{
    const char *op = arg->op.op;
    struct node *n;
    if (strcmp(op, "?") == 0)
        return conditional(x, arg, N_COND, number);
    if (strcmp(op, "[") == 0)
        return element(x, arg);
    if (!known_op(op) || !arg->op.right || !(n = made(x, node(x->p, N_OP))))
        return decline(x);
    n->op = OP(op[0], op[1]);
    n->a = arg->op.left ? number(x, arg->op.left) : made(x, node(x->p, N_CONST));
    n->b = number(x, arg->op.right);
    return n->a && n->b ? n : NULL;
}

/* A numeric argument, as eval_num_arg reads it. */
static struct node *number(struct ctx *x, const struct tep_print_arg *arg)
{
    struct node *n;
    const struct tep_format_field *f;
    switch (arg ? arg->type : TEP_PRINT_HEX) {
    case TEP_PRINT_NULL:
        return made(x, node(x->p, N_CONST));
    case TEP_PRINT_ATOM:
        if (!isdigit((unsigned char)arg->atom.atom[0]))
            return decline(x);      /* a name: libtraceevent looks it up in kallsyms */
        if (!(n = made(x, node(x->p, N_CONST))))
            return NULL;
        n->value = strtoull(arg->atom.atom, NULL, 0);
        return n;
    case TEP_PRINT_FIELD:
        f = field_named(x, arg->field.name);
        if (!f || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) ||
            f->offset < 0 || !(n = made(x, node(x->p, N_FIELD))))
            return decline(x);
        n->offset = (uint32_t)f->offset;
        n->size = (uint32_t)f->size;
        return n;
    case TEP_PRINT_TYPE: {
        struct node *item = arg->typecast.item ? number(x, arg->typecast.item) : decline(x);
        return masked(x, item, cast_mask(arg->typecast.type));
    }
    case TEP_PRINT_OP:
        return number_op(x, arg);
    default:
        return decline(x);
    }
}

static struct node *string(struct ctx *x, const struct tep_print_arg *arg);

/*
 * A flag's or symbol's value as eval_flag reads it: a number, one of the
 * few names libtraceevent knows, or -1 for any other name (the kernel
 * leaves enum names such as TCP_ESTABLISHED unconverted in some formats).
 */
static long long flag_value(const char *v)
{
    static const struct { const char *name; long long value; } known[] = {
        { "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 }, { "NET_TX_SOFTIRQ", 2 },
        { "NET_RX_SOFTIRQ", 3 }, { "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
        { "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 }, { "HRTIMER_SOFTIRQ", 8 },
        { "RCU_SOFTIRQ", 9 }, { "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
    };
    if (isdigit((unsigned char)v[0]))
        return (long long)strtoull(v, NULL, 0);
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (strcmp(v, known[i].name) == 0)
            return known[i].value;
    return -1;
}

/* __print_flags / __print_symbolic: the values parsed once, as eval_flag does. */
static struct node *flag_list(struct ctx *x, enum kind k, const struct tep_print_arg *field,
                              const struct tep_print_flag_sym *list)
{
    struct node *n = made(x, node(x->p, k));
    if (!n || !(n->a = number(x, field)))
        return NULL;
    for (const struct tep_print_flag_sym *s = list; s; s = s->next)
        n->nflags++;
    if (n->nflags && !(n->flags = hold(x->p, n->nflags * sizeof(*n->flags)))) {
        x->why = -ENOMEM;
        return NULL;
    }
    size_t i = 0;
    for (const struct tep_print_flag_sym *s = list; s; s = s->next, i++) {
        if (!s->value || !s->str)
            return decline(x);
        n->flags[i].value = flag_value(s->value);
        n->flags[i].str = s->str;
    }
    return n;
}

static struct node *string_field(struct ctx *x, const struct tep_print_arg *arg)
{
    const struct tep_format_field *f = field_named(x, arg->field.name);
    struct node *n;
    if (!f || f->offset < 0 || f->size < 0 || !(f->flags & TEP_FIELD_IS_ARRAY) ||
        !(n = made(x, node(x->p, S_CHARS))))
        return decline(x);      /* a number or pointer printed with %s: libtraceevent's */
    n->offset = (uint32_t)f->offset;
    n->size = (uint32_t)f->size;
    return n;
}

/* A string argument, as print_str_arg prints it. */
/*
 * __print_hex(REC->field, len) and __print_hex_str: the field's first len
 * bytes as print_str_arg prints them, "%02x" each (with a space between
 * for __print_hex), whatever the conversion's flags.  A __get_dynamic_array
 * is declined.
 */
static struct node *hex_bytes(struct ctx *x, const struct tep_print_arg *arg)
{
    const struct tep_print_arg *fa = arg->hex.field;
    const struct tep_format_field *f =
        fa && fa->type == TEP_PRINT_FIELD ? field_named(x, fa->field.name) : NULL;
    struct node *n;
    if (!f || f->offset < 0 || !(n = made(x, node(x->p, S_HEX))))
        return decline(x);
    n->offset = (uint32_t)f->offset;
    n->spaced = arg->type == TEP_PRINT_HEX;
    n->a = number(x, arg->hex.size);
    return n->a ? n : NULL;
}

static struct node *string(struct ctx *x, const struct tep_print_arg *arg)
{
    struct node *n;
    const struct tep_format_field *f;
    if (!arg)
        return decline(x);
    switch (arg->type) {
    case TEP_PRINT_ATOM:
        if (!(n = made(x, node(x->p, S_TEXT))))
            return NULL;
        n->text = arg->atom.atom;
        return n;
    case TEP_PRINT_FIELD:
        return string_field(x, arg);
    case TEP_PRINT_STRING:
        f = field_named(x, arg->string.string);
        if (!f || f->offset < 0 || (f->size != 2 && f->size != 4) ||
            !(n = made(x, node(x->p, S_DATALOC))))
            return decline(x);
        n->offset = (uint32_t)f->offset;
        n->size = (uint32_t)f->size;
        n->relative = f->flags & TEP_FIELD_IS_RELATIVE;
        return n;
    case TEP_PRINT_FLAGS:
        if (!(n = flag_list(x, S_FLAGS, arg->flags.field, arg->flags.flags)))
            return NULL;
        n->text = arg->flags.delim;
        return n;
    case TEP_PRINT_SYMBOL:
        return flag_list(x, S_SYMBOLS, arg->symbol.field, arg->symbol.symbols);
    case TEP_PRINT_HEX:
    case TEP_PRINT_HEX_STR:
        return hex_bytes(x, arg);
    case TEP_PRINT_TYPE:
        return made(x, node(x->p, S_NONE));     /* print_str_arg prints nothing for a cast */
    case TEP_PRINT_OP:
        if (strcmp(arg->op.op, "?") != 0)
            return made(x, node(x->p, S_NONE));
        return conditional(x, arg, S_COND, string);
    default:
        return decline(x);
    }
}

static struct piece *add_piece(struct ctx *x, enum piece_kind k)
{
    struct tp_printfmt *p = x->p;
    if (p->npieces == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        struct piece *v = realloc(p->pieces, cap * sizeof(*v));
        if (!v) {
            x->why = -ENOMEM;
            return NULL;
        }
        p->pieces = v;
        p->cap = cap;
    }
    struct piece *pc = &p->pieces[p->npieces++];
    memset(pc, 0, sizeof(*pc));
    pc->kind = k;
    return pc;
}

/* Literal text up to the next conversion, escapes and %% undone: what parse_arg_string keeps. */
static const char *literal(struct ctx *x, const char *f)
{
    char *t = hold(x->p, strlen(f) + 1);
    size_t n = 0;
    if (!t) {
        x->why = -ENOMEM;
        return NULL;
    }
    for (; *f && !(f[0] == '%' && f[1] != '%'); f++) {
        if (*f == '\\' && f[1]) {
            f++;
            t[n++] = *f == 'n' ? '\n' : *f == 't' ? '\t' : *f == 'r' ? '\r' : *f;
        } else {
            t[n++] = *f;
            f += *f == '%';         /* "%%" */
        }
    }
    struct piece *pc = n ? add_piece(x, P_TEXT) : NULL;
    if (pc) {
        pc->text = t;
        pc->text_len = n;
    }
    return x->why ? NULL : f;
}

/* Is the conversion one put_plain makes ("%d", "%lu", "%08lx"...)?  Sets plain, zero_pad. */
static void plain_spec(struct piece *pc, char conv)
{
    const char *s = pc->spec + 1;
    unsigned width = 0;
    if (!strchr("diux", conv))
        return;
    if (*s == '0')
        for (s++; *s >= '0' && *s <= '9' && width < 64; s++)
            width = width * 10 + (unsigned)(*s - '0');
    if (strpbrk(s, "#.0123456789-+") || (pc->spec[1] == '0' && width == 0))
        return;
    pc->plain = conv == 'i' ? 'd' : conv;
    pc->zero_pad = (unsigned char)width;
}

/*
 * The letters of "%pI4", "%pi4", "%pI6", "%pi6", "%pI6c" and "%pIS" with p
 * and c after it, at s ('I' or 'i') into pc: past them, or NULL for any
 * other (an endianness letter, "%pi6c", "%piS"), whose letters
 * parse_arg_format_pointer and print_ip_arg do not read alike.
 */
static const char *address_spec(struct piece *pc, const char *s)
{
    pc->ip_lower = *s++ == 'i';
    switch (*s++) {
    case '4':
        pc->ip = IP4;
        return *s && strchr("hnbl", *s) ? NULL : s;
    case '6':
        pc->ip = IP6;
        pc->ip_compressed = *s == 'c';
        return pc->ip_compressed && pc->ip_lower ? NULL : s + pc->ip_compressed;
    case 'S':
        pc->ip = IP_SOCKADDR;
        pc->ip_port = *s == 'p';
        s += pc->ip_port;
        pc->ip_compressed = *s == 'c';
        s += pc->ip_compressed;
        return pc->ip_lower || (*s && strchr("pfshnblc", *s)) ? NULL : s;
    default:
        return NULL;
    }
}

/* "%pU" and L l B b after it, at s ('U'): past them. */
static const char *uuid_spec(struct piece *pc, const char *s)
{
    s++;
    pc->uuid_upper = *s == 'L' || *s == 'B';
    pc->uuid_guid = *s == 'L' || *s == 'l';
    return *s && strchr("LlBb", *s) ? s + 1 : s;
}

/*
 * "%pI..." or "%pU..." at f, taking *arg: a field's bytes (size bytes, or
 * any number from 2 for a sockaddr), as print_ip_arg and print_uuid_arg
 * read them.
 */
static const char *field_bytes(struct ctx *x, const char *f, const struct tep_print_arg **arg)
{
    struct piece *pc = add_piece(x, P_PTR);
    if (!pc)
        return NULL;
    pc->ptr = f[2] == 'U' ? 'U' : 'I';
    const char *end = pc->ptr == 'U' ? uuid_spec(pc, f + 2) : address_spec(pc, f + 2);
    const struct tep_print_arg *a = *arg;
    while (a && a->type == TEP_PRINT_TYPE)
        a = a->typecast.item;
    const struct tep_format_field *fl = a && a->type == TEP_PRINT_FIELD
        ? field_named(x, a->field.name) : NULL;
    uint32_t want = pc->ptr == 'U' || pc->ip == IP6 ? 16 : pc->ip == IP4 ? 4 : 0;
    if (!end || !fl || fl->offset < 0 || fl->size < 2 || (want && (uint32_t)fl->size != want) ||
        !(pc->arg = made(x, node(x->p, N_FIELD)))) {
        decline(x);
        return NULL;
    }
    pc->arg->offset = (uint32_t)fl->offset;
    pc->arg->size = (uint32_t)fl->size;
    *arg = (*arg)->next;
    return end;
}

/*
 * "%p" at f, taking *arg: a pointer, with S s F f after it a symbol, with
 * I i after it a network address, or with U a UUID, as print_arg_pointer
 * prints them.  The other pointer extensions (MACs, hex dumps) and flags or
 * widths are libtraceevent's.  A letter after "%p" that is no extension
 * stays text, as there.
 */
static const char *pointer(struct ctx *x, const char *f, const struct tep_print_arg **arg)
{
    char next = f[2];
    if (!*arg || (next && strchr("Mmh", next))) {
        decline(x);
        return NULL;
    }
    if (next == 'I' || next == 'i' || next == 'U')
        return field_bytes(x, f, arg);
    struct piece *pc = add_piece(x, P_PTR);
    if (!pc)
        return NULL;
    pc->ptr = next && strchr("SsFf", next) ? next : 'p';
    pc->arg = number(x, *arg);
    *arg = (*arg)->next;
    return pc->arg ? f + 2 + (pc->ptr != 'p') : NULL;
}

/*
 * One conversion at f ('%'), taking *arg: what parse_arg_format makes of
 * it.  A '*' takes the argument it meets (the width or precision) before
 * the one printed.
 */
static const char *conversion(struct ctx *x, const char *f, const struct tep_print_arg **arg)
{
    const char *start = f;
    if (f[1] == 'p')
        return pointer(x, f, arg);
    int ls = 0;
    const struct tep_print_arg *star = NULL;
    for (f++; *f && strchr("#hlLzZ.0123456789-+*", *f); f++) {
        if (*f == '*' && (star || !*arg)) {
            decline(x);
            return NULL;
        }
        if (*f == '*') {
            star = *arg;
            *arg = (*arg)->next;
        }
        ls = *f == 'h' ? ls - 1 : *f == 'l' ? ls + 1 : *f == 'L' ? 2
           : (*f == 'z' || *f == 'Z') ? 1 : ls;
    }
    size_t len = (size_t)(f - start) + 1;
    bool digit = *f && strchr("duixXo", *f), str = *f == 's';
    if (!*arg || (!digit && !str) || len > 30 || ls < -2 || ls > 2) {
        decline(x);
        return NULL;
    }
    struct piece *pc = add_piece(x, digit ? P_NUM : P_STR);
    if (!pc)
        return NULL;
    memcpy(pc->spec, start, len);
    pc->ls = ls;
    if (star && !(pc->star = number(x, star)))
        return NULL;
    if (!star)
        plain_spec(pc, *f);
    pc->arg = digit ? number(x, *arg) : string(x, *arg);
    *arg = (*arg)->next;
    return pc->arg ? f + 1 : NULL;
}

int tp_printfmt_compile(const struct tep_event *ev, struct tp_printfmt **out)
{
    *out = NULL;
    if (!ev || !ev->print_fmt.format || ev->handler ||
        (ev->flags & (TEP_EVENT_FL_PRINTRAW | TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_FAILED)))
        return -EOPNOTSUPP;
    struct ctx x = { calloc(1, sizeof(struct tp_printfmt)), ev, 0 };
    if (!x.p)
        return -ENOMEM;
    const struct tep_print_arg *arg = ev->print_fmt.args;
    for (const char *f = ev->print_fmt.format; f && *f;)
        f = *f == '%' && f[1] != '%' ? conversion(&x, f, &arg) : literal(&x, f);
    if (x.why == 0)
        *out = x.p;
    else
        tp_printfmt_free(x.p);
    return x.why;
}

void tp_printfmt_free(struct tp_printfmt *p)
{
    if (!p)
        return;
    for (struct block *b = p->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(p->pieces);
    free(p);
}

/* ---- running ---------------------------------------------------------------- */

struct run {
    const struct tp_ksyms *syms;
    const unsigned char *data;
    uint32_t len;
    bool short_record;              /* something the format reads is not there */
    int star;                       /* the piece's '*' argument, as print_parse_data takes it */
    char *buf;
    size_t size, at;                /* at < size; buf[at] is where the next byte goes */
};

static void put(struct run *r, const char *s, size_t n)
{
    if (n > r->size - 1 - r->at)
        n = r->size - 1 - r->at;
    memcpy(r->buf + r->at, s, n);
    r->at += n;
}

/* n bytes were wanted at buf[at] by a writer that cuts as snprintf does. */
static void advance(struct run *r, int n)
{
    if (n > 0)
        r->at += (size_t)n < r->size - r->at ? (size_t)n : r->size - 1 - r->at;
}

static void __attribute__((format(printf, 2, 3))) putf(struct run *r, const char *spec, ...)
{
    va_list ap;
    va_start(ap, spec);
    int n = vsnprintf(r->buf + r->at, r->size - r->at, spec, ap);
    va_end(ap);
    advance(r, n);
}

static uint64_t field(struct run *r, const struct node *n)
{
    const unsigned char *p = r->data + n->offset;
    if ((uint64_t)n->offset + n->size > r->len) {
        r->short_record = true;
        return 0;
    }
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (n->size) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

static uint64_t eval(struct run *r, const struct node *n);

static uint64_t eval_op(struct run *r, const struct node *n)
{
    uint64_t a = eval(r, n->a), b = eval(r, n->b);
    switch (n->op) {
    case OP('!', 0):   return !b;
    case OP('!', '='): return a != b;
    case OP('~', 0):   return ~b;
    case OP('|', 0):   return a | b;
    case OP('|', '|'): return a || b;
    case OP('&', 0):   return a & b;
    case OP('&', '&'): return a && b;
    case OP('<', 0):   return a < b;
    case OP('<', '<'): return a << (b & 63);
    case OP('<', '='): return a <= b;
    case OP('>', 0):   return a > b;
    case OP('>', '>'): return a >> (b & 63);
    case OP('>', '='): return a >= b;
    case OP('=', '='): return a == b;
    case OP('-', 0):   return a - b;
    case OP('+', 0):   return a + b;
    case OP('/', 0):   return b ? a / b : 0;    /* libtraceevent would fault */
    case OP('%', 0):   return b ? a % b : 0;
    default:           return a * b;
    }
}

static uint64_t eval(struct run *r, const struct node *n)
{
    switch (n->kind) {
    case N_CONST: return n->value;
    case N_FIELD: return field(r, n);
    case N_MASK:  return eval(r, n->a) & n->value;
    case N_COND:  return eval(r, n->c) ? eval(r, n->a) : eval(r, n->b);
    default:      return eval_op(r, n);
    }
}

static void put_str(struct run *r, const struct piece *pc, const char *s, size_t n)
{
    if (!pc->star && strcmp(pc->spec, "%s") == 0) {
        put(r, s, n);
        return;
    }
    char tmp[1024];
    if (n >= sizeof(tmp)) {
        r->short_record = true;     /* a padded string this long: libtraceevent's */
        return;
    }
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    if (pc->star)
        putf(r, pc->spec, r->star, tmp);
    else
        putf(r, pc->spec, tmp);
}

/* A NUL-terminated string at off in the record, or NULL (and short_record). */
static const char *c_string(struct run *r, uint64_t off, size_t *n)
{
    const void *nul = off < r->len ? memchr(r->data + off, '\0', r->len - off) : NULL;
    if (!nul) {
        r->short_record = true;
        return NULL;
    }
    *n = (size_t)((const unsigned char *)nul - (r->data + off));
    return (const char *)r->data + off;
}

static void put_dataloc(struct run *r, const struct piece *pc, const struct node *n)
{
    if ((uint64_t)n->offset + n->size > r->len)
        return;                     /* dynamic_offset_field: no length, nothing printed */
    struct node word = { .kind = N_FIELD, .offset = n->offset, .size = n->size };
    uint64_t v = field(r, &word);
    uint32_t o = (uint32_t)(v & 0xffff);
    uint32_t l = n->size == 2 ? r->len - o : (uint32_t)(v >> 16 & 0xffff);
    uint64_t off = o > r->len ? 0 : o;
    if ((uint64_t)o + l > r->len || l == 0)
        return;
    if (n->relative)
        off += n->offset + n->size;
    size_t len;
    const char *s = c_string(r, off, &len);
    if (s)
        put_str(r, pc, s, len);
}

static void put_flags(struct run *r, const struct piece *pc, const struct node *n)
{
    long long val = (long long)eval(r, n->a);
    bool printed = false;
    for (size_t i = 0; i < n->nflags; i++) {
        long long f = n->flags[i].value;
        if (!val && f < 0) {
            put_str(r, pc, n->flags[i].str, strlen(n->flags[i].str));
            break;
        }
        if (f > 0 && (val & f) == f) {
            if (printed && n->text)
                put(r, n->text, strlen(n->text));
            put_str(r, pc, n->flags[i].str, strlen(n->flags[i].str));
            printed = true;
            val &= ~f;
        }
    }
    if (val) {
        if (printed && n->text)
            put(r, n->text, strlen(n->text));
        putf(r, "0x%llx", val);
    }
}

static void put_symbol(struct run *r, const struct piece *pc, const struct node *n)
{
    long long val = (long long)eval(r, n->a);
    for (size_t i = 0; i < n->nflags; i++)
        if (val == n->flags[i].value) {
            put_str(r, pc, n->flags[i].str, strlen(n->flags[i].str));
            return;
        }
    putf(r, "0x%llx", val);
}

static void put_hex(struct run *r, const struct node *n)
{
    uint32_t len = (uint32_t)eval(r, n->a);
    if ((uint64_t)n->offset + len > r->len) {
        r->short_record = true;
        return;
    }
    static const char digits[] = "0123456789abcdef";
    for (uint32_t i = 0; i < len; i++) {
        unsigned char b = r->data[n->offset + i];
        char two[3] = { ' ', digits[b >> 4], digits[b & 15] };
        if (i && n->spaced)
            put(r, two, 3);
        else
            put(r, two + 1, 2);
    }
}

static void put_string(struct run *r, const struct piece *pc, const struct node *n)
{
    const char *s;
    switch (n->kind) {
    case S_TEXT:
        put_str(r, pc, n->text, strlen(n->text));
        break;
    case S_CHARS: {
        uint32_t size = n->size ? n->size : r->len > n->offset ? r->len - n->offset : 0;
        if ((uint64_t)n->offset + size > r->len) {
            r->short_record = true;
            break;
        }
        s = (const char *)r->data + n->offset;
        put_str(r, pc, s, strnlen(s, size));
        break;
    }
    case S_DATALOC: put_dataloc(r, pc, n); break;
    case S_COND:    put_string(r, pc, eval(r, n->c) ? n->a : n->b); break;
    case S_FLAGS:   put_flags(r, pc, n); break;
    case S_SYMBOLS: put_symbol(r, pc, n); break;
    case S_HEX:     put_hex(r, n); break;
    default:        break;
    }
}

/* v as printf takes it for a conversion of length ls (the caller's cast), unsigned. */
static uint64_t as_unsigned(uint64_t v, int ls)
{
    return ls == -2 ? (unsigned char)v : ls == -1 ? (unsigned short)v : ls == 0 ? (uint32_t)v : v;
}

static int64_t as_signed(uint64_t v, int ls)
{
    return ls == -2 ? (signed char)v : ls == -1 ? (short)v : ls == 0 ? (int32_t)v : (int64_t)v;
}

/* %d, %u or %x with no flags or width, as printf would print v. */
static void put_plain(struct run *r, const struct piece *pc, uint64_t v)
{
    char d[24], *p = d + sizeof(d);
    uint64_t u = as_unsigned(v, pc->ls);
    bool minus = false;
    if (pc->plain == 'd' && as_signed(v, pc->ls) < 0) {
        minus = true;
        u = 0 - (uint64_t)as_signed(v, pc->ls);
    }
    if (pc->plain == 'x')
        do *--p = "0123456789abcdef"[u & 15]; while (u >>= 4);
    else
        do *--p = (char)('0' + u % 10); while (u /= 10);
    size_t n = (size_t)(d + sizeof(d) - p) + minus;
    if (minus)
        put(r, "-", 1);
    for (; n < pc->zero_pad; n++)
        put(r, "0", 1);
    put(r, p, (size_t)(d + sizeof(d) - p));
}

static void put_number(struct run *r, const struct piece *pc)
{
    uint64_t v = eval(r, pc->arg);
    if (pc->plain) {
        put_plain(r, pc, v);
        return;
    }
    /* v as the conversion's length takes it, after the '*' argument if any */
#define PUT_AS(type) (pc->star ? putf(r, pc->spec, r->star, (type)v) : putf(r, pc->spec, (type)v))
    switch (pc->ls) {
    case -2: PUT_AS(char); break;
    case -1: PUT_AS(short); break;
    case 0:  PUT_AS(int); break;
    case 1:  PUT_AS(long); break;
    default: PUT_AS(long long); break;
    }
#undef PUT_AS
}

/* A network address from the field's bytes (tp_netaddr.h), there in the record. */
static void put_address(struct run *r, const struct piece *pc)
{
    const struct node *n = pc->arg;
    const unsigned char *a = r->data + n->offset;
    char *at = r->buf + r->at;
    size_t room = r->size - r->at;
    switch (pc->ip) {
    case IP4:
        advance(r, tp_netaddr_ip4(a, pc->ip_lower, at, room));
        break;
    case IP6:
        advance(r, tp_netaddr_ip6(a, pc->ip_compressed ? TP_IP6_COMPRESSED
                                     : pc->ip_lower ? TP_IP6_PLAIN : TP_IP6_COLONS, at, room));
        break;
    default:
        advance(r, tp_netaddr_sockaddr(a, n->size, pc->ip_port, pc->ip_compressed, at, room));
        break;
    }
}

/*
 * A UUID's 16 bytes, there in the record, as print_uuid_arg prints them: a
 * GUID's first three groups reversed.
 */
static void put_uuid(struct run *r, const struct piece *pc)
{
    static const unsigned char guid[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
    const struct node *n = pc->arg;
    const char *digits = pc->uuid_upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char text[36], *t = text;
    for (int i = 0; i < 16; i++) {
        unsigned char b = r->data[n->offset + (pc->uuid_guid ? guid[i] : i)];
        *t++ = digits[b >> 4];
        *t++ = digits[b & 15];
        if (i == 3 || i == 5 || i == 7 || i == 9)
            *t++ = '-';
    }
    put(r, text, sizeof(text));
}

/*
 * A field's bytes as an address or UUID; a pointer as glibc's "%p" prints
 * it; or a symbol as print_function does with libtraceevent's resolver over
 * the same table, the module added as the kernel prints it
 * (tp_ksyms_format).
 */
static void put_pointer(struct run *r, const struct piece *pc)
{
    if (pc->ptr == 'I' || pc->ptr == 'U') {
        if ((uint64_t)pc->arg->offset + pc->arg->size > r->len)
            r->short_record = true;
        else
            (pc->ptr == 'I' ? put_address : put_uuid)(r, pc);
        return;
    }
    uint64_t v = eval(r, pc->arg);
    if (pc->ptr != 'p') {
        advance(r, tp_ksyms_format(r->syms, v, pc->ptr == 'S' || pc->ptr == 'F',
                                   r->buf + r->at, r->size - r->at));
        return;
    }
    if (!v) {
        put(r, "(nil)", 5);
        return;
    }
    static const struct piece hex = { .kind = P_NUM, .ls = 2, .plain = 'x' };
    put(r, "0x", 2);
    put_plain(r, &hex, v);
}

int tp_printfmt_run(const struct tp_printfmt *p, const struct tp_ksyms *syms, const void *data,
                    uint32_t len, char *buf, size_t size)
{
    struct run r = { syms, data, len, false, 0, buf, size, 0 };
    for (size_t i = 0; i < p->npieces && !r.short_record; i++) {
        const struct piece *pc = &p->pieces[i];
        if (pc->star)
            r.star = (int)eval(&r, pc->star);
        if (pc->kind == P_TEXT)
            put(&r, pc->text, pc->text_len);
        else if (pc->kind == P_NUM)
            put_number(&r, pc);
        else if (pc->kind == P_PTR)
            put_pointer(&r, pc);
        else
            put_string(&r, pc, pc->arg);
    }
    buf[r.at] = '\0';
    return r.short_record ? -ERANGE : (int)r.at;
}
