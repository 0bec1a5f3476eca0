/*
 * Network addresses as libtraceevent prints them.  See tp_netaddr.h.  The
 * rules are those of print_ip4_addr, print_ip6_addr, print_ip6c_addr and
 * print_ipsa_arg, so that the text is the same byte for byte.
 */
#include "tp_netaddr.h"
#include "tp_textout.h"

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

static void ip4(struct tp_out *o, const unsigned char *a, bool zeros)
{
    for (int i = 0; i < 4; i++) {
        if (i)
            tp_out_put(o, ".", 1);
        tp_out_num(o, a[i], 10, zeros ? 3 : 1);
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
static void ip6_compressed(struct tp_out *o, const unsigned char *a)
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
            tp_out_put(o, needcolon || i == 0 ? "::" : ":", needcolon || i == 0 ? 2 : 1);
            needcolon = false;
            i += longest - 1;
            continue;
        }
        if (needcolon)
            tp_out_put(o, ":", 1);
        tp_out_num(o, word(a, i), 16, 1);
        needcolon = true;
    }
    if (dotted) {
        if (needcolon)
            tp_out_put(o, ":", 1);
        ip4(o, a + 12, false);
    }
}

static void ip6(struct tp_out *o, const unsigned char *a, enum tp_ip6_form form)
{
    if (form == TP_IP6_COMPRESSED) {
        ip6_compressed(o, a);
        return;
    }
    for (int i = 0; i < 8; i++) {
        tp_out_num(o, word(a, i), 16, 4);
        if (form == TP_IP6_COLONS && i < 7)
            tp_out_put(o, ":", 1);
    }
}

int tp_netaddr_ip4(const unsigned char a[4], bool zeros, char *buf, size_t size)
{
    struct tp_out o = { buf, size, 0 };
    ip4(&o, a, zeros);
    return tp_out_end(&o);
}

int tp_netaddr_ip6(const unsigned char a[16], enum tp_ip6_form form, char *buf, size_t size)
{
    struct tp_out o = { buf, size, 0 };
    ip6(&o, a, form);
    return tp_out_end(&o);
}

int tp_netaddr_sockaddr(const unsigned char *sa, size_t len, bool port, bool compressed,
                        char *buf, size_t size)
{
    struct tp_out o = { buf, size, 0 };
    sa_family_t family;
    memcpy(&family, sa, sizeof(family));
    unsigned p = (unsigned)sa[2] << 8 | sa[3];      /* sin_port, sin6_port */
    if (family == AF_INET && len < sizeof(struct sockaddr_in)) {
        tp_out_put(&o, "INVALIDIPv4", 11);
    } else if (family == AF_INET) {
        ip4(&o, sa + offsetof(struct sockaddr_in, sin_addr), false);
        if (port) {
            tp_out_put(&o, ":", 1);
            tp_out_num(&o, p, 10, 1);
        }
    } else if (family == AF_INET6 && len < sizeof(struct sockaddr_in6)) {
        tp_out_put(&o, "INVALIDIPv6", 11);
    } else if (family == AF_INET6) {
        if (port)
            tp_out_put(&o, "[", 1);
        ip6(&o, sa + offsetof(struct sockaddr_in6, sin6_addr),
            compressed ? TP_IP6_COMPRESSED : TP_IP6_COLONS);
        if (port) {
            tp_out_put(&o, "]:", 2);
            tp_out_num(&o, p, 10, 1);
        }
    }
    return tp_out_end(&o);
}
