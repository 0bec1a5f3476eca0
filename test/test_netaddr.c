/*
 * Unit tests for src/netaddr.c: addresses as libtraceevent prints %pI4,
 * %pi4, %pI6, %pi6, %pI6c and %pISpc (test_printfmt holds the forms the
 * machine's formats use to libtraceevent itself; these are the rules and
 * the forms no format of this machine may use): the compressed form's
 * longest run, IPv4 tails, sockaddrs too short for their family, and text
 * cut as snprintf cuts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "tp_netaddr.h"

static const char *ip6(const char *text, enum tp_ip6_form form)
{
    static char buf[64];
    unsigned char a[16];
    assert_int_equal(inet_pton(AF_INET6, text, a), 1);
    int n = tp_netaddr_ip6(a, form, buf, sizeof(buf));
    assert_int_equal((size_t)n, strlen(buf));
    return buf;
}

static void test_ip4(void **state)
{
    (void)state;
    const unsigned char a[4] = { 10, 0, 200, 1 };
    char buf[32];
    assert_int_equal(tp_netaddr_ip4(a, false, buf, sizeof(buf)), 10);
    assert_string_equal(buf, "10.0.200.1");
    assert_int_equal(tp_netaddr_ip4(a, true, buf, sizeof(buf)), 15);
    assert_string_equal(buf, "010.000.200.001");
    assert_int_equal(tp_netaddr_ip4(a, false, buf, 5), 10);
    assert_string_equal(buf, "10.0");
}

static void test_ip6_compressed(void **state)
{
    (void)state;
    assert_string_equal(ip6("::", TP_IP6_COMPRESSED), "::");
    assert_string_equal(ip6("::1", TP_IP6_COMPRESSED), "::1");
    assert_string_equal(ip6("fe80::1", TP_IP6_COMPRESSED), "fe80::1");
    assert_string_equal(ip6("2001:db8:0:1:0:0:0:1", TP_IP6_COMPRESSED), "2001:db8:0:1::1");
    /* of two runs as long, the first; a single zero word is not compressed */
    assert_string_equal(ip6("1:0:0:2:3:0:0:4", TP_IP6_COMPRESSED), "1::2:3:0:0:4");
    assert_string_equal(ip6("1:0:2:3:4:5:6:7", TP_IP6_COMPRESSED), "1:0:2:3:4:5:6:7");
    assert_string_equal(ip6("1:2:3:4:5:6:7::", TP_IP6_COMPRESSED), "1:2:3:4:5:6:7:0");
    assert_string_equal(ip6("::ffff:10.1.2.3", TP_IP6_COMPRESSED), "::ffff:10.1.2.3");
    assert_string_equal(ip6("fe80::200:5efe:10.1.2.3", TP_IP6_COMPRESSED),
                        "fe80::200:5efe:10.1.2.3");
    assert_string_equal(ip6("fe80::5efe:10.1.2.3", TP_IP6_COMPRESSED), "fe80::5efe:10.1.2.3");
    assert_string_equal(ip6("fe80::1:5efe:10.1.2.3", TP_IP6_COMPRESSED),
                        "fe80::1:5efe:a01:203");
}

static void test_ip6_full(void **state)
{
    (void)state;
    assert_string_equal(ip6("fe80::1", TP_IP6_COLONS), "fe80:0000:0000:0000:0000:0000:0000:0001");
    assert_string_equal(ip6("fe80::1", TP_IP6_PLAIN), "fe800000000000000000000000000001");
    assert_string_equal(ip6("::ffff:10.1.2.3", TP_IP6_COLONS),
                        "0000:0000:0000:0000:0000:ffff:0a01:0203");
}

static void test_sockaddr(void **state)
{
    (void)state;
    char buf[64];
    struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(443) };
    inet_pton(AF_INET, "192.168.1.20", &in.sin_addr);
    struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(80) };
    inet_pton(AF_INET6, "::1", &in6.sin6_addr);
    unsigned char raw[28];

    memset(raw, 0, sizeof(raw));
    memcpy(raw, &in, sizeof(in));
    tp_netaddr_sockaddr(raw, sizeof(raw), true, true, buf, sizeof(buf));
    assert_string_equal(buf, "192.168.1.20:443");
    tp_netaddr_sockaddr(raw, sizeof(raw), false, true, buf, sizeof(buf));
    assert_string_equal(buf, "192.168.1.20");
    assert_int_equal(tp_netaddr_sockaddr(raw, sizeof(in) - 1, true, true, buf, sizeof(buf)), 11);
    assert_string_equal(buf, "INVALIDIPv4");

    memcpy(raw, &in6, sizeof(in6));
    tp_netaddr_sockaddr(raw, sizeof(raw), true, true, buf, sizeof(buf));
    assert_string_equal(buf, "[::1]:80");
    tp_netaddr_sockaddr(raw, sizeof(raw), true, false, buf, sizeof(buf));
    assert_string_equal(buf, "[0000:0000:0000:0000:0000:0000:0000:0001]:80");
    tp_netaddr_sockaddr(raw, sizeof(raw), false, true, buf, sizeof(buf));
    assert_string_equal(buf, "::1");
    tp_netaddr_sockaddr(raw, sizeof(in6) - 1, true, true, buf, sizeof(buf));
    assert_string_equal(buf, "INVALIDIPv6");

    /* another family: nothing; cut as snprintf cuts */
    uint16_t unix_family = AF_UNIX;
    memcpy(raw, &unix_family, 2);
    assert_int_equal(tp_netaddr_sockaddr(raw, sizeof(raw), true, true, buf, sizeof(buf)), 0);
    assert_string_equal(buf, "");
    memcpy(raw, &in6, sizeof(in6));
    assert_int_equal(tp_netaddr_sockaddr(raw, sizeof(raw), true, true, buf, 4), 8);
    assert_string_equal(buf, "[::");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ip4),
        cmocka_unit_test(test_ip6_compressed),
        cmocka_unit_test(test_ip6_full),
        cmocka_unit_test(test_sockaddr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
