/*
 * Network addresses as libtraceevent prints them.  See tp_netaddr.h.  The
 * rules are those of print_ip4_addr, print_ip6_addr, print_ip6c_addr and
 * print_ipsa_arg, so that the text is the same byte for byte.
 */
#include "tp_netaddr.h"

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* Text put at buf[at], cut as snprintf cuts: at moves on as if it were not. */
struct out {
    char *buf;
    size_t size, at;
};

static void put(struct out *o, const char *s, size_t n)
{
    if (o->at < o->size - 1)
        memcpy(o->buf + o->at, s, n < o->size - 1 - o->at ? n : o->size - 1 - o->at);
    o->at += n;
}

static int done(struct out *o)
{
    o->buf[o->at < o->size ? o->at : o->size - 1] = '\0';
    return (int)o->at;
}

/* v in decimal, at least width digits (zero-padded). */
static void put_dec(struct out *o, unsigned v, unsigned width)
{
    char d[12], *p = d + sizeof(d);
    do *--p = (char)('0' + v % 10); while (v /= 10);
    while ((size_t)(d + sizeof(d) - p) < width)
        *--p = '0';
    put(o, p, (size_t)(d + sizeof(d) - p));
}

/* v in hex without leading zeros, or exactly width digits. */
static void put_hex(struct out *o, unsigned v, unsigned width)
{
    char d[8], *p = d + sizeof(d);
    do *--p = "0123456789abcdef"[v & 15]; while (v >>= 4);
    while ((size_t)(d + sizeof(d) - p) < width)
        *--p = '0';
    put(o, p, (size_t)(d + sizeof(d) - p));
}

static void ip4(struct out *o, const unsigned char *a, bool zeros)
{
    for (int i = 0; i < 4; i++) {
        if (i)
            put(o, ".", 1);
        put_dec(o, a[i], zeros ? 3 : 1);
    }
}

static unsigned word(const unsigned char *a, int i)
{
    return (unsigned)a[2 * i] << 8 | a[2 * i + 1];
}

/* ::ffff:a.b.c.d, or ISATAP's ...:0200:5efe:a.b.c.d (either flag bit): the last 32 bits dotted. */
static bool tail_is_ip4(const unsigned char *a)
{
    static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
    return memcmp(a, mapped, 12) == 0 ||
           ((a[8] | 0x02) == 0x02 && a[9] == 0 && a[10] == 0x5e && a[11] == 0xfe);
}

/* The longest run of zero words (longer than one), as a "::". */
static void ip6_compressed(struct out *o, const unsigned char *a)
{
    bool dotted = tail_is_ip4(a), needcolon = false;
    int range = dotted ? 6 : 8, longest = 1, at = -1;
    for (int i = 0; i < range; i++) {
        int n = 0;
        while (i + n < range && word(a, i + n) == 0)
            n++;
        if (n > longest) {
            longest = n;
            at = i;
        }
    }
    for (int i = 0; i < range; i++) {
        if (i == at) {
            put(o, needcolon || i == 0 ? "::" : ":", needcolon || i == 0 ? 2 : 1);
            needcolon = false;
            i += longest - 1;
            continue;
        }
        if (needcolon)
            put(o, ":", 1);
        put_hex(o, word(a, i), 1);
        needcolon = true;
    }
    if (dotted) {
        if (needcolon)
            put(o, ":", 1);
        ip4(o, a + 12, false);
    }
}

static void ip6(struct out *o, const unsigned char *a, enum tp_ip6_form form)
{
    if (form == TP_IP6_COMPRESSED) {
        ip6_compressed(o, a);
        return;
    }
    for (int i = 0; i < 8; i++) {
        put_hex(o, word(a, i), 4);
        if (form == TP_IP6_COLONS && i < 7)
            put(o, ":", 1);
    }
}

int tp_netaddr_ip4(const unsigned char a[4], bool zeros, char *buf, size_t size)
{
    struct out o = { buf, size, 0 };
    ip4(&o, a, zeros);
    return done(&o);
}

int tp_netaddr_ip6(const unsigned char a[16], enum tp_ip6_form form, char *buf, size_t size)
{
    struct out o = { buf, size, 0 };
    ip6(&o, a, form);
    return done(&o);
}

int tp_netaddr_sockaddr(const unsigned char *sa, size_t len, bool port, bool compressed,
                        char *buf, size_t size)
{
    struct out o = { buf, size, 0 };
    sa_family_t family;
    memcpy(&family, sa, sizeof(family));
    unsigned p = (unsigned)sa[2] << 8 | sa[3];      /* sin_port, sin6_port */
    if (family == AF_INET && len < sizeof(struct sockaddr_in)) {
        put(&o, "INVALIDIPv4", 11);
    } else if (family == AF_INET) {
        ip4(&o, sa + offsetof(struct sockaddr_in, sin_addr), false);
        if (port) {
            put(&o, ":", 1);
            put_dec(&o, p, 1);
        }
    } else if (family == AF_INET6 && len < sizeof(struct sockaddr_in6)) {
        put(&o, "INVALIDIPv6", 11);
    } else if (family == AF_INET6) {
        if (port)
            put(&o, "[", 1);
        ip6(&o, sa + offsetof(struct sockaddr_in6, sin6_addr),
            compressed ? TP_IP6_COMPRESSED : TP_IP6_COLONS);
        if (port) {
            put(&o, "]:", 2);
            put_dec(&o, p, 1);
        }
    }
    return done(&o);
}
