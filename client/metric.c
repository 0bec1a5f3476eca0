/* metric.c: metrics of the current context, by name (client/metric.h). */
#include "metric.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

int lookup_metric(const char *name, pmID *pmid, pmDesc *desc)
{
    int sts = pmLookupName(1, &name, pmid);

    if (sts >= 0)
        sts = pmLookupDesc(*pmid, desc);
    return sts;
}

int store_strings(int n, const pmID *pmids, const char *const *texts)
{
    pmResult *result = calloc(1, sizeof(pmResult) + (size_t)n * sizeof(pmValueSet *));
    pmValueSet *vsets = calloc((size_t)n, sizeof(pmValueSet));
    pmValueBlock **blocks = calloc((size_t)n, sizeof(pmValueBlock *));
    int sts = result && vsets && blocks ? 0 : -ENOMEM;

    for (int i = 0; sts == 0 && i < n; i++) {
        size_t len = strlen(texts[i]) + 1, size = PM_VAL_HDR_SIZE + len;
        if (size >= (1u << 24)) {            /* vlen is 24 bits */
            sts = PM_ERR_TOOBIG;
            break;
        }
        if ((blocks[i] = calloc(1, size < sizeof(pmValueBlock) ? sizeof(pmValueBlock)
                                                                : size)) == NULL) {
            sts = -ENOMEM;
            break;
        }
        blocks[i]->vtype = PM_TYPE_STRING;
        blocks[i]->vlen = (unsigned int)size;
        memcpy(blocks[i]->vbuf, texts[i], len);
        vsets[i] = (pmValueSet){ .pmid = pmids[i], .numval = 1, .valfmt = PM_VAL_DPTR };
        vsets[i].vlist[0].inst = PM_IN_NULL;
        vsets[i].vlist[0].value.pval = blocks[i];
        result->vset[i] = &vsets[i];
    }
    if (sts == 0) {
        result->numpmid = n;
        sts = pmStore(result);
    }
    for (int i = 0; blocks && i < n; i++)
        free(blocks[i]);
    free(blocks);
    free(vsets);
    free(result);
    return sts;
}

int store_string(pmID pmid, const char *text)
{
    return store_strings(1, &pmid, &text);
}

char *fetch_string(const char *name)
{
    pmID pmid;
    pmDesc desc;
    pmResult *rp;
    char *s = NULL;

    if (lookup_metric(name, &pmid, &desc) < 0 || desc.type != PM_TYPE_STRING ||
        pmFetch(1, &pmid, &rp) < 0)
        return NULL;
    if (rp->vset[0]->numval > 0 && rp->vset[0]->valfmt != PM_VAL_INSITU) {
        const pmValueBlock *vb = rp->vset[0]->vlist[0].value.pval;
        s = strndup(vb->vbuf, block_len(vb));
    }
    pmFreeResult(rp);
    return s;
}

char *refusal_reason(void)
{
    static const char tag[] = "last error: ";
    char *status = fetch_string(STATUS_METRIC), *why = NULL;
    char *p = status != NULL ? strstr(status, tag) : NULL;

    if (p != NULL && strncmp(p + strlen(tag), "none", 4) != 0)
        why = strndup(p + strlen(tag), strcspn(p + strlen(tag), "\n"));
    free(status);
    return why;
}

