# QA helpers beyond tpgen and tpclient, and `make stress`.  Included by
# GNUmakefile.
.PHONY: stress
STRESS_SECS ?= 180

# The churn driver of QA 060 and make stress: clients that come and go.
$(B)/tpchurn: qa/src/tpchurn.c include/tp_pcp_compat.h | $(B)
	$(CC) $(TP_CFLAGS) -o $@ $< $(LIBPCP)

# The fixed event mix of the event-text tests.
$(B)/tpshow: qa/src/tpshow.c | $(B)
	$(CC) $(TP_CFLAGS) -o $@ $<

# The target of the dynamic-probe tests, and its shared library.
$(B)/libtpprobe.so: qa/src/libtpprobe.c | $(B)
	$(CC) $(TP_CFLAGS) -fPIC -shared -o $@ $<

$(B)/tpprobe: qa/src/tpprobe.c $(B)/libtpprobe.so | $(B)
	$(CC) $(TP_CFLAGS) -o $@ $< -L$(B) -ltpprobe -Wl,-rpath,$(CURDIR)/$(B)

# Clients connect, subscribe, fetch and leave (or are killed) for
# STRESS_SECS seconds while events flow; see scripts/stress.sh.
stress: setup all $(B)/tpgen $(B)/tpclient $(B)/tpchurn
	@STRESS_SECS=$(STRESS_SECS) scripts/stress.sh $(CURDIR)/$(B)
