/*
 * libFuzzer harness for client/unpack.c: the event arrays pcp tracepoint
 * reads from a PMCD or an archive (an archive is untrusted input).
 *
 * The input is the array as it lies in a value block: its first word's
 * type byte and its record count are the input's, its length is the
 * input's size (a decoded PDU never holds a value longer than itself).
 * Unpacked twice, the arena reused.  Checked, from client/unpack.h:
 *   - the result is a record count, 0, or one of the errors it names;
 *     an error hands nothing out;
 *   - each record has its index and its value sets (flags, missed, its
 *     parameters: none for a record of no flags and no parameters) one
 *     after another in the arena, each of one value; a value held elsewhere points into the array, its header and
 *     its bytes before the array's end;
 *   - the second unpack gives the first's records.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pcp/pmapi.h>

#include "unpack.h"

#define FLAGS_PMID  1u
#define MISSED_PMID 2u

static void check_set(const pmValueSet *vs, const char *base, const char *end)
{
    if (vs->numval != 1)
        abort();
    if (vs->valfmt == PM_VAL_INSITU)
        return;
    if (vs->valfmt != PM_VAL_DPTR)
        abort();
    const char *vb = (const char *)vs->vlist[0].value.pval;
    const pmValueBlock *b = vs->vlist[0].value.pval;
    if (vb < base || vb + PM_VAL_HDR_SIZE > end || b->vlen < PM_VAL_HDR_SIZE ||
        b->vlen > (size_t)(end - vb))
        abort();
}

static int unpack_check(struct unpacker *u, const pmValueSet *vs, const char *end,
                        uint64_t *sum)
{
    struct record *rec = NULL;
    int n = unpack_events(u, vs, 0, &rec);
    if (n < 0) {
        if (rec != NULL || (n != PM_ERR_CONV && n != PM_ERR_TYPE && n != PM_ERR_TOOSMALL &&
                            n != PM_ERR_TOOBIG && n != -ENOMEM))
            abort();
        return n;
    }
    if (n > 0 && rec == NULL)
        abort();
    pmValueSet **next = n > 0 ? rec[0].vset : NULL;
    for (int r = 0; r < n; r++) {
        if (rec[r].index != r || rec[r].numpmid < 0 || rec[r].vset != next ||
            rec[r].key != rec[r].stamp_ns)
            abort();
        for (int i = 0; i < rec[r].numpmid; i++) {
            check_set(rec[r].vset[i], (const char *)vs->vlist[0].value.pval, end);
            *sum = *sum * 31 + rec[r].vset[i]->pmid + rec[r].stamp_ns;
        }
        next += rec[r].numpmid;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < offsetof(pmEventArray, ea_record) || size > 0xffffff)
        return 0;
    char *buf = malloc(size);           /* aligned, as a decoded PDU's values are */
    if (buf == NULL)
        return 0;
    memcpy(buf, data, size);
    pmEventArray *ea = (pmEventArray *)buf;
    ea->ea_len = (unsigned)size;
    pmValueSet vs = { .pmid = 3, .numval = 1, .valfmt = PM_VAL_DPTR };
    vs.vlist[0].inst = PM_IN_NULL;
    vs.vlist[0].value.pval = (pmValueBlock *)ea;
    struct unpacker u;
    uint64_t a = 0, b = 0;
    unpack_init(&u, FLAGS_PMID, MISSED_PMID);
    int n1 = unpack_check(&u, &vs, buf + size, &a);
    int n2 = unpack_check(&u, &vs, buf + size, &b);
    if (n1 != n2 || a != b)
        abort();
    unpack_free(&u);
    free(buf);
    return 0;
}
