/*
 * tp_netaddr: network addresses in event text as trace-cmd and perf script
 * print the kernel's %pI4, %pi4, %pI6, %pi6, %pI6c and %pISpc (libtraceevent's
 * print_ip_arg), from the bytes of a record's field.
 *
 * Each writer puts its text at buf (size >= 1, always NUL-terminated, cut
 * at size - 1) and returns the length it wanted, as snprintf.  Pure: no
 * state, any thread.
 */
#ifndef TP_NETADDR_H
#define TP_NETADDR_H

#include <stdbool.h>
#include <stddef.h>

/* An IPv4 address, 4 bytes in network order: "10.0.0.1", or with zeros "010.000.000.001". */
int tp_netaddr_ip4(const unsigned char a[4], bool zeros, char *buf, size_t size);

/*
 * An IPv6 address, 16 bytes in network order: %pI6c's compressed form
 * ("fe80::1", "::ffff:10.0.0.1"), %pI6's eight groups of four digits with
 * colons, or %pi6's without.
 */
enum tp_ip6_form { TP_IP6_COMPRESSED, TP_IP6_COLONS, TP_IP6_PLAIN };
int tp_netaddr_ip6(const unsigned char a[16], enum tp_ip6_form form, char *buf, size_t size);

/*
 * A struct sockaddr of len bytes (%pIS): AF_INET as an IPv4 address, AF_INET6
 * as an IPv6 one (compressed with c), with port the port after it ("10.0.0.1:80",
 * "[::1]:80"); "INVALIDIPv4" or "INVALIDIPv6" where len is too short for its
 * family, nothing for another family.
 */
int tp_netaddr_sockaddr(const unsigned char *sa, size_t len, bool port, bool compressed,
                        char *buf, size_t size);

#endif
